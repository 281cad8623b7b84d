package tool

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/stages"
)

// TestSchemas: the schemas generated from the argument types are the ones
// the model is offered.
func TestSchemas(t *testing.T) {
	want := map[stages.ToolName]string{
		stages.ToolTransitionStage: `{"type":"object","properties":{"reason":{"type":"string","description":"Why the current stage is complete."}},"required":["reason"],"additionalProperties":false}`,
		stages.ToolAskQuestion:     `{"type":"object","properties":{"question":{"type":"string","description":"The question, exactly as the candidate should hear it. It is said for you after your message's text."},"purpose":{"type":"string","description":"What the question is meant to find out."},"ref":{"type":"string","description":"The ref of the suggested question it comes from (the [id] or ref in your instructions), if any."},"targets":{"type":"string","description":"When it comes from no suggestion: the skill or topic it probes (for example PostgreSQL, or why this role)."},"follows_up":{"type":"string","description":"The id of the earlier question this one follows up, if any."}},"required":["question"],"additionalProperties":false}`,
		stages.ToolAssessResponse:  `{"type":"object","properties":{"depth_score":{"type":"integer","minimum":1,"maximum":5,"description":"1 = superficial, 3 = solid, 5 = expert depth."},"key_points":{"type":"array","items":{"type":"string"},"description":"The main points the answer made."},"declined":{"type":"boolean","description":"True when the candidate declined to answer (would rather not say, confidential, does not know)."}},"required":["depth_score","key_points"],"additionalProperties":false}`,
		stages.ToolEndInterview:    `{"type":"object","properties":{"reason":{"type":"string","description":"What the candidate said."}},"required":["reason"],"additionalProperties":false}`,
	}
	defs := Definitions(stages.Tools)
	if len(defs) != len(stages.Tools) {
		t.Fatalf("%d definitions for %d tools", len(defs), len(stages.Tools))
	}
	for i, d := range defs {
		if d.Name != string(stages.Tools[i]) || d.Description == "" {
			t.Errorf("definition %d: %s %q", i, d.Name, d.Description)
		}
		var got, exp any
		if err := json.Unmarshal(d.Parameters, &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(want[stages.ToolName(d.Name)]), &exp); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("%s schema\n got %s\nwant %s", d.Name, d.Parameters, want[stages.ToolName(d.Name)])
		}
	}
}

// TestCallParseRoundTrip: a call built from arguments parses back into the
// same arguments, under the tool's name.
func TestCallParseRoundTrip(t *testing.T) {
	for _, args := range []Args{
		TransitionStage{Reason: "done"},
		AskQuestion{Question: "Why Go?", Purpose: "motivation", Ref: "intro-1"},
		AssessResponse{DepthScore: 3, KeyPoints: []string{"a", "b"}},
		EndInterview{Reason: "I have to go"},
	} {
		tc := Call("c1", args)
		if tc.Name != string(args.Tool()) || tc.ID != "c1" {
			t.Errorf("call %+v for %T", tc, args)
		}
		got, err := Parse(tc)
		if err != nil || !reflect.DeepEqual(got, args) {
			t.Errorf("Parse(%s) = %#v, %v; want %#v", tc.Arguments, got, err, args)
		}
	}
}

// TestParseRefusals: unknown tools and bad arguments give errors that say
// what to do; empty arguments are an empty object.
func TestParseRefusals(t *testing.T) {
	if _, err := Parse(llm.ToolCall{Name: "open_pod_bay_doors"}); err == nil || !strings.Contains(err.Error(), "use one of transition_stage") {
		t.Errorf("unknown tool: %v", err)
	}
	if _, err := Parse(llm.ToolCall{Name: string(stages.ToolAskQuestion), Arguments: `{"question":`}); err == nil || !strings.Contains(err.Error(), "invalid arguments for ask_question") {
		t.Errorf("bad arguments: %v", err)
	}
	if a, err := Parse(llm.ToolCall{Name: string(stages.ToolEndInterview)}); err != nil || a != (EndInterview{}) {
		t.Errorf("empty arguments: %#v, %v", a, err)
	}
}
