package interviews

import (
	"time"

	"github.com/viva-interviews/viva/stages"
)

// Preview is what an admin reads of a design before any candidate meets
// it: for a blueprint its stages with their timings and questions, its
// rubric and what the candidate is shown; for a role template its
// categories and questions. viva designs show prints it and the web app's
// design pages render it.
type Preview struct {
	// Kind, Name and Version identify the design.
	Kind    DesignKind
	Name    string
	Version string
	// Title and Description are the design's own words.
	Title, Description string
	// Stages are a blueprint's stages in order.
	Stages []StagePreview
	// Length is the blueprint's planned length: the sum of its limits.
	Length time.Duration
	// Rubric lists what the interview must find out.
	Rubric []stages.RubricField
	// Competencies are what the report scores; empty for the defaults.
	Competencies []string
	// Feedback and FeedbackScores say whether the candidate gets a
	// feedback page at the end, and sees its scores.
	Feedback, FeedbackScores bool
	// NoTemplate is empty when a role template can be asked in the
	// blueprint, else why not.
	NoTemplate string
	// Categories are a role template's categories, in order.
	Categories []CategoryPreview
}

// StagePreview is one stage of a blueprint's preview.
type StagePreview struct {
	// Name is the stage id; Title what the candidate's room shows.
	Name, Title string
	// Limit is the stage's deadline; MinTime and MinQuestions its gates.
	Limit, MinTime time.Duration
	MinQuestions   int
	// Guided stages also ask the role template's questions.
	Guided bool
	// Questions are the stage's bank, as written.
	Questions []string
	// Acknowledgement is what the interviewer says entering the stage
	// (empty: a built-in sentence naming the title).
	Acknowledgement string
}

// CategoryPreview is one category of a role template.
type CategoryPreview struct {
	// Name is the category's heading.
	Name string
	// Questions are its questions with what they assess and expect.
	Questions []stages.Question
}

// PreviewBlueprint describes bp.
func PreviewBlueprint(bp *stages.Blueprint, version string) Preview {
	p := Preview{Kind: KindBlueprint, Name: bp.Name, Version: version, Title: bp.Title, Description: bp.Description,
		Length: PlannedLength(bp, 1), Rubric: bp.Rubric, Competencies: bp.Competencies,
		Feedback: bp.CandidateFeedback, FeedbackScores: bp.FeedbackScores}
	if err := bp.TakesTemplate(); err != nil {
		p.NoTemplate = err.Error()
	}
	for _, st := range bp.Stages {
		sp := StagePreview{Name: st.Name, Title: st.Title, Limit: st.Limit, MinTime: st.MinTime, MinQuestions: st.MinQuestions,
			Guided: st.Guided, Acknowledgement: st.Acknowledgement}
		if sp.Title == "" {
			sp.Title = st.Name
		}
		for _, q := range st.Questions {
			sp.Questions = append(sp.Questions, q.Text)
		}
		p.Stages = append(p.Stages, sp)
	}
	return p
}

// PreviewTemplate describes t.
func PreviewTemplate(t *stages.Template, version string) Preview {
	p := Preview{Kind: KindTemplate, Name: t.Name, Version: version, Title: t.Title}
	for _, name := range t.Categories() {
		c := CategoryPreview{Name: name}
		for _, q := range t.Questions {
			if q.Context.Targets.Category == name {
				c.Questions = append(c.Questions, q)
			}
		}
		p.Categories = append(p.Categories, c)
	}
	return p
}

// PreviewDesign parses d and describes it; the error is the parse's, with
// line numbers.
func PreviewDesign(d *Design) (Preview, error) {
	if d.Kind == KindTemplate {
		t, err := d.Template()
		if err != nil {
			return Preview{}, err
		}
		return PreviewTemplate(t, d.Version), nil
	}
	var bp *stages.Blueprint
	var err error
	if d.Builtin() {
		bp, err = stages.Builtin(d.Name)
	} else {
		bp, err = d.Blueprint()
	}
	if err != nil {
		return Preview{}, err
	}
	return PreviewBlueprint(bp, d.Version), nil
}
