package stages

import (
	"embed"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// DefaultName is the name of the Default blueprint, the one an interview
// follows when none is chosen.
const DefaultName = "default"

// The rubric fields of the Default blueprint, which its bank questions
// target.
const (
	FieldCurrentRole     = "current_role"
	FieldYearsExperience = "years_experience"
	FieldWhyRole         = "why_role"
	FieldProudProject    = "proud_project"
	FieldHardProblem     = "hard_problem"
	FieldImpactNumbers   = "impact_numbers"
)

// Default returns the default behavioural interview: greeting → intro →
// experience → closing, then Done. Its rubric asks for the candidate's
// current role, years of experience, why this role, a project they are
// proud of, a hard problem solved and impact in numbers; the interview may
// close once all are covered. Each call returns a new blueprint the
// caller may change.
func Default() *Blueprint {
	graceful := true
	return &Blueprint{
		Name:          DefaultName,
		Title:         "Behavioural interview",
		Description:   "A short conversational interview about the candidate's background and past work, for any role and level.",
		ClosingSafety: 60 * time.Second,
		Rubric:        defaultRubric(),
		Exit: ExitConditions{
			RequiredFieldsThreshold: DefaultRequiredFieldsThreshold,
			MaxTurns:                DefaultMaxTurns,
			GracefulClosing:         &graceful,
		},
		Stages: []Stage{greetingStage(), introStage(), experienceStage(), closingStage()},
	}
}

// defaultRubric is the Default blueprint's rubric: what the interview
// must find out.
func defaultRubric() []RubricField {
	return []RubricField{
		{ID: FieldCurrentRole, Label: "Current role", Required: true, Stage: "intro", Expect: ExpectRole,
			Question: "What is your current role, and what are you responsible for day to day?",
			Keywords: []string{"current role", "currently", "i work as", "i'm a", "i am a", "position", "title"}},
		{ID: FieldYearsExperience, Label: "Years of experience", Required: true, Stage: "intro", Expect: ExpectDuration,
			Question: "How many years have you been working in this field?",
			Keywords: []string{"years", "experience", "since", "career"}},
		{ID: FieldWhyRole, Label: "Why this role", Required: true, Stage: "intro",
			Question: "What draws you to this role in particular?",
			Keywords: []string{"because", "interested", "excited", "motivated", "drawn", "applied"}},
		{ID: FieldProudProject, Label: "A project they are proud of", Required: true, Stage: "experience",
			Question: "Which project from your career are you most proud of, and what was your own part in it?",
			Keywords: []string{"project", "proud", "built", "led", "shipped", "launched"}},
		{ID: FieldHardProblem, Label: "A hard problem solved", Required: true, Stage: "experience",
			Question: "What is the hardest problem you have solved at work, and how did you solve it?",
			Keywords: []string{"problem", "challenge", "hardest", "solved", "fixed", "root cause"}},
		{ID: FieldImpactNumbers, Label: "Impact in numbers", Required: true, Stage: "experience", Expect: ExpectNumber,
			Question: "Can you put a number on the impact of that work, such as users served, time saved or money earned?",
			Keywords: []string{"percent", "users", "customers", "reduced", "increased", "saved", "revenue", "faster"}},
	}
}

// greetingStage is the Default blueprint's greeting: a welcome, how the
// interview works, and a check that the candidate hears and is ready.
func greetingStage() Stage {
	return Stage{
		Name:  "greeting",
		Title: "Welcome",
		Instructions: `This is the greeting, the first moment of the interview.
Welcome {{.Name}} warmly and introduce yourself by name as the interviewer{{with .Role}} for the {{.}} role{{end}}.
In one or two sentences, explain how it works: a short introduction, then questions about their experience, then a moment at the end for their own questions.
Your one question here is whether they can hear you clearly and are ready to begin.
As soon as they confirm, call transition_stage. Do not ask about their background yet.`,
		Limit:           60 * time.Second,
		MinQuestions:    1,
		Acknowledgement: "Hello, and welcome.",
		Keywords:        []string{"ready", "hear", "yes", "good time"},
		Questions: []Question{
			{ID: "greeting-1", Text: "Thanks for joining me today. Before we begin, can you hear me clearly?",
				Purpose: "Check the audio works and open the conversation.", Keywords: []string{"yes", "hear", "clear"}},
			{ID: "greeting-2", Text: "Is now still a good time for you, and are you ready to get started?",
				Purpose: "Confirm the candidate is ready to begin.", Keywords: []string{"ready", "yes", "good time"}},
		},
	}
}

// introStage is the Default blueprint's introduction: background, current
// work and motivation.
func introStage() Stage {
	return Stage{
		Name:  "intro",
		Title: "Introduction",
		Instructions: `This is the introduction. Get to know {{.Name}}: their background, what they do now, and why they applied{{with .Role}} for the {{.}} role{{end}}.
Ask open questions, one at a time, and keep your own remarks brief.
{{- if .HasResume}}
You have a summary of their résumé. Mention one specific detail from it to show you have read it, but let them tell the story in their own words.
{{- end}}
{{- if .HasJobDescription}}
Where it fits naturally, connect what they say to the job description.
{{- end}}
Ask at least two questions here. When you have a clear picture of who they are and what motivates them, call transition_stage.`,
		Limit:           120 * time.Second,
		MinTime:         30 * time.Second,
		MinQuestions:    2,
		Acknowledgement: "Great, let's get started.",
		Guided:          true,
		Keywords:        []string{"background", "current role", "experience", "motivation", "interest", "career", "goals", "team"},
		Questions: []Question{
			{ID: "intro-1", Text: "To start, could you tell me a little about yourself and what you do today?",
				Purpose: "Learn the candidate's background and current responsibilities.", Keywords: []string{"current role", "background", "responsibilities", "team"},
				Context: QuestionContext{Targets: Targets{Field: FieldCurrentRole}}},
			{ID: "intro-2", Text: "What made you interested in applying for this position?",
				Purpose: "Understand the candidate's motivation for the role.", Keywords: []string{"motivation", "interest", "company", "role", "growth"},
				Context: QuestionContext{Targets: Targets{Field: FieldWhyRole}}},
			{ID: "intro-3", Text: "How did you first get into your field, and what has your path looked like since then?",
				Purpose: "Trace the candidate's career path and key transitions.", Keywords: []string{"career path", "education", "first job", "change"}},
			{ID: "intro-4", Text: "Which part of your current work do you enjoy the most?",
				Purpose: "Find what energises the candidate and where their strengths lie.", Keywords: []string{"enjoy", "strengths", "interest"}},
			{ID: "intro-5", Text: "Where would you like your career to go over the next few years?",
				Purpose: "Check the candidate's goals against what the role offers.", Keywords: []string{"goals", "growth", "learning", "future"}},
			{ID: "intro-6", Text: "What kind of team or working environment helps you do your best work?",
				Purpose: "Understand how the candidate likes to work with others.", Keywords: []string{"team", "culture", "environment", "collaboration"}},
		},
	}
}

// experienceStage is the Default blueprint's main part: specific
// situations from past work.
func experienceStage() Stage {
	return Stage{
		Name:  "experience",
		Title: "Your experience",
		Instructions: `This is the main part of the interview: {{.Name}}'s experience.
Ask about specific situations from their past work, one at a time: what the situation was, what they personally did, and what the result was.
When an answer stays general, ask one follow-up for a concrete example, a number or a decision they made, then move on.
Use the role focus and level expectations in your brief to choose topics and to judge the depth of the answers.
{{- if .HasJobDescription}}
Favour topics the job description cares about, and check the skills it asks for.
{{- end}}
{{- if .HasResume}}
Dig into the projects on their résumé rather than asking hypothetical questions.
{{- end}}
Cover at least five different topics and never ask twice about the same thing. Call assess_response after each answer.
When you have covered enough ground, or time is running low, call transition_stage.`,
		Limit:           240 * time.Second,
		MinTime:         45 * time.Second,
		MinQuestions:    5,
		Acknowledgement: "Thank you, that's a helpful picture. Now let's talk about your experience in more depth.",
		Guided:          true,
		Keywords:        []string{"project", "challenge", "result", "impact", "decision", "trade-off", "team", "learned", "feedback", "priority", "example"},
		Questions: []Question{
			{ID: "experience-1", Text: "Tell me about a recent project you're proud of. What was your own part in it?",
				Purpose: "Establish a concrete project and the candidate's personal contribution.", Keywords: []string{"project", "role", "ownership", "result", "impact"},
				Context: QuestionContext{Targets: Targets{Field: FieldProudProject}}},
			{ID: "experience-2", Text: "What was the hardest problem you ran into on that project, and how did you solve it?",
				Purpose: "Probe problem solving on a real example.", Keywords: []string{"challenge", "problem", "solution", "approach", "root cause"},
				Context: QuestionContext{Targets: Targets{Field: FieldHardProblem}}},
			{ID: "experience-3", Text: "Describe a time you disagreed with a colleague about how to do something. How was it resolved?",
				Purpose: "See how the candidate handles conflict and persuades others.", Keywords: []string{"disagreement", "conflict", "compromise", "communication", "outcome"}},
			{ID: "experience-4", Text: "When several urgent tasks land at once, how do you decide what to handle first?",
				Purpose: "Understand how the candidate prioritises under pressure.", Keywords: []string{"priorities", "deadlines", "trade-off", "urgency", "impact"}},
			{ID: "experience-5", Text: "Can you walk me through a mistake you made at work and what you changed afterwards?",
				Purpose: "Check ownership of failures and learning from them.", Keywords: []string{"mistake", "failure", "lesson", "learned", "improvement"}},
			{ID: "experience-6", Text: "How do you check that your work is really good before you call it finished?",
				Purpose: "Learn the candidate's quality standards and habits.", Keywords: []string{"quality", "testing", "review", "feedback", "standards"}},
			{ID: "experience-7", Text: "Tell me about a time plans changed suddenly. How did you keep everyone informed?",
				Purpose: "Assess adaptability and communication with stakeholders.", Keywords: []string{"change", "communication", "stakeholders", "adapt", "update"}},
			{ID: "experience-8", Text: "What is something you had to learn quickly for a job, and how did you go about it?",
				Purpose: "Gauge how the candidate learns new skills.", Keywords: []string{"learning", "new skill", "resources", "practice"}},
			{ID: "experience-9", Text: "What's the most useful piece of feedback you've received, and what did you do with it?",
				Purpose: "See whether the candidate seeks and acts on feedback.", Keywords: []string{"feedback", "growth", "change", "self-awareness"}},
			{ID: "experience-10", Text: "Thinking about this role, which skills would you bring from day one, and where would you want support?",
				Purpose: "Let the candidate map their strengths and gaps to the role.", Keywords: []string{"strengths", "skills", "gaps", "support", "fit"}},
		},
	}
}

// closingStage is the Default blueprint's closing: thanks, the candidate's
// questions and what happens next.
func closingStage() Stage {
	return Stage{
		Name:  "closing",
		Title: "Closing",
		Instructions: `This is the closing. Ask no more interview questions and do not call ask_question.
Thank {{.Name}} for their time, mention one thing from the conversation you appreciated, and ask whether they have any questions for you about the role or the next steps.
Answer their questions only from the job description; when it does not say, tell them honestly that the hiring team will follow up. Never invent details about the company, the team, pay or the process.
When they have no more questions, tell them what happens next (the hiring team will review the interview and get back to them) and say goodbye warmly. The interview ends when you finish that goodbye.`,
		Limit:           90 * time.Second,
		MinQuestions:    0,
		Acknowledgement: "Thank you. That brings us to the end of our questions, so let's wrap up.",
		Keywords:        []string{"thanks", "next steps", "goodbye"},
	}
}

//go:embed blueprints/*.yaml
var blueprintFiles embed.FS

// Names of the built-in blueprints read from YAML.
const (
	SystemDesignName     = "system-design"
	KnowledgeCaptureName = "knowledge-capture"
)

// The embedded blueprints, each parsed once.
var (
	systemDesign     = sync.OnceValues(func() (*Blueprint, error) { return loadEmbedded(SystemDesignName) })
	knowledgeCapture = sync.OnceValues(func() (*Blueprint, error) { return loadEmbedded(KnowledgeCaptureName) })
)

func loadEmbedded(name string) (*Blueprint, error) {
	path := "blueprints/" + name + ".yaml"
	data, err := blueprintFiles.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("stages: built-in blueprint %q: %w", name, err)
	}
	return Parse(data, path)
}

// SystemDesign returns the system-design interview: greeting, problem
// clarification, requirements, data design, API design, high-level design
// and closing. It is read from the embedded file
// stages/blueprints/system-design.yaml, which also documents the YAML
// format by example. Each call returns a new copy. It panics only if that
// shipped file is invalid, which the package tests rule out.
func SystemDesign() *Blueprint {
	b, err := systemDesign()
	if err != nil {
		panic(err)
	}
	return b.Clone()
}

// builtins maps each built-in blueprint's name to its constructor.
var builtins = map[string]func() (*Blueprint, error){
	DefaultName: func() (*Blueprint, error) { return Default(), nil },
	SystemDesignName: func() (*Blueprint, error) {
		b, err := systemDesign()
		return b.Clone(), err
	},
	KnowledgeCaptureName: func() (*Blueprint, error) {
		b, err := knowledgeCapture()
		return b.Clone(), err
	},
}

// BuiltinNames returns the names of the blueprints shipped with viva,
// sorted.
func BuiltinNames() []string {
	names := make([]string, 0, len(builtins))
	for n := range builtins {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Builtin returns a fresh copy of the built-in blueprint called name (case
// and surrounding spaces ignored); the caller may change it freely. An
// unknown name is an error listing the known ones.
func Builtin(name string) (*Blueprint, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	mk, ok := builtins[n]
	if !ok {
		return nil, fmt.Errorf("stages: no built-in blueprint %q; use one of %s", name, strings.Join(BuiltinNames(), ", "))
	}
	return mk()
}

// IsBuiltin reports whether name is one of BuiltinNames.
func IsBuiltin(name string) bool {
	return slices.Contains(BuiltinNames(), strings.ToLower(strings.TrimSpace(name)))
}
