package analysis

import (
	"encoding/json"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// schema is a structured-output contract: its name, the JSON Schema and
// the top-level keys a reply must have.
type schema struct {
	name     string
	schema   json.RawMessage
	required []string
}

// prop is one property of an object schema, in order.
type prop struct {
	name   string
	schema map[string]any
}

// object is a strict object schema: every property required, no others
// allowed (what strict structured output demands).
func object(props ...prop) map[string]any {
	properties := map[string]any{}
	required := make([]string, len(props))
	for i, p := range props {
		properties[p.name] = p.schema
		required[i] = p.name
	}
	return map[string]any{"type": "object", "properties": properties, "required": required, "additionalProperties": false}
}

func str() map[string]any     { return map[string]any{"type": "string"} }
func boolean() map[string]any { return map[string]any{"type": "boolean"} }
func number() map[string]any  { return map[string]any{"type": "number"} }
func array(items map[string]any) map[string]any {
	return map[string]any{"type": "array", "items": items}
}
func enum(values ...string) map[string]any {
	return map[string]any{"type": "string", "enum": values}
}

// newSchema names and renders a top-level object schema.
func newSchema(name string, props ...prop) schema {
	b, err := json.Marshal(object(props...))
	if err != nil {
		panic(err) // the schemas are built from maps of plain values
	}
	s := schema{name: name, schema: b}
	for _, p := range props {
		s.required = append(s.required, p.name)
	}
	return s
}

// The schemas of the Model's calls.
var (
	answerSchema = newSchema("answer_analysis",
		prop{"confidence", enum(string(interviews.ConfidenceHigh), string(interviews.ConfidenceMedium), string(interviews.ConfidenceLow))},
		prop{"declined", boolean()},
		prop{"facts", array(str())},
		prop{"fills", array(object(
			prop{"skill", str()},
			prop{"attribute", enum(append([]string{""}, stages.SkillAttributes...)...)},
			prop{"field", str()},
			prop{"value", str()},
			prop{"evidence", str()},
		))},
		prop{"follow_up", str()},
		prop{"discovered", array(object(
			prop{"text", str()},
			prop{"priority", enum(string(stages.P0), string(stages.P1))},
			prop{"about", str()},
		))},
		prop{"skills", array(str())},
	)
	skillsSchema = newSchema("skills",
		prop{"skills", array(object(
			prop{"name", str()},
			prop{"sources", array(enum(SourceResume, SourceJobRequired, SourceJobPreferred))},
			prop{"duration", str()},
			prop{"depth", str()},
			prop{"autonomy", str()},
			prop{"scale", str()},
			prop{"constraints", str()},
			prop{"production_vs_prototype", str()},
			prop{"evidence", array(str())},
		))},
	)
	backlogSchema = newSchema("backlog",
		prop{"items", array(object(
			prop{"text", str()},
			prop{"priority", enum(string(stages.P0), string(stages.P1))},
			prop{"topic", str()},
		))},
	)
	phaseSchema = newSchema("phase_evaluation",
		prop{"decision", enum(interviews.PhaseAdvance, interviews.PhaseContinue)},
		prop{"score", number()},
		prop{"feedback", str()},
		prop{"gaps", array(str())},
	)
	missingSchema = newSchema("missing", prop{"missing", array(str())})
	summarySchema = newSchema("topic_summary",
		prop{"topics", array(object(
			prop{"title", str()},
			prop{"points", array(str())},
		))},
	)
)
