package interviews

import (
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/stages"
)

func TestStanding(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Hour), now.Add(time.Hour)
	for _, c := range []struct {
		name string
		rec  Record
		want string
	}{
		{"scheduled", Record{Status: StatusScheduled, ExpiresAt: &future}, "Scheduled"},
		{"withdrawn", Record{Status: StatusScheduled, RevokedAt: &past, ExpiresAt: &future}, "Withdrawn"},
		{"expired", Record{Status: StatusScheduled, ExpiresAt: &past}, "Link expired"},
		{"left", Record{Status: StatusCandidateLeft, StartedAt: &past, ExpiresAt: &past}, "Ended early"},
		{"completed", Record{Status: StatusCompleted}, "Completed"},
	} {
		sum := Summarize(&c.rec)
		if got, gotSum := c.rec.Standing(now).Label(), sum.Standing(now).Label(); got != c.want || gotSum != c.want {
			t.Errorf("%s: record %q, summary %q, want %q", c.name, got, gotSum, c.want)
		}
	}
}

// TestVisitsEndWithTheInterview: a stage entered after the candidate left
// is not reached, the last stage is left when the interview ended, and the
// final stage, the count and the summary agree.
func TestVisitsEndWithTheInterview(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 7, 0, 0, 0, time.UTC)
	r := &Record{ID: "x", Status: StatusInProgress}
	r.EnterStage("greeting", "Welcome", t0, false, "start")
	r.EnterStage("intro", "Introduction", t0.Add(time.Minute), false, "")
	r.Leave(t0.Add(2*time.Minute), t0.Add(10*time.Minute))
	// The worker moved on by the timer after the candidate had left.
	r.Stages = append(r.Stages, StageVisit{Name: "experience", Title: "Experience", EnteredAt: t0.Add(3 * time.Minute)})
	vs := r.Visits()
	if len(vs) != 2 || vs[1].Name != "intro" || vs[1].LeftAt == nil || !vs[1].LeftAt.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("visits %+v", vs)
	}
	if r.StagesReached() != 2 || r.LastStage() != "intro" || r.LastStage() != r.FinalStage {
		t.Errorf("reached %d, last %q, final %q", r.StagesReached(), r.LastStage(), r.FinalStage)
	}
	if sum := Summarize(r); sum.FinalStageTitle != "Introduction" {
		t.Errorf("summary's final stage %q", sum.FinalStageTitle)
	}
	r.Stages = append(r.Stages, StageVisit{Name: stages.Done, EnteredAt: t0.Add(2 * time.Minute)})
	if r.StagesReached() != 2 {
		t.Errorf("done counts as a stage reached")
	}
}

func TestTurnSourceAndHearing(t *testing.T) {
	for _, c := range []struct {
		turn  Turn
		label string
		heard Hearing
	}{
		{Turn{Role: RoleCandidate, Source: SourceText}, "typed", HeardTyped},
		{Turn{Role: RoleAgent, Source: SourceText}, "", HeardUnrated},
		{Turn{Role: RoleAgent, Source: SourceTimer}, "after the timer", HeardUnrated},
		{Turn{Role: RoleCandidate, Source: SourceVoice, STTConfidence: 0.93}, "", HeardConfident},
		{Turn{Role: RoleCandidate, Source: SourceVoice, STTConfidence: 0.41}, "", HeardUnsure},
		{Turn{Role: RoleCandidate, Source: SourceVoice}, "", HeardUnrated},
	} {
		if l, h := c.turn.SourceLabel(), c.turn.Heard(); l != c.label || h != c.heard {
			t.Errorf("%+v: label %q heard %v, want %q %v", c.turn, l, h, c.label, c.heard)
		}
	}
}

func TestSTTConfidenceValidated(t *testing.T) {
	r := &Record{ID: "x", Status: StatusCompleted, Turns: []Turn{{Seq: 1, Role: RoleCandidate, Text: "hi", STTConfidence: 1.5}}}
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "stt_confidence 1.5") {
		t.Errorf("Validate = %v, want the stt_confidence named", err)
	}
}

// TestListedQuestions: a follow-up put down three times, spoken once, is
// listed once, as the spoken copy, where it was first put down.
func TestListedQuestions(t *testing.T) {
	spoken := time.Date(2026, 3, 1, 7, 0, 0, 0, time.UTC)
	r := &Record{Questions: []stages.Question{
		{ID: "q1", Stage: "intro", Text: "Tell me about yourself."},
		{ID: "q2", Stage: "intro", Text: "What did you build with Go?"},
		{ID: "q3", Stage: "intro", Text: "what did you build  with Go?", SpokenAt: &spoken},
		{ID: "q4", Stage: "experience", Text: "What did you build with Go?"},
		{ID: "q5", Stage: "intro", Text: "What did you build with Go?"},
	}}
	var ids []string
	for _, q := range r.ListedQuestions() {
		ids = append(ids, q.ID)
	}
	if got := strings.Join(ids, " "); got != "q1 q3 q4" {
		t.Errorf("listed %s, want q1 q3 q4", got)
	}
}
