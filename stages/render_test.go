package stages

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews/lang"
)

var (
	fullProfile = Profile{
		Name: "Jo Park", Role: "Senior Data Engineer", Level: " Senior ",
		JobDescription: "Own the streaming ingestion platform.",
		ResumeSummary:  "Built Kafka pipelines at a retailer.",
	}
	bareProfile = Profile{Name: "Jo Park", Role: "Backend engineer", Level: "mid"}
)

func TestInstructionsWithAndWithoutOptionalFields(t *testing.T) {
	tests := []struct {
		blueprint string
		stage     string
		p         Profile
		contains  []string
		absent    []string
	}{
		{"default", "intro", fullProfile,
			[]string{"Get to know Jo Park", "for the Senior Data Engineer role", "summary of their résumé", "job description"},
			[]string{"{{", "<no value>"}},
		{"default", "intro", bareProfile,
			[]string{"Get to know Jo Park", "for the Backend engineer role"},
			[]string{"résumé", "job description", "{{"}},
		{"default", "intro", Profile{},
			[]string{"Get to know the candidate: their background, what they do now, and why they applied."},
			[]string{"role", "résumé"}},
		{"default", "experience", fullProfile,
			[]string{"Jo Park's experience", "Favour topics the job description cares about", "projects on their résumé"},
			nil},
		{"default", "experience", bareProfile,
			[]string{"Jo Park's experience"},
			[]string{"job description", "résumé"}},
		{"system-design", "clarification", Profile{Name: "Al", Level: "junior"},
			[]string{"invite Al to ask clarifying questions", "If they do not know where to start"}, nil},
		{"system-design", "clarification", Profile{Name: "Al", Level: "staff"},
			[]string{"invite Al"}, []string{"If they do not know where to start"}},
		{"system-design", "requirements", Profile{Name: "Al", Level: "Staff"},
			[]string{"which requirements conflict"}, nil},
		{"system-design", "high-level-design", Profile{Name: "Al", Level: "entry"},
			[]string{LevelExpectations("entry")}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.blueprint+"/"+tc.stage, func(t *testing.T) {
			b, err := Builtin(tc.blueprint)
			if err != nil {
				t.Fatal(err)
			}
			got, err := b.Instructions(tc.stage, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			checkText(t, "instructions", got, tc.contains, tc.absent)
		})
	}
}

func TestPersonaPrompt(t *testing.T) {
	tests := []struct {
		name     string
		persona  string
		p        Profile
		contains []string
		absent   []string
	}{
		{"default with everything", "", fullProfile,
			[]string{
				"You are Ava, a warm, professional interviewer conducting an interview with Jo Park for the Senior Data Engineer role, at senior level.",
				RoleFocus("data"), LevelExpectations("senior"),
				"Job description, for your reference only", fullProfile.JobDescription,
				"Résumé summary, for your reference only", fullProfile.ResumeSummary,
				"one question",
			},
			// How to use the tools is said once, by the conductor, for the
			// tools the stage offers.
			[]string{"ask_question", "transition_stage"}},
		{"default without job description or résumé", "", bareProfile,
			[]string{"interview with Jo Park for the Backend engineer role, at mid level.", RoleFocus("backend")},
			[]string{"Job description", "Résumé", "\n\n\n"}},
		{"default with nothing", "", Profile{},
			[]string{"conducting an interview with the candidate.", RoleFocus(""), LevelExpectations("")},
			[]string{"role,", "level."}},
		{"custom", "You are Max, interviewing {{.Name}}{{if .HasResume}} (résumé on file){{end}}.", fullProfile,
			[]string{"You are Max, interviewing Jo Park (résumé on file)."}, []string{"Ava"}},
		{"custom without résumé", "You are Max, interviewing {{.Name}}{{if .HasResume}} (résumé on file){{end}}.", bareProfile,
			[]string{"You are Max, interviewing Jo Park."}, []string{"résumé"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := Default()
			b.Persona = tc.persona
			got, err := b.PersonaPrompt(tc.p)
			if err != nil {
				t.Fatal(err)
			}
			checkText(t, "persona", got, tc.contains, tc.absent)
		})
	}
}

// checkText fails the test unless text, described by what, holds every
// string of contains and none of absent.
func checkText(t *testing.T, what, text string, contains, absent []string) {
	t.Helper()
	for _, s := range contains {
		if !strings.Contains(text, s) {
			t.Errorf("%s: missing %q in:\n%s", what, s, text)
		}
	}
	for _, s := range absent {
		if strings.Contains(text, s) {
			t.Errorf("%s: unwanted %q in:\n%s", what, s, text)
		}
	}
}

// markdown matches what a speech engine would read out literally.
var markdown = regexp.MustCompile("(?m)^\\s*([-*#>]|\\d+\\.)\\s|\\*\\*|`|__")

func TestPromptsAreSpeakable(t *testing.T) {
	for _, name := range BuiltinNames() {
		b, _ := Builtin(name)
		for _, p := range []Profile{fullProfile, bareProfile} {
			texts := map[string]string{}
			persona, err := b.PersonaPrompt(p)
			if err != nil {
				t.Fatal(err)
			}
			texts["persona"] = persona
			for _, s := range b.Stages {
				ins, err := b.Instructions(s.Name, p)
				if err != nil {
					t.Fatal(err)
				}
				texts[s.Name+" instructions"] = ins
				texts[s.Name+" acknowledgement"] = b.AcknowledgementFor(s.Name, p)
				for _, q := range s.Questions {
					txt, err := q.Render(p)
					if err != nil {
						t.Fatal(err)
					}
					texts[q.ID] = txt
				}
			}
			for what, txt := range texts {
				if txt == "" || markdown.MatchString(txt) || strings.Contains(txt, "{{") || strings.Contains(txt, "<no value>") {
					t.Errorf("%s %s is empty or not speakable:\n%s", name, what, txt)
				}
			}
		}
	}
}

func TestInstructionsErrors(t *testing.T) {
	b := Default()
	if _, err := b.Instructions(Done, bareProfile); err == nil || !strings.Contains(err.Error(), `no stage "done"`) {
		t.Errorf("Instructions(done) error = %v", err)
	}
	if _, err := b.Instructions("nope", bareProfile); err == nil || !strings.Contains(err.Error(), `blueprint "default" has no stage "nope"`) {
		t.Errorf("Instructions(nope) error = %v", err)
	}
	b.Stages[1].Instructions = "{{.Missing}}"
	if _, err := b.Instructions("intro", bareProfile); err == nil || !strings.Contains(err.Error(), `instructions of stage "intro"`) {
		t.Errorf("broken template error = %v", err)
	}
	b.Persona = "{{"
	if _, err := b.PersonaPrompt(bareProfile); err == nil || !strings.Contains(err.Error(), `persona of blueprint "default"`) {
		t.Errorf("broken persona error = %v", err)
	}
}

func TestAcknowledgementFor(t *testing.T) {
	b := &Blueprint{Name: "ack", Stages: []Stage{
		{Name: "greeting", Limit: time.Minute},
		{Name: "experience", Title: "Your experience", Limit: time.Minute},
		{Name: "api", Title: "API design", Limit: time.Minute},
		{Name: "high-level-design", Limit: time.Minute},
		{Name: "custom", Limit: time.Minute, Acknowledgement: "Thanks, {{.Name}}. On to the next part."},
		{Name: "broken", Title: "Broken part", Limit: time.Minute, Acknowledgement: "{{.Oops}}"},
		{Name: "wrap", Title: "Closing", Limit: time.Minute},
	}}
	tests := []struct {
		stage, want string
	}{
		{"experience", "Thank you. Let's move on to your experience."},
		{"api", "Thank you. Let's move on to API design."},
		{"high-level-design", "Thank you. Let's move on to high level design."},
		{"custom", "Thanks, Jo Park. On to the next part."},
		{"broken", "Thank you. Let's move on to broken part."},
		{"wrap", "Thank you. That brings us to the end of the interview, so let's wrap up."},
		{Done, ""},
		{"missing", ""},
	}
	for _, tc := range tests {
		t.Run(tc.stage, func(t *testing.T) {
			if got := b.AcknowledgementFor(tc.stage, bareProfile); got != tc.want {
				t.Errorf("AcknowledgementFor(%q) = %q; want %q", tc.stage, got, tc.want)
			}
		})
	}
	d := Default()
	acks := map[string]bool{}
	for _, s := range d.Stages {
		a := d.AcknowledgementFor(s.Name, bareProfile)
		if a != s.Acknowledgement || acks[a] {
			t.Errorf("default %s acknowledgement %q; want its own distinct sentence", s.Name, a)
		}
		acks[a] = true
	}
}

func TestNewTemplateData(t *testing.T) {
	tests := []struct {
		name string
		p    Profile
		want TemplateData
	}{
		{"full", fullProfile, TemplateData{
			Name: "Jo Park", Role: "Senior Data Engineer", Level: "senior",
			JobDescription: fullProfile.JobDescription, ResumeSummary: fullProfile.ResumeSummary,
			RoleFocus: RoleFocus("data"), LevelExpectations: LevelExpectations("senior"),
			HasJobDescription: true, HasResume: true,
		}},
		{"blank optional text", Profile{Name: "  ", Role: "QA", Level: "wizard", JobDescription: " \n ", ResumeSummary: "\t"}, TemplateData{
			Name: "the candidate", Role: "QA", Level: "wizard",
			RoleFocus: RoleFocus("qa"), LevelExpectations: LevelExpectations(""),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := NewTemplateData(tc.p); got != tc.want {
				t.Errorf("NewTemplateData = %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestQuestionRender(t *testing.T) {
	q := Question{ID: "q1", Text: "What drew you to the {{.Role}} role, {{.Name}}?"}
	got, err := q.Render(bareProfile)
	if err != nil || got != "What drew you to the Backend engineer role, Jo Park?" {
		t.Errorf("Render = %q, %v", got, err)
	}
	if _, err := (Question{ID: "q2", Text: "{{.Nope}}"}).Render(bareProfile); err == nil || !strings.Contains(err.Error(), `question "q2"`) {
		t.Errorf("Render of a broken question error = %v", err)
	}
}

// An interview held in another language than its blueprint's says the
// catalogue's acknowledgements in its own language, not the blueprint's
// English ones; in the blueprint's language it says the blueprint's.
func TestAcknowledgementInTheInterviewsLanguage(t *testing.T) {
	b := Default()
	first, middle, last := b.Stages[0].Name, b.Stages[1].Name, b.Stages[len(b.Stages)-1].Name
	es := Profile{Name: "Ana", Language: "es-MX"}
	for stage, want := range map[string]string{
		first:  "Hola, y bienvenido.",
		middle: "Gracias. Pasemos a la siguiente parte de la entrevista.",
		last:   "Gracias. Con esto llegamos al final de la entrevista, así que vamos a concluir.",
	} {
		if got := b.AcknowledgementFor(stage, es); got != want {
			t.Errorf("AcknowledgementFor(%s) in Spanish = %q, want %q", stage, got, want)
		}
	}
	if got, want := b.AcknowledgementFor(first, Profile{Name: "Ana", Language: "en"}), b.AcknowledgementFor(first, Profile{Name: "Ana"}); got != want || got == "" {
		t.Errorf("in English AcknowledgementFor(%s) = %q, want the blueprint's %q", first, got, want)
	}
	b.Language = "es"
	b.Stages[1].Acknowledgement = "Muy bien, hablemos de su experiencia."
	if got := b.AcknowledgementFor(middle, es); got != "Muy bien, hablemos de su experiencia." {
		t.Errorf("a Spanish blueprint's own acknowledgement in a Spanish interview: got %q", got)
	}
}

func TestBlueprintLanguageField(t *testing.T) {
	y := func(language string) []byte {
		return []byte("name: es-test\nlanguage: " + language + "\nstages:\n  - name: greeting\n    instructions: Saluda.\n    limit: 60\n")
	}
	b, err := Parse(y("es-mx"), "es.yaml")
	if err != nil {
		t.Fatalf("a blueprint in Spanish: %v", err)
	}
	if b.Language != "es-mx" || lang.Base(b.InLanguage()) != "es" {
		t.Errorf("language = %q, InLanguage = %q", b.Language, b.InLanguage())
	}
	_, err = Parse(y("klingon"), "es.yaml")
	if err == nil || !strings.Contains(err.Error(), "language") || !strings.Contains(err.Error(), "es.yaml:2: language:") {
		t.Errorf("an unknown language: err = %v, want a line-numbered language error", err)
	}
}

// TestSkipNotice: the sentence names every stage skipped by its title, and
// nothing is said when none is.
func TestSkipNotice(t *testing.T) {
	bp := Default()
	if got := bp.SkipNotice(nil, Profile{}); got != "" {
		t.Errorf("SkipNotice(nil) = %q, want empty", got)
	}
	if got, want := bp.SkipNotice([]string{"experience"}, Profile{}), "We've covered what we needed, so we'll skip the remaining part on your experience."; got != want {
		t.Errorf("one stage: %q, want %q", got, want)
	}
	if got, want := bp.SkipNotice([]string{"intro", "experience", "nope"}, Profile{}), "We've covered what we needed, so we'll skip the remaining parts on introduction and your experience."; got != want {
		t.Errorf("two stages: %q, want %q", got, want)
	}
	if got, want := bp.SkipNotice([]string{"experience"}, Profile{Language: "es"}), "Ya hemos cubierto lo necesario, así que omitiremos las partes restantes."; got != want {
		t.Errorf("in Spanish on an English blueprint: %q, want %q", got, want)
	}
}
