package analysis

import (
	st "github.com/viva-interviews/viva/agent/llm/structured"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// The schemas of the Model's calls.
var (
	answerSchema = st.New("answer_analysis",
		st.Prop{Name: "confidence", Schema: st.Enum(string(interviews.ConfidenceHigh), string(interviews.ConfidenceMedium), string(interviews.ConfidenceLow))},
		st.Prop{Name: "declined", Schema: st.Boolean()},
		st.Prop{Name: "facts", Schema: st.Array(st.String())},
		st.Prop{Name: "fills", Schema: st.Array(st.Object(
			st.Prop{Name: "skill", Schema: st.String()},
			st.Prop{Name: "attribute", Schema: st.Enum(append([]string{""}, stages.SkillAttributes...)...)},
			st.Prop{Name: "field", Schema: st.String()},
			st.Prop{Name: "value", Schema: st.String()},
			st.Prop{Name: "evidence", Schema: st.String()},
		))},
		st.Prop{Name: "follow_up", Schema: st.String()},
		st.Prop{Name: "discovered", Schema: st.Array(st.Object(
			st.Prop{Name: "text", Schema: st.String()},
			st.Prop{Name: "priority", Schema: st.Enum(string(stages.P0), string(stages.P1))},
			st.Prop{Name: "about", Schema: st.String()},
		))},
		st.Prop{Name: "skills", Schema: st.Array(st.String())},
		st.Prop{Name: "absent", Schema: st.Array(st.String())},
	)
	skillsSchema = st.New("skills",
		st.Prop{Name: "skills", Schema: st.Array(st.Object(
			st.Prop{Name: "name", Schema: st.String()},
			st.Prop{Name: "sources", Schema: st.Array(st.Enum(SourceResume, SourceJobRequired, SourceJobPreferred))},
			st.Prop{Name: "duration", Schema: st.String()},
			st.Prop{Name: "depth", Schema: st.String()},
			st.Prop{Name: "autonomy", Schema: st.String()},
			st.Prop{Name: "scale", Schema: st.String()},
			st.Prop{Name: "constraints", Schema: st.String()},
			st.Prop{Name: "production_vs_prototype", Schema: st.String()},
			st.Prop{Name: "evidence", Schema: st.Array(st.String())},
		))},
	)
	backlogSchema = st.New("backlog",
		st.Prop{Name: "items", Schema: st.Array(st.Object(
			st.Prop{Name: "text", Schema: st.String()},
			st.Prop{Name: "priority", Schema: st.Enum(string(stages.P0), string(stages.P1))},
			st.Prop{Name: "topic", Schema: st.String()},
		))},
	)
	phaseSchema = st.New("phase_evaluation",
		st.Prop{Name: "decision", Schema: st.Enum(interviews.PhaseAdvance, interviews.PhaseContinue)},
		st.Prop{Name: "score", Schema: st.Number()},
		st.Prop{Name: "feedback", Schema: st.String()},
		st.Prop{Name: "gaps", Schema: st.Array(st.String())},
	)
	missingSchema = st.New("missing", st.Prop{Name: "missing", Schema: st.Array(st.String())})
	summarySchema = st.New("topic_summary",
		st.Prop{Name: "topics", Schema: st.Array(st.Object(
			st.Prop{Name: "title", Schema: st.String()},
			st.Prop{Name: "points", Schema: st.Array(st.String())},
		))},
	)
)
