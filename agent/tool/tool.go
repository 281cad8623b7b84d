// Package tool defines the interviewer's tools once: for each tool named in
// stages.Tools, its description, the type of its arguments (from which the
// JSON schema offered to the model is generated) and the Result every tool
// returns. The conductor executes them; the scripted interviewer calls them
// exactly as a model would, with the same types.
package tool

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/stages"
)

// Args is the arguments of one tool call; each tool has its own type.
type Args interface {
	// Tool is the name of the tool these arguments are for.
	Tool() stages.ToolName
}

// TransitionStage asks to move the interview to the next stage.
type TransitionStage struct {
	Reason string `json:"reason" desc:"Why the current stage is complete."`
}

// AskQuestion asks the candidate a question: it is registered and, once
// accepted, said word for word after the text of the same reply.
type AskQuestion struct {
	Question  string `json:"question" desc:"The question, exactly as the candidate should hear it. It is said for you after your message's text."`
	Purpose   string `json:"purpose,omitempty" desc:"What the question is meant to find out."`
	Ref       string `json:"ref,omitempty" desc:"The ref of the suggested question it comes from (the [id] or ref in your instructions), if any."`
	Targets   string `json:"targets,omitempty" desc:"When it comes from no suggestion: the skill or topic it probes (for example PostgreSQL, or why this role)."`
	FollowsUp string `json:"follows_up,omitempty" desc:"The id of the earlier question this one follows up, if any."`
}

// AssessResponse records the depth of the candidate's last answer.
type AssessResponse struct {
	DepthScore int      `json:"depth_score" minimum:"1" maximum:"5" desc:"1 = superficial, 3 = solid, 5 = expert depth."`
	KeyPoints  []string `json:"key_points" desc:"The main points the answer made."`
	Declined   bool     `json:"declined,omitempty" desc:"True when the candidate declined to answer (would rather not say, confidential, does not know)."`
}

// EvaluatePhase asks how complete the current design phase is.
type EvaluatePhase struct{}

// EndInterview moves to the closing stage when the candidate asks to stop.
type EndInterview struct {
	Reason string `json:"reason" desc:"What the candidate said."`
}

// Tool implements Args.
func (TransitionStage) Tool() stages.ToolName { return stages.ToolTransitionStage }

// Tool implements Args.
func (AskQuestion) Tool() stages.ToolName { return stages.ToolAskQuestion }

// Tool implements Args.
func (AssessResponse) Tool() stages.ToolName { return stages.ToolAssessResponse }

// Tool implements Args.
func (EvaluatePhase) Tool() stages.ToolName { return stages.ToolEvaluatePhase }

// Tool implements Args.
func (EndInterview) Tool() stages.ToolName { return stages.ToolEndInterview }

// spec is one tool's definition: what the model is told and the arguments
// it takes.
type spec struct {
	description string
	args        Args
}

var specs = map[stages.ToolName]spec{
	stages.ToolTransitionStage: {
		description: "Move the interview to the next stage once the current stage's goals are met. Refused, with the reason, until the stage's minimum time and minimum number of questions are reached.",
		args:        TransitionStage{},
	},
	stages.ToolAskQuestion: {
		description: "Ask the candidate a question. It is registered and then said for you, word for word, right after the text of your message: do not write the question in your message text (at most one short sentence before it, such as a brief acknowledgement of the answer). Refused, with the reason, when it repeats an earlier question; then nothing of it is said and you choose another. At most one per reply, as your last call.",
		args:        AskQuestion{},
	},
	stages.ToolAssessResponse: {
		description: "Record how deep the candidate's last answer was, or that they declined to answer. Call it in the same reply as your next question.",
		args:        AssessResponse{},
	},
	stages.ToolEvaluatePhase: {
		description: "Evaluate how completely the candidate has covered the current design phase. Returns a score from 0 to 10, a decision (advance or continue), feedback and the gaps still open: work on the gaps, or move on with transition_stage when the decision is advance.",
		args:        EvaluatePhase{},
	},
	stages.ToolEndInterview: {
		description: "End the interview early, ONLY when the candidate clearly asks to stop. Moves to the closing stage.",
		args:        EndInterview{},
	},
}

// definitions are the function schemas of every tool, generated once:
// they never change, and the model is offered them on every round.
var definitions = func() map[stages.ToolName]llm.Tool {
	out := make(map[stages.ToolName]llm.Tool, len(specs))
	for n, s := range specs {
		out[n] = llm.Tool{Name: string(n), Description: s.description, Parameters: schema(s.args)}
	}
	return out
}()

// Definitions returns the function schemas of the named tools, in the
// order given, for llm.Request.Tools. Names without a definition are left
// out (stages.Blueprint.Validate refuses them).
func Definitions(names []stages.ToolName) []llm.Tool {
	out := make([]llm.Tool, 0, len(names))
	for _, n := range names {
		if d, ok := definitions[n]; ok {
			out = append(out, d)
		}
	}
	return out
}

// Call returns the tool call of args, with id, as a model would make it.
func Call(id string, args Args) llm.ToolCall {
	b, err := json.Marshal(args)
	if err != nil {
		// Unreachable: every Args type is plain data.
		panic(fmt.Sprintf("tool: encode %s arguments: %v", args.Tool(), err))
	}
	return llm.ToolCall{ID: id, Name: string(args.Tool()), Arguments: string(b)}
}

// Parse decodes the arguments of a tool call into the tool's Args type
// (TransitionStage, AskQuestion, …). Empty arguments mean {}. An unknown
// tool or arguments that do not match the tool's type give an error
// written for the model.
func Parse(tc llm.ToolCall) (Args, error) {
	s, ok := specs[stages.ToolName(tc.Name)]
	if !ok {
		return nil, fmt.Errorf("unknown tool %q: use one of %s", tc.Name, strings.Join(stages.ToolStrings(stages.Tools), ", "))
	}
	text := strings.TrimSpace(tc.Arguments)
	if text == "" {
		text = "{}"
	}
	p := reflect.New(reflect.TypeOf(s.args))
	if err := json.Unmarshal([]byte(text), p.Interface()); err != nil {
		return nil, fmt.Errorf("invalid arguments for %s: %v; send a JSON object matching the schema", tc.Name, err)
	}
	return p.Elem().Interface().(Args), nil
}

// schema generates the JSON Schema of an Args type from its fields: the
// json tag names the property (required unless omitempty), desc describes
// it, minimum and maximum bound an integer.
func schema(args Args) json.RawMessage {
	type property struct {
		Type        string    `json:"type"`
		Items       *property `json:"items,omitempty"`
		Minimum     *int      `json:"minimum,omitempty"`
		Maximum     *int      `json:"maximum,omitempty"`
		Description string    `json:"description,omitempty"`
	}
	props := map[string]property{}
	required := []string{}
	t := reflect.TypeOf(args)
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		p := property{Type: jsonType(f.Type), Description: f.Tag.Get("desc")}
		if f.Type.Kind() == reflect.Slice {
			p.Items = &property{Type: jsonType(f.Type.Elem())}
		}
		if v, err := strconv.Atoi(f.Tag.Get("minimum")); err == nil {
			p.Minimum = &v
		}
		if v, err := strconv.Atoi(f.Tag.Get("maximum")); err == nil {
			p.Maximum = &v
		}
		props[name] = p
		if opts != "omitempty" {
			required = append(required, name)
		}
	}
	b, err := json.Marshal(struct {
		Type                 string              `json:"type"`
		Properties           map[string]property `json:"properties"`
		Required             []string            `json:"required"`
		AdditionalProperties bool                `json:"additionalProperties"`
	}{"object", props, required, false})
	if err != nil {
		panic(fmt.Sprintf("tool: schema of %s: %v", args.Tool(), err))
	}
	return b
}

func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "integer"
	case reflect.Float64, reflect.Float32:
		return "number"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice:
		return "array"
	}
	return "object"
}

// Result is what every tool returns to the model, as JSON. Fields are
// omitted when empty.
type Result struct {
	// OK is false when the call was refused or invalid.
	OK bool `json:"ok"`
	// Error says why the call was refused and what to do instead.
	Error string `json:"error,omitempty"`
	// Stage is the current stage after the call, and StageTitle its name.
	Stage      string `json:"stage,omitempty"`
	StageTitle string `json:"stage_title,omitempty"`
	// QuestionID is the id given to a registered question.
	QuestionID string `json:"question_id,omitempty"`
	// Progress is the state of the stage ("question 2 of at least 5; 63% of the stage time left").
	Progress string `json:"progress,omitempty"`
	// Acknowledge is a stage-change acknowledgement to say once, first.
	Acknowledge string `json:"acknowledge,omitempty"`
	// Instructions are the new stage's instructions after a transition.
	Instructions string `json:"instructions,omitempty"`
	// Phase is the evaluation evaluate_phase returns.
	Phase *PhaseResult `json:"phase,omitempty"`
	// Next says what to do now.
	Next string `json:"next"`
}

// PhaseResult is a design phase's evaluation, as the model sees it.
type PhaseResult struct {
	// Score is 0–10.
	Score float64 `json:"score"`
	// Decision is "advance" or "continue".
	Decision string `json:"decision"`
	// Feedback and the Gaps still open.
	Feedback string   `json:"feedback,omitempty"`
	Gaps     []string `json:"gaps,omitempty"`
}

// JSON is the result as the text of a tool message.
func (r Result) JSON() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// ParseResult reads a tool message's content back into a Result; content
// that is not a Result gives the zero Result (not OK).
func ParseResult(content string) Result {
	var r Result
	_ = json.Unmarshal([]byte(content), &r)
	return r
}
