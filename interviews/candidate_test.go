package interviews

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestCandidateNormalize(t *testing.T) {
	c := Candidate{Name: "  Ada \n\t Lovelace ", Email: " ada@example.com\r\n", Role: "Backend\u2028engineer", Level: " Senior "}
	c.Normalize()
	want := Candidate{Name: "Ada Lovelace", Email: "ada@example.com", Role: "Backend engineer", Level: "senior"}
	if c != want {
		t.Errorf("Normalize = %+v, want %+v", c, want)
	}
	unknown := Candidate{Level: "  Wizard\t"}
	unknown.Normalize()
	if unknown.Level != "Wizard" {
		t.Errorf("an unknown level becomes %q, want it kept as typed (cleaned) for Validate to report", unknown.Level)
	}
}

func TestCandidateValidate(t *testing.T) {
	valid := Candidate{Name: "Ada Lovelace", Email: "ada@example.com", Role: "Backend engineer", Level: "senior"}
	tests := []struct {
		name   string
		modify func(*Candidate)
		want   map[string]string // field → part of its message; nil: valid
	}{
		{"full", func(*Candidate) {}, nil},
		{"no email, no level", func(c *Candidate) { c.Email, c.Level = "", "" }, nil},
		{"name at limit", func(c *Candidate) { c.Name = strings.Repeat("é", MaxNameLen) }, nil},
		{"sub-domain email", func(c *Candidate) { c.Email = "ada.lovelace+cv@mail.example.co.uk" }, nil},
		{"no name", func(c *Candidate) { c.Name = "" }, map[string]string{FieldName: "Enter the candidate's name"}},
		{"blank name", func(c *Candidate) { c.Name = "  " }, map[string]string{FieldName: "Enter the candidate's name"}},
		{"long name", func(c *Candidate) { c.Name = strings.Repeat("é", MaxNameLen+1) }, map[string]string{FieldName: "Keep the name to 200 characters or fewer"}},
		{"no role", func(c *Candidate) { c.Role = "" }, map[string]string{FieldRole: "Enter the role the candidate is applying for, such as Backend engineer"}},
		{"long role", func(c *Candidate) { c.Role = strings.Repeat("r", MaxNameLen+1) }, map[string]string{FieldRole: "Keep the role to 200 characters or fewer"}},
		{"not an email", func(c *Candidate) { c.Email = "ada at example" }, map[string]string{FieldEmail: "use the form name@example.com, or leave it empty"}},
		{"display name", func(c *Candidate) { c.Email = "Ada <ada@example.com>" }, map[string]string{FieldEmail: "doesn't look like an email address"}},
		{"no dot in the domain", func(c *Candidate) { c.Email = "ada@localhost" }, map[string]string{FieldEmail: "doesn't look like an email address"}},
		{"only a trailing dot", func(c *Candidate) { c.Email = "ada@localhost." }, map[string]string{FieldEmail: "doesn't look like an email address"}},
		{"long email", func(c *Candidate) { c.Email = strings.Repeat("a", MaxNameLen) + "@example.com" }, map[string]string{FieldEmail: "doesn't look like an email address"}},
		{"unknown level", func(c *Candidate) { c.Level = "wizard" }, map[string]string{FieldLevel: "Choose a level: entry, junior, mid, senior, lead, staff"}},
		{"level not normalised", func(c *Candidate) { c.Level = "Senior" }, map[string]string{FieldLevel: "Choose a level"}},
		{"everything wrong", func(c *Candidate) { *c = Candidate{Email: "x", Level: "x"} },
			map[string]string{FieldName: "name", FieldRole: "role", FieldEmail: "email", FieldLevel: "level"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := valid
			tt.modify(&c)
			err := c.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			fe, ok := errors.AsType[FieldErrors](err)
			if !ok {
				t.Fatalf("Validate() = %v (%T), want FieldErrors", err, err)
			}
			if got, want := slices.Sorted(maps.Keys(fe)), slices.Sorted(maps.Keys(tt.want)); !slices.Equal(got, want) {
				t.Fatalf("fields %v, want %v (%v)", got, want, fe)
			}
			for f, part := range tt.want {
				if !strings.Contains(fe[f], part) {
					t.Errorf("%s: %q, want it to contain %q", f, fe[f], part)
				}
			}
		})
	}
}

func TestFieldErrorsError(t *testing.T) {
	err := FieldErrors{FieldRole: "Enter the role", FieldName: "Enter the name"}
	if got, want := err.Error(), "name: Enter the name; role: Enter the role"; got != want {
		t.Errorf("Error() = %q, want %q (in field order)", got, want)
	}
}
