package interviews

import (
	"strings"
	"testing"
	"time"
)

func newRecord(id, name, role string, status Status, created time.Time) *Record {
	r := &Record{ID: id, Candidate: Candidate{Name: name, Role: role, Level: "mid"}, Blueprint: "default", Status: StatusScheduled, CreatedAt: created}
	if status != StatusScheduled {
		r.Start(created.Add(time.Minute))
		r.EnterStage("greeting", "Welcome", created.Add(time.Minute), false, "")
	}
	if status.Finished() {
		r.Finish(status, "test", created.Add(11*time.Minute))
	}
	return r
}

func TestNewIDAndValidID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := NewID()
		if len(id) != 16 || !ValidID(id) || strings.ToLower(id) != id {
			t.Fatalf("NewID() = %q", id)
		}
		if seen[id] {
			t.Fatalf("NewID repeated %q", id)
		}
		seen[id] = true
	}
	tests := []struct {
		id   string
		want bool
	}{
		{"abc", true}, {"a-1_b", true}, {"0", true}, {strings.Repeat("a", 64), true},
		{"", false}, {"../x", false}, {"..", false}, {"a/b", false}, {`a\b`, false}, {"ABC", false}, {"aBc", false},
		{".hidden", false}, {"x.json", false}, {"-x", false}, {"_x", false}, {"a b", false}, {"é", false},
		{strings.Repeat("a", 65), false}, {"a\x00", false},
	}
	for _, tt := range tests {
		if got := ValidID(tt.id); got != tt.want {
			t.Errorf("ValidID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}
