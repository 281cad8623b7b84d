package stages

import (
	"strings"
	"testing"
)

func TestRoleCategory(t *testing.T) {
	tests := []struct {
		role, want string
	}{
		{"Backend engineer", RoleEngineering},
		{"Senior Software Developer", RoleEngineering},
		{"Front-end developer", RoleEngineering},
		{"Full stack", RoleEngineering},
		{"iOS", RoleEngineering},
		{"Tech Lead", RoleEngineering},
		{"Lead Engineer", RoleEngineering},
		{"Engineering Manager", RoleManagement},
		{"Head of Engineering", RoleManagement},
		{"Team Lead, Payments", RoleManagement},
		{"QA Manager", RoleManagement},
		{"Director of Design", RoleManagement},
		{"Product Manager", RoleProduct},
		{"Senior Product Owner", RoleProduct},
		{"Product", RoleProduct},
		{"Product Designer", RoleDesign},
		{"UX/UI designer", RoleDesign},
		{"User researcher", RoleDesign},
		{"Senior Data Engineer", RoleData},
		{"data scientist", RoleData},
		{"ML Engineer", RoleData},
		{"Machine Learning Researcher", RoleData},
		{"Business Analyst", RoleData},
		{"DevOps Engineer", RoleDevOps},
		{"SRE", RoleDevOps},
		{"Site Reliability Engineer", RoleDevOps},
		{"Platform engineer", RoleDevOps},
		{"Cloud Infrastructure Specialist", RoleDevOps},
		{"QA Engineer", RoleQA},
		{"Test Automation Engineer", RoleQA},
		{"SDET", RoleQA},
		{"Security Engineer", RoleSecurity},
		{"AppSec lead", RoleSecurity},
		{"Account Manager", RoleSales},
		{"Account Executive", RoleSales},
		{"Sales Engineer", RoleSales},
		{"Growth Marketing Lead", RoleSales},
		{"Business Development Representative", RoleSales},
		{"Nurse", RoleGeneral},
		{"", RoleGeneral},
		{"Testament scholar", RoleGeneral}, // whole words only: "test" is not in "testament"
		{"Datastore janitor", RoleGeneral}, // nor "data" in "datastore"
	}
	for _, tc := range tests {
		t.Run(tc.role, func(t *testing.T) {
			if got := RoleCategory(tc.role); got != tc.want {
				t.Errorf("RoleCategory(%q) = %q; want %q", tc.role, got, tc.want)
			}
			if got, want := RoleFocus(tc.role), roleFocus[tc.want]; got != want || got == "" {
				t.Errorf("RoleFocus(%q) = %q; want the %s paragraph", tc.role, got, tc.want)
			}
		})
	}
}

func TestRoleFocusParagraphsDiffer(t *testing.T) {
	seen := map[string]string{}
	for _, r := range roleRules {
		if _, ok := roleFocus[r.category]; !ok {
			t.Errorf("category %q has no focus paragraph", r.category)
		}
	}
	for cat, text := range roleFocus {
		if other, dup := seen[text]; dup {
			t.Errorf("categories %s and %s share a paragraph", cat, other)
		}
		seen[text] = cat
	}
	if len(roleFocus) != 10 {
		t.Errorf("%d focus paragraphs; want one per Role* category (10)", len(roleFocus))
	}
}

func TestLevels(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{"entry", "entry", false},
		{"Junior", "junior", false},
		{"  MID ", "mid", false},
		{"senior", "senior", false},
		{"Lead", "lead", false},
		{"staff\n", "staff", false},
		{"principal", "", true},
		{"", "", true},
		{"mid-level", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := NormalizeLevel(tc.in)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("NormalizeLevel(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "entry, junior, mid, senior, lead, staff") {
				t.Errorf("error %q does not list the accepted levels", err)
			}
			if ValidLevel(tc.in) != (!tc.wantErr && tc.in == tc.want) {
				t.Errorf("ValidLevel(%q) = %v; want true only for exact levels", tc.in, ValidLevel(tc.in))
			}
		})
	}
	seen := map[string]bool{}
	for _, l := range Levels {
		e := LevelExpectations(l)
		if seen[e] || e == LevelExpectations("unknown") || LevelExpectations(" "+strings.ToUpper(l)) != e {
			t.Errorf("LevelExpectations(%q) is not its own paragraph or depends on case", l)
		}
		seen[e] = true
	}
}
