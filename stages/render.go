package stages

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"text/template"
	"unicode"
	"unicode/utf8"

	"github.com/viva-interviews/viva/interviews/lang"
)

// TemplateData is what instruction, persona, acknowledgement and question
// templates see. Templates use its fields directly: {{.Name}},
// {{if .JobDescription}}…{{end}}, {{.RoleFocus}}.
type TemplateData struct {
	// Name is the candidate's name as it may be spoken (SpokenName), or
	// "the candidate" when nothing speakable was given.
	Name string
	// Role is the role applied for, as registered ("Backend engineer").
	Role string
	// Level is the seniority level, normalised when it is one of Levels.
	Level string
	// JobDescription is the job description text, empty when none.
	JobDescription string
	// ResumeSummary is the résumé summary, empty when none.
	ResumeSummary string
	// RoleFocus says what to explore for this role (see RoleFocus).
	RoleFocus string
	// LevelExpectations says what to expect at this level (see
	// LevelExpectations).
	LevelExpectations string
	// HasJobDescription is true when JobDescription is not empty.
	HasJobDescription bool
	// HasResume is true when ResumeSummary is not empty.
	HasResume bool
	// Problem is what the interview's design problem is about, to fit in
	// a sentence ("an online ticketing service"); ProblemStatement is how
	// it is presented and ProblemDetails the facts that answer clarifying
	// questions. All are empty for a blueprint without problems.
	Problem, ProblemStatement, ProblemDetails string
}

// NewTemplateData builds the template view of a profile: the name reduced
// to plain words (SpokenName), values trimmed, the level normalised when
// valid, and the role focus and level expectations filled in.
func NewTemplateData(p Profile) TemplateData {
	d := TemplateData{
		Name:           SpokenName(p.Name),
		Role:           strings.TrimSpace(p.Role),
		Level:          strings.TrimSpace(p.Level),
		JobDescription: strings.TrimSpace(p.JobDescription),
		ResumeSummary:  strings.TrimSpace(p.ResumeSummary),
	}
	if d.Name == "" {
		d.Name = "the candidate"
	}
	if l, err := NormalizeLevel(d.Level); err == nil {
		d.Level = l
	}
	d.RoleFocus = RoleFocus(d.Role)
	d.LevelExpectations = LevelExpectations(d.Level)
	d.HasJobDescription = d.JobDescription != ""
	d.HasResume = d.ResumeSummary != ""
	d.Problem, d.ProblemStatement, d.ProblemDetails = p.Problem.Title, strings.TrimSpace(p.Problem.Statement), strings.TrimSpace(p.Problem.Details)
	return d
}

// DefaultPersona is the interviewer's system-prompt preamble used when a
// blueprint's Persona is empty. It sets the voice-interview manners every
// stage relies on: short spoken sentences, one question at a time, no
// formatting, and the interview tools.
const DefaultPersona = `You are Ava, a warm, professional interviewer conducting an interview with {{.Name}}{{with .Role}} for the {{.}} role{{end}}{{with .Level}}, at {{.}} level{{end}}.
This is a live voice conversation: everything you write is spoken aloud.
Speak in short, natural sentences, one or two at a time. Ask exactly one question per turn, then stop and listen.
Never use markdown, bullet points, numbered lists, headings, emojis or code; they cannot be spoken.
Be encouraging but neutral: do not tell the candidate whether an answer was right, and do not coach them.
If an answer is vague, ask one short follow-up for a concrete example before moving on.

{{.RoleFocus}}
{{.LevelExpectations}}
{{- if .HasJobDescription}}

Job description, for your reference only (do not read it out):
{{.JobDescription}}
{{- end}}
{{- if .HasResume}}

Résumé summary, for your reference only (do not read it out):
{{.ResumeSummary}}
{{- end}}`

// render parses and executes a template with the profile's data. name is
// used in parse errors ("template: stages[1].instructions:3: …").
func render(name, text string, p Profile) (string, error) {
	t, err := parseTemplate(name, text)
	if err != nil {
		return "", err
	}
	return execute(t, p)
}

func parseTemplate(name, text string) (*template.Template, error) {
	return template.New(name).Option("missingkey=error").Parse(text)
}

func execute(t *template.Template, p Profile) (string, error) {
	var buf bytes.Buffer
	if err := t.Execute(&buf, NewTemplateData(p)); err != nil {
		return "", err
	}
	return tidy(buf.String()), nil
}

var manyBlankLines = regexp.MustCompile(`\n{3,}`)

// tidy removes trailing spaces on every line, collapses runs of blank lines
// left by conditional sections and trims the result.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(l, unicode.IsSpace)
	}
	return strings.TrimSpace(manyBlankLines.ReplaceAllString(strings.Join(lines, "\n"), "\n\n"))
}

// Instructions renders the instructions of the stage called stage for the
// candidate p, ready for the stage part of the system prompt.
func (b *Blueprint) Instructions(stage string, p Profile) (string, error) {
	i := b.Index(stage)
	if i < 0 {
		return "", fmt.Errorf("stages: instructions: blueprint %q has no stage %q", b.Name, stage)
	}
	out, err := render(fmt.Sprintf("stages[%d].instructions", i), b.Stages[i].Instructions, p)
	if err != nil {
		return "", fmt.Errorf("stages: instructions of stage %q: %w", stage, err)
	}
	return out, nil
}

// PersonaPrompt renders the interviewer persona for the candidate p: the
// blueprint's Persona, or DefaultPersona when it is empty.
func (b *Blueprint) PersonaPrompt(p Profile) (string, error) {
	persona := b.Persona
	if strings.TrimSpace(persona) == "" {
		persona = DefaultPersona
	}
	out, err := render("persona", persona, p)
	if err != nil {
		return "", fmt.Errorf("stages: persona of blueprint %q: %w", b.Name, err)
	}
	return out, nil
}

// AcknowledgementFor returns the sentence spoken once when the interview
// enters stage: the stage's Acknowledgement rendered for p, or a built-in
// sentence naming the stage's Title ("Thank you. Let's move on to your
// experience."). The last stage's built-in sentence wraps the interview up
// instead. An interview held in another language than the blueprint's
// (p.Language) says the catalogue's sentence for entering the first, a
// following or the last stage in its own language instead. It returns ""
// for Done and for names that are not stages. A template that fails to
// render (Validate rejects those) falls back to the built-in sentence,
// because something must be said.
func (b *Blueprint) AcknowledgementFor(stage string, p Profile) string {
	s, i, ok := b.Stage(stage)
	if !ok {
		return ""
	}
	if p.Language != "" && lang.Base(p.Language) != lang.Base(b.Language) {
		switch {
		case b.IsLast(stage):
			return lang.Text(p.Language, lang.AckLast)
		case i == 0:
			return lang.Text(p.Language, lang.AckFirst)
		}
		return lang.Text(p.Language, lang.AckNext)
	}
	if strings.TrimSpace(s.Acknowledgement) != "" {
		if out, err := render("acknowledgement", s.Acknowledgement, p); err == nil && out != "" {
			return out
		}
	}
	if b.IsLast(stage) {
		return lang.Text(b.Language, lang.AckLast)
	}
	return "Thank you. Let's move on to " + lowerFirst(stageTitle(s)) + "."
}

// InLanguage is the language an interview of this blueprint is held in
// when the registration chose none: the blueprint's, or English.
func (b *Blueprint) InLanguage() string {
	if b.Language == "" {
		return lang.Default
	}
	return b.Language
}

// SkipNotice returns the one sentence said when the interview moves past
// stages it promised but never entered, naming them by title in the
// interview's language ("We've covered what we needed, so we'll skip the
// remaining part on your experience."), so no stage is closed silently;
// without the titles when the interview is held in another language than
// the blueprint's; "" when none is skipped or a name is not a stage.
func (b *Blueprint) SkipNotice(skipped []string, p Profile) string {
	var titles []string
	for _, name := range skipped {
		if s, _, ok := b.Stage(name); ok {
			titles = append(titles, lowerFirst(stageTitle(s)))
		}
	}
	tag := b.InLanguage()
	if p.Language != "" && lang.Base(p.Language) != lang.Base(tag) {
		if len(titles) == 0 {
			return ""
		}
		return lang.Text(p.Language, lang.SkipRest)
	}
	switch len(titles) {
	case 0:
		return ""
	case 1:
		return lang.Textf(tag, lang.SkipOnef, titles[0])
	}
	list := strings.Join(titles[:len(titles)-1], ", ") + " " + lang.Text(tag, lang.And) + " " + titles[len(titles)-1]
	return lang.Textf(tag, lang.SkipManyf, list)
}

// Render renders the question's text for the candidate p (question texts may
// use the same fields as instructions).
func (q Question) Render(p Profile) (string, error) {
	out, err := render("question "+q.ID, q.Text, p)
	if err != nil {
		return "", fmt.Errorf("stages: question %q: %w", q.ID, err)
	}
	return out, nil
}

// stageTitle is the stage's Title, or its name made readable when the title
// is empty.
func stageTitle(s Stage) string {
	if t := strings.TrimSpace(s.Title); t != "" {
		return t
	}
	return titleFromName(s.Name)
}

// titleFromName turns a stage or blueprint name into a title:
// "problem-clarification" becomes "Problem clarification".
func titleFromName(name string) string {
	t := strings.Join(strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' || unicode.IsSpace(r) }), " ")
	r, n := utf8.DecodeRuneInString(t)
	if n == 0 {
		return ""
	}
	return string(unicode.ToUpper(r)) + t[n:]
}

// lowerFirst lower-cases the first letter of a title for use inside a
// sentence, leaving acronyms alone ("API design" stays, "Your experience"
// becomes "your experience").
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	if r2, _ := utf8.DecodeRuneInString(s[n:]); unicode.IsUpper(r2) {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}
