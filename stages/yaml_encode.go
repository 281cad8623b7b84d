package stages

import (
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// MarshalYAML encodes the blueprint in the format Parse reads: durations as
// whole seconds when they are, Go duration strings otherwise, and empty
// optional fields left out. yaml.Marshal of a Blueprint or *Blueprint
// therefore round-trips through Parse.
func (b Blueprint) MarshalYAML() (any, error) {
	root := mapping()
	addStrings(root, "name", b.Name, "title", b.Title, "description", b.Description, "persona", b.Persona, "mode", b.Mode, "language", b.Language)
	if b.ClosingSafety != 0 {
		addPair(root, "closing_safety", durationNode(b.ClosingSafety))
	}
	if len(b.Rubric) > 0 {
		addPair(root, "rubric", sequence(b.Rubric, rubricFieldNode))
	}
	if e := b.Exit; e != (ExitConditions{}) {
		addPair(root, "exit_conditions", exitNode(e))
	}
	addWords(root, "competencies", b.Competencies)
	if b.CandidateFeedback {
		addPair(root, "candidate_feedback", boolNode(true))
	}
	if b.FeedbackScores {
		addPair(root, "candidate_feedback_scores", boolNode(true))
	}
	if len(b.Problems) > 0 {
		addPair(root, "problems", sequence(b.Problems, problemNode))
	}
	addPair(root, "stages", sequence(b.Stages, stageNode))
	return root, nil
}

func rubricFieldNode(f RubricField) *yaml.Node {
	rn := mapping()
	addStrings(rn, "id", f.ID, "label", f.Label)
	if f.Required {
		addPair(rn, "required", boolNode(true))
	}
	addStrings(rn, "question", f.Question, "stage", f.Stage, "expect", f.Expect)
	addWords(rn, "keywords", f.Keywords)
	return rn
}

func exitNode(e ExitConditions) *yaml.Node {
	en := mapping()
	if e.RequiredFieldsThreshold != 0 {
		addPair(en, "required_fields_threshold", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(e.RequiredFieldsThreshold, 'g', -1, 64)})
	}
	if e.MaxTurns != 0 {
		addPair(en, "max_turns", intNode(e.MaxTurns))
	}
	if e.GracefulClosing != nil {
		addPair(en, "graceful_closing", boolNode(*e.GracefulClosing))
	}
	if e.Rounds != 0 {
		addPair(en, "rounds", intNode(e.Rounds))
	}
	return en
}

func stageNode(s Stage) *yaml.Node {
	sn := mapping()
	addStrings(sn, "name", s.Name, "title", s.Title, "instructions", s.Instructions)
	addPair(sn, "limit", durationNode(s.Limit))
	if s.MinTime != 0 {
		addPair(sn, "min_time", durationNode(s.MinTime))
	}
	addPair(sn, "min_questions", intNode(s.MinQuestions))
	if s.Guided {
		addPair(sn, "guided", boolNode(true))
	}
	addStrings(sn, "next", s.Next, "acknowledgement", s.Acknowledgement)
	addWords(sn, "tools", ToolStrings(s.Tools))
	addWords(sn, "keywords", s.Keywords)
	addQuestions(sn, s.Questions)
	return sn
}

func questionNode(q Question) *yaml.Node {
	qn := mapping()
	addStrings(qn, "id", q.ID, "text", q.Text, "purpose", q.Purpose)
	addWords(qn, "keywords", q.Keywords)
	if t := q.Context.Targets; !t.IsZero() {
		tn := mapping()
		addStrings(tn, "skill", t.Skill, "attribute", t.Attribute, "field", t.Field, "category", t.Category)
		addWords(tn, "assesses", t.Assesses)
		addString(tn, "phase", t.Phase)
		tn.Style = yaml.FlowStyle
		addPair(qn, "targets", tn)
	}
	return qn
}

// sequence is a block sequence of node(v) for each of vs.
func sequence[T any](vs []T, node func(T) *yaml.Node) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode}
	for _, v := range vs {
		n.Content = append(n.Content, node(v))
	}
	return n
}

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode} }

func intNode(i int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(i)}
}

func boolNode(v bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v)}
}

func addPair(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

// addString adds a non-empty string, as a literal block when it spans lines.
func addString(m *yaml.Node, key, v string) {
	if v == "" {
		return
	}
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
	if strings.Contains(v, "\n") {
		n.Style = yaml.LiteralStyle
	}
	addPair(m, key, n)
}

// addStrings adds each key, value pair of kv to m with addString.
func addStrings(m *yaml.Node, kv ...string) {
	for i := 0; i+1 < len(kv); i += 2 {
		addString(m, kv[i], kv[i+1])
	}
}

// addWords adds key: vs to m as a list, when there is any.
func addWords(m *yaml.Node, key string, vs []string) {
	if len(vs) > 0 {
		addPair(m, key, stringList(vs))
	}
}

// addQuestions adds the questions qs to m, when there is any.
func addQuestions(m *yaml.Node, qs []Question) {
	if len(qs) > 0 {
		addPair(m, "questions", sequence(qs, questionNode))
	}
}

func stringList(vs []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, v := range vs {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v})
	}
	return n
}

func durationNode(d time.Duration) *yaml.Node {
	if d%time.Second == 0 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(int64(d/time.Second), 10)}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: d.String()}
}
