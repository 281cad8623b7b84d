package interviews_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/storetest"
	"github.com/viva-interviews/viva/stages"
)

// TestRegisterPinsDesignVersions: a registration names designs of the
// library; the record keeps their versions, a re-issue keeps the same
// ones, and what is not in the library, or does not fit, is refused with
// nothing stored.
func TestRegisterPinsDesignVersions(t *testing.T) {
	svc, store := newService(t)
	ada := interviews.Candidate{Name: "Ada Lovelace", Email: "ada@example.com", Role: "Backend engineer", Level: "senior"}
	bp := interviews.Design{Kind: interviews.KindBlueprint, Name: "billing", Content: storetest.BlueprintYAML("billing", "What did you ship?")}
	tpl := interviews.Design{Kind: interviews.KindTemplate, Name: "payments", Content: storetest.TemplateMarkdown("Payments", "How do you reconcile a ledger?")}
	for _, d := range []*interviews.Design{&bp, &tpl} {
		if err := store.AddDesign(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}
	guided := interviews.Design{Kind: interviews.KindBlueprint, Name: "guided", Content: strings.Replace(storetest.BlueprintYAML("guided", "Why?"), "    limit: 2m\n", "    limit: 2m\n    guided: true\n", 1)}
	if err := store.AddDesign(t.Context(), &guided); err != nil {
		t.Fatal(err)
	}
	yes := true
	rec, err := svc.Register(t.Context(), interviews.Registration{Candidate: ada, Blueprint: "guided", Template: "payments", By: "r@example.com",
		Options: &interviews.Options{Feedback: &yes, Length: 30 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	if rec.BlueprintVersion != guided.Version || rec.TemplateVersion != tpl.Version || rec.Options == nil || rec.Options.Length != 30*time.Minute {
		t.Fatalf("registered %+v", rec)
	}
	builtin, err := svc.Register(t.Context(), interviews.Registration{Candidate: ada, Blueprint: stages.DefaultName, Template: "fullstack-senior"})
	if err != nil || builtin.BlueprintVersion != interviews.BuiltinVersion || builtin.TemplateVersion != interviews.BuiltinVersion {
		t.Fatalf("built-in registration = %+v, %v", builtin, err)
	}

	// A new version of the design does not reach the registered
	// interview, nor its re-issue.
	v2 := interviews.Design{Kind: interviews.KindBlueprint, Name: "guided", Content: guided.Content + "description: edited\n"}
	if err := store.AddDesign(t.Context(), &v2); err != nil {
		t.Fatal(err)
	}
	again, err := svc.Reissue(t.Context(), rec.ID, "r@example.com")
	if err != nil || again.BlueprintVersion != guided.Version || again.TemplateVersion != tpl.Version || again.Options == nil || !*again.Options.Feedback {
		t.Fatalf("re-issued %+v, %v", again, err)
	}

	before, _ := store.List(t.Context(), interviews.ListOptions{})
	for _, tc := range []struct {
		reg  interviews.Registration
		want string
	}{
		{interviews.Registration{Candidate: ada, Blueprint: "never-added"}, "no blueprint"},
		{interviews.Registration{Candidate: ada, Blueprint: "../../etc/passwd"}, "not valid"},
		{interviews.Registration{Candidate: ada, Blueprint: "guided", Template: "never-added"}, "no template"},
		{interviews.Registration{Candidate: ada, Blueprint: "billing", Template: "payments"}, "no guided stage"},
		{interviews.Registration{Candidate: ada, Blueprint: "billing", Options: &interviews.Options{Length: time.Minute}}, "expected length"},
	} {
		_, err := svc.Register(t.Context(), tc.reg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Register(%s, %s) = %v, want an error with %q", tc.reg.Blueprint, tc.reg.Template, err, tc.want)
		}
	}
	if err := store.RemoveDesign(t.Context(), interviews.KindBlueprint, "billing"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Register(t.Context(), interviews.Registration{Candidate: ada, Blueprint: "billing"}); !errors.Is(err, interviews.ErrDesignNotFound) {
		t.Errorf("registering with a removed design = %v, want ErrDesignNotFound", err)
	}
	if after, _ := store.List(t.Context(), interviews.ListOptions{}); after.Total != before.Total {
		t.Errorf("refused registrations stored %d records", after.Total-before.Total)
	}
}

// TestOptionsApply: the options change the copy of the blueprint an
// interview runs: the feedback page, its scores, the timings scaled to
// the expected length.
func TestOptionsApply(t *testing.T) {
	bp := stages.Default()
	planned := interviews.PlannedLength(bp, 1)
	yes, no := true, false
	interviews.Options{Feedback: &yes, FeedbackScores: &yes, Length: 2 * planned}.Apply(bp)
	if !bp.CandidateFeedback || !bp.FeedbackScores {
		t.Errorf("feedback %v, scores %v; want both on", bp.CandidateFeedback, bp.FeedbackScores)
	}
	if got := interviews.PlannedLength(bp, 1); got < 2*planned-5*time.Second || got > 2*planned+5*time.Second {
		t.Errorf("length %v, want about %v", got, 2*planned)
	}
	if err := bp.Validate(); err != nil {
		t.Errorf("the scaled blueprint is not valid: %v", err)
	}
	interviews.Options{Feedback: &no}.Apply(bp)
	if bp.CandidateFeedback || bp.FeedbackScores {
		t.Errorf("feedback off left %v, %v", bp.CandidateFeedback, bp.FeedbackScores)
	}
	if err := (interviews.Options{Feedback: &no, FeedbackScores: &yes}).Validate(); err == nil {
		t.Error("scores without the page were accepted")
	}
}
