package stages

import "slices"

// ToolName names a tool (a function) the interviewer model may call. The
// names are defined here, once, because a stage chooses the tools it offers
// and a blueprint is checked against them when it is loaded; their
// arguments and results are defined with the tools themselves (agent/tool).
type ToolName string

// The tools of the interviewer.
const (
	// ToolTransitionStage moves the interview to the next stage, subject to
	// the stage's gates.
	ToolTransitionStage ToolName = "transition_stage"
	// ToolAskQuestion registers a question before it is said.
	ToolAskQuestion ToolName = "ask_question"
	// ToolAssessResponse records how deep the candidate's last answer was.
	ToolAssessResponse ToolName = "assess_response"
	// ToolEndInterview moves to the closing stage when the candidate asks
	// to stop.
	ToolEndInterview ToolName = "end_interview"
	// ToolEvaluatePhase judges whether the candidate has covered the
	// current design phase well enough to move on. Only stages that list
	// it in their tools offer it.
	ToolEvaluatePhase ToolName = "evaluate_phase"
)

// Tools lists the tools a stage offers when it names none (the default
// offer), in the order they are offered.
var Tools = []ToolName{ToolTransitionStage, ToolAskQuestion, ToolAssessResponse, ToolEndInterview}

// AllTools lists every tool a stage may offer, in the order they are
// offered: Tools, then the tools a stage must ask for by name.
var AllTools = append(slices.Clone(Tools), ToolEvaluatePhase)

// Known reports whether n is one of AllTools.
func (n ToolName) Known() bool { return slices.Contains(AllTools, n) }

// OfferedTools returns the tools the stage offers, in the order of
// AllTools: its Tools, or the default offer Tools when it names none.
func (s Stage) OfferedTools() []ToolName {
	if len(s.Tools) == 0 {
		return slices.Clone(Tools)
	}
	var out []ToolName
	for _, n := range AllTools {
		if slices.Contains(s.Tools, n) {
			out = append(out, n)
		}
	}
	return out
}

// Offers reports whether the stage offers the tool called n.
func (s Stage) Offers(n ToolName) bool {
	if len(s.Tools) == 0 {
		return slices.Contains(Tools, n)
	}
	return n.Known() && slices.Contains(s.Tools, n)
}

// ToolStrings returns names as strings, for messages and YAML.
func ToolStrings(names []ToolName) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = string(n)
	}
	return out
}
