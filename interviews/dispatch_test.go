package interviews

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/stages"
)

func TestParseDispatch(t *testing.T) {
	ada := &Candidate{Name: "Ada Lovelace", Email: "ada@example.com", Role: "Backend engineer", Level: "senior"}
	tests := []struct {
		name string
		meta string
		want Dispatch
		err  string // part of the error; empty: valid
	}{
		{"interview id", `{"interview_id":"abc123"}`, Dispatch{InterviewID: "abc123"}, ""},
		{"interview id with spaces", `  {"interview_id": "abc123"}` + "\n", Dispatch{InterviewID: "abc123"}, ""},
		{"candidate", `{"name":"Ada Lovelace","email":"ada@example.com","role":"Backend engineer","level":"senior"}`, Dispatch{Candidate: ada}, ""},
		{"candidate normalised", `{"name":" Ada\n Lovelace ","email":"ada@example.com","role":"Backend engineer","level":"Senior ","blueprint":" system-design "}`,
			Dispatch{Candidate: ada, Blueprint: "system-design"}, ""},
		{"empty", ``, Dispatch{}, "dispatch metadata is empty"},
		{"blank", " \n", Dispatch{}, "dispatch metadata is empty"},
		{"empty object", `{}`, Dispatch{}, "names no interview"},
		{"not JSON", `interview abc`, Dispatch{}, "is not valid"},
		{"array", `["abc"]`, Dispatch{}, "is not valid"},
		{"unknown field", `{"interview_id":"abc","room":"x"}`, Dispatch{}, `unknown field "room"`},
		{"misspelt field", `{"interviewid":"abc"}`, Dispatch{}, `unknown field "interviewid"`},
		{"wrong type", `{"interview_id":5}`, Dispatch{}, "is not valid"},
		{"trailing garbage", `{"name":"x"}garbage`, Dispatch{}, "more after its JSON object"},
		{"two objects", `{"interview_id":"abc"} {"interview_id":"def"}`, Dispatch{}, "more after its JSON object"},
		{"truncated", `{"interview_id":"abc"`, Dispatch{}, "is not valid"},
		{"oversize", `{"name":"` + strings.Repeat("a", MaxDispatchBytes) + `"}`, Dispatch{}, "more than 4096"},
		{"invalid id", `{"interview_id":"../etc/passwd"}`, Dispatch{}, "not a valid id"},
		{"id and candidate", `{"interview_id":"abc","name":"Ada","role":"x"}`, Dispatch{}, "send one or the other"},
		{"id and candidate", `{"interview_id":"abc","name":"Ada","role":"x"}`, Dispatch{}, "send one or the other"},
		{"id and its designs", `{"interview_id":"abc","blueprint":"backend","blueprint_version":"0123456789abcdef","template":"sre","template_version":"builtin"}`,
			Dispatch{InterviewID: "abc", Blueprint: "backend", BlueprintVersion: "0123456789abcdef", Template: "sre", TemplateVersion: BuiltinVersion}, ""},
		{"version without its design", `{"interview_id":"abc","template_version":"0123456789abcdef"}`, Dispatch{}, "template_version must be"},
		{"version not a hash", `{"interview_id":"abc","blueprint":"x","blueprint_version":"../x"}`, Dispatch{}, "blueprint_version must be"},
		{"blueprint alone", `{"blueprint":"default"}`, Dispatch{}, "names no interview"},
		{"candidate without a role", `{"name":"Ada"}`, Dispatch{}, "role: Enter the role"},
		{"candidate with a bad email", `{"name":"Ada","role":"x","email":"ada@localhost"}`, Dispatch{}, "email: That doesn't look like an email address"},
		{"candidate with an unknown level", `{"name":"Ada","role":"x","level":"wizard"}`, Dispatch{}, "level: Choose a level"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDispatch(tt.meta)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseDispatch = %+v, %v; want an error containing %q", got, err, tt.err)
				}
				if msg := err.Error(); !strings.Contains(msg, `send {"interview_id"`) && !strings.Contains(msg, "candidate ") &&
					!strings.Contains(msg, "send one") && !strings.Contains(msg, "use the id") {
					t.Errorf("error %q does not say what to send", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseDispatch: %v", err)
			}
			if got.InterviewID != tt.want.InterviewID || got.Blueprint != tt.want.Blueprint || (got.Candidate == nil) != (tt.want.Candidate == nil) ||
				(got.Candidate != nil && *got.Candidate != *tt.want.Candidate) {
				t.Errorf("ParseDispatch = %+v (candidate %+v), want %+v (candidate %+v)", got, got.Candidate, tt.want, tt.want.Candidate)
			}
		})
	}
}

func TestDispatchEncode(t *testing.T) {
	tests := []struct {
		name string
		d    Dispatch
		want string
		err  string
	}{
		{"interview id only", Dispatch{InterviewID: "abc123"}, `{"interview_id":"abc123"}`, ""},
		{"candidate", Dispatch{Candidate: &Candidate{Name: "Ada <3", Role: "R&D", Level: "mid"}, Blueprint: "default"},
			`{"name":"Ada <3","role":"R&D","level":"mid","blueprint":"default"}`, ""},
		{"nothing", Dispatch{}, "", "names no interview"},
		{"invalid candidate", Dispatch{Candidate: &Candidate{Name: "Ada"}}, "", "role"},
		{"both", Dispatch{InterviewID: "abc", Candidate: &Candidate{Name: "Ada", Role: "x"}}, "", "one or the other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.d.Encode()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Encode = %q, %v; want an error containing %q", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Encode = %q, %v; want %q", got, err, tt.want)
			}
			back, err := ParseDispatch(got)
			if err != nil || back.InterviewID != tt.d.InterviewID || back.Blueprint != tt.d.Blueprint ||
				(back.Candidate == nil) != (tt.d.Candidate == nil) || (back.Candidate != nil && *back.Candidate != *tt.d.Candidate) {
				t.Errorf("ParseDispatch(Encode()) = %+v, %v; want %+v", back, err, tt.d)
			}
		})
	}
}

// TestDispatchBlueprintIsANameNotAPath: a blueprint or template in
// dispatch metadata that is a path is refused before any loader sees it,
// and the error neither repeats the path nor holds anything read from it.
func TestDispatchBlueprintIsANameNotAPath(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.yaml")
	const contents = "root:x:0:0:secret-contents"
	if err := os.WriteFile(secret, []byte(contents), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"blueprint", "template"} {
		for _, bp := range []string{"/etc/passwd", secret, "../blueprints/x.yaml", `C:\x.yaml`, "default.yaml", "~/x"} {
			meta, err := json.Marshal(map[string]string{"name": "Ada", "role": "x", field: bp})
			if err != nil {
				t.Fatal(err)
			}
			_, err = ParseDispatch(string(meta))
			if err == nil {
				t.Errorf("%s %q: accepted", field, bp)
				continue
			}
			if msg := err.Error(); !strings.Contains(msg, "library") || strings.Contains(msg, contents) || strings.Contains(msg, "root:") ||
				(strings.ContainsAny(bp, "/\\") && strings.Contains(msg, bp)) {
				t.Errorf("%s %q: error %q should say to name a design of the library and hold no path or contents", field, bp, msg)
			}
			spy := &spyDesigns{}
			d := Dispatch{Candidate: &Candidate{Name: "Ada", Role: "x"}, Blueprint: bp}
			if field == "template" {
				d = Dispatch{Candidate: &Candidate{Name: "Ada", Role: "x"}, Template: bp}
			}
			_, err = d.Open(t.Context(), nil, "room", spy)
			if err == nil || spy.asked {
				t.Errorf("%s %q: Open = %v, library asked: %v", field, bp, err, spy.asked)
			}
		}
	}
	for _, name := range append(stages.BuiltinNames(), "System-Design", "my_plan-2") {
		if !ValidBlueprintName(name) {
			t.Errorf("ValidBlueprintName(%q) = false", name)
		}
	}
}

// A direct dispatch may name the interview's language; it is checked,
// written in its canonical case and kept in the record it creates.
func TestDispatchLanguage(t *testing.T) {
	d, err := ParseDispatch(`{"name": "Ana", "role": "Backend engineer", "language": "ES-mx"}`)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := d.Encode()
	if err != nil || !strings.Contains(meta, `"language":"ES-mx"`) {
		t.Fatalf("Encode = %s, %v", meta, err)
	}
	if _, err := ParseDispatch(`{"name": "Ana", "role": "Backend engineer", "language": "xx-!!"}`); err == nil || !strings.Contains(err.Error(), "not a language tag") {
		t.Errorf("a bad language: %v", err)
	}
	if _, err := ParseDispatch(`{"interview_id": "abc", "language": "es"}`); err == nil {
		t.Error("an interview id with a language was accepted; the record holds the language")
	}
	o, err := d.Open(t.Context(), &oneRecord{}, "room-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if rec := o.Record; rec.Language != "es-MX" {
		t.Errorf("record language = %q, want es-MX", rec.Language)
	}
}

// oneRecord is a RecordSource that keeps the record created.
type oneRecord struct{ rec *Record }

func (o *oneRecord) Get(context.Context, string) (*Record, error) { return nil, ErrNotFound }
func (o *oneRecord) Create(_ context.Context, r *Record) error    { o.rec = r; return nil }

// spyDesigns is a design library that says whether it was asked.
type spyDesigns struct{ asked bool }

func (s *spyDesigns) Blueprint(context.Context, string, string) (*stages.Blueprint, string, error) {
	s.asked = true
	return stages.Default(), BuiltinVersion, nil
}

func (s *spyDesigns) Template(context.Context, string, string) (*stages.Template, string, error) {
	s.asked = true
	return nil, "", ErrDesignNotFound
}
