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
	addString(root, "name", b.Name)
	addString(root, "title", b.Title)
	addString(root, "description", b.Description)
	addString(root, "persona", b.Persona)
	addString(root, "mode", b.Mode)
	addString(root, "language", b.Language)
	if b.ClosingSafety != 0 {
		addPair(root, "closing_safety", durationNode(b.ClosingSafety))
	}
	if len(b.Rubric) > 0 {
		addPair(root, "rubric", sequence(b.Rubric, rubricFieldNode))
	}
	if e := b.Exit; e != (ExitConditions{}) {
		addPair(root, "exit_conditions", exitNode(e))
	}
	if len(b.Competencies) > 0 {
		addPair(root, "competencies", stringList(b.Competencies))
	}
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
	addString(rn, "id", f.ID)
	addString(rn, "label", f.Label)
	if f.Required {
		addPair(rn, "required", boolNode(true))
	}
	addString(rn, "question", f.Question)
	addString(rn, "stage", f.Stage)
	addString(rn, "expect", f.Expect)
	if len(f.Keywords) > 0 {
		addPair(rn, "keywords", stringList(f.Keywords))
	}
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
	addString(sn, "name", s.Name)
	addString(sn, "title", s.Title)
	addString(sn, "instructions", s.Instructions)
	addPair(sn, "limit", durationNode(s.Limit))
	if s.MinTime != 0 {
		addPair(sn, "min_time", durationNode(s.MinTime))
	}
	addPair(sn, "min_questions", intNode(s.MinQuestions))
	if s.Guided {
		addPair(sn, "guided", boolNode(true))
	}
	addString(sn, "next", s.Next)
	addString(sn, "acknowledgement", s.Acknowledgement)
	if len(s.Tools) > 0 {
		addPair(sn, "tools", stringList(ToolStrings(s.Tools)))
	}
	if len(s.Keywords) > 0 {
		addPair(sn, "keywords", stringList(s.Keywords))
	}
	if len(s.Questions) > 0 {
		addPair(sn, "questions", sequence(s.Questions, questionNode))
	}
	return sn
}

func questionNode(q Question) *yaml.Node {
	qn := mapping()
	addString(qn, "id", q.ID)
	addString(qn, "text", q.Text)
	addString(qn, "purpose", q.Purpose)
	if len(q.Keywords) > 0 {
		addPair(qn, "keywords", stringList(q.Keywords))
	}
	if t := q.Context.Targets; !t.IsZero() {
		tn := mapping()
		addString(tn, "skill", t.Skill)
		addString(tn, "attribute", t.Attribute)
		addString(tn, "field", t.Field)
		addString(tn, "category", t.Category)
		if len(t.Assesses) > 0 {
			addPair(tn, "assesses", stringList(t.Assesses))
		}
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
