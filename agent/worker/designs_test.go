package worker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/agent/worker"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/storetest"
	"github.com/viva-interviews/viva/testrig/candidatebot"
)

// TestInstalledDesignRunsAtItsVersion: an interview registered with a
// blueprint installed in the library runs that blueprint's stages and
// questions over a real livekit-server, at the version it was registered
// with: new versions of the design added after the registration and while
// the interview runs change nothing of it.
func TestInstalledDesignRunsAtItsVersion(t *testing.T) {
	synth, recog := offlineEngines(t)
	h := startHarness(t, &worker.Sessions{Engines: worker.Engines{Models: agent.Models{NewLLM: scriptedLLM}, STT: recog, TTS: synth,
		Names: interviews.Engines{LLM: "scripted", STT: "sphinx", TTS: "flite"}}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	const question = "Which release of the billing service did you ship last quarter?"
	v1 := interviews.Design{Kind: interviews.KindBlueprint, Name: "billing-e2e", Content: storetest.BlueprintYAML("billing-e2e", question), AddedBy: "admin@example.com"}
	if err := h.store.AddDesign(ctx, &v1); err != nil {
		t.Fatal(err)
	}
	rec := &interviews.Record{Blueprint: v1.Name, BlueprintVersion: v1.Version,
		Candidate: interviews.Candidate{Name: "Ada Lovelace", Role: "Backend engineer", Level: "senior"}}
	if err := h.store.Create(ctx, rec); err != nil {
		t.Fatal(err)
	}
	edit := func(lastStage string) {
		t.Helper()
		d := interviews.Design{Kind: interviews.KindBlueprint, Name: v1.Name, Content: strings.ReplaceAll(v1.Content, "wrapup", lastStage)}
		if err := h.store.AddDesign(ctx, &d); err != nil {
			t.Fatal(err)
		}
	}
	edit("farewell") // after the registration, before the candidate comes
	bot, _ := h.join(t, ctx, map[string]string{"interview_id": rec.ID})
	if _, err := bot.WaitAttribute(ctx, "viva.stage", func(v string) bool { return v == "warmup" }); err != nil {
		t.Fatalf("the interview did not start in the design's first stage: %v; attributes %v", err, bot.AgentAttributes())
	}
	if _, err := bot.WaitCaption(ctx, func(c candidatebot.Caption) bool {
		return c.Sender == bot.AgentIdentity() && c.Final && strings.Contains(c.Text, "billing service")
	}); err != nil {
		t.Fatalf("the interviewer never asked the design's question: %v; captions %+v", err, bot.Captions())
	}

	edit("goodbye") // mid-interview
	if err := bot.SendChat(ctx, "We shipped the invoicing release in June, and I led the migration of the ledger tables with zero downtime."); err != nil {
		t.Fatal(err)
	}
	stage, err := bot.WaitAttribute(ctx, "viva.stage", func(v string) bool { return v != "warmup" && v != "" })
	if err != nil || stage != "wrapup" {
		t.Fatalf("after the edit the interview moved to %q (%v), want the started version's wrapup", stage, err)
	}
	got, err := h.store.Get(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Blueprint != v1.Name || got.BlueprintVersion != v1.Version {
		t.Errorf("the record names %s@%s, want %s@%s", got.Blueprint, got.BlueprintVersion, v1.Name, v1.Version)
	}
	asked := false
	for _, q := range got.Questions {
		asked = asked || q.Text == question
	}
	if !asked {
		t.Errorf("the record's questions %+v lack the design's question", got.Questions)
	}
}

// TestDispatchOfDesignNotInLibraryRefused: a direct dispatch naming a
// blueprint that is not in the library is refused before any greeting,
// the candidate is told why, and no record is made.
func TestDispatchOfDesignNotInLibraryRefused(t *testing.T) {
	synth, recog := offlineEngines(t)
	h := startHarness(t, &worker.Sessions{Engines: worker.Engines{Models: agent.Models{NewLLM: scriptedLLM}, STT: recog, TTS: synth}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bot, _ := h.join(t, ctx, map[string]string{"name": "Ada Lovelace", "role": "Backend engineer", "blueprint": "never-installed"})
	ev, err := bot.WaitEvent(ctx, string(worker.EventInterviewEnding))
	if err != nil {
		t.Fatalf("the candidate got no ending event: %v", err)
	}
	if msg, _ := ev["message"].(string); msg != worker.MsgNoDesign {
		t.Errorf("the candidate was told %q, want %q", msg, worker.MsgNoDesign)
	}
	if voiced := bot.AgentAudio().Voiced; voiced != 0 {
		t.Errorf("the candidate heard %s of the interviewer; want no greeting", voiced)
	}
	if page, _ := h.store.List(ctx, interviews.ListOptions{}); page.Total != 0 {
		t.Errorf("the refused dispatch made %d records", page.Total)
	}
}
