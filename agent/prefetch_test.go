package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/agent/llm/openai"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/stages"
	"github.com/viva-interviews/viva/testrig/fakeopenai"
)

// prefetchRig is an interview whose model is the real OpenAI client
// against the local fake; every chat request waits for gate (when set)
// before answering, so a test decides when the model "has answered".
type prefetchRig struct {
	c    *Conductor
	fake *fakeopenai.Server
	seen chan string // the last user message of each request, as it arrives
	gate chan struct{}
}

func newPrefetchRig(t testing.TB, preemptive bool, ttft time.Duration) *prefetchRig {
	t.Helper()
	rig := &prefetchRig{fake: fakeopenai.New(), seen: make(chan string, 16)}
	t.Cleanup(rig.fake.Close)
	rig.fake.ChatFunc(func(req fakeopenai.Request) fakeopenai.Reply {
		last := ""
		for _, m := range req.Messages {
			if m.Role == "user" {
				last = m.Content
			}
		}
		rig.seen <- last
		if rig.gate != nil {
			<-rig.gate
		}
		time.Sleep(ttft)
		if last == "" {
			return fakeopenai.Reply{Text: "Hello Ada! How did you get into engineering?"}
		}
		return fakeopenai.Reply{Text: "Thank you. What happened next?"}
	})
	client, err := openai.New(openai.Options{APIKey: fakeopenai.Key, BaseURL: rig.fake.URL, Model: "gpt-test"})
	if err != nil {
		t.Fatal(err)
	}
	store, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rec := &interviews.Record{Candidate: interviews.Candidate{Name: "Ada Lovelace", Role: "Backend engineer", Level: "senior"}}
	if err := store.Create(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	c, err := NewInterview(Setup{Blueprint: stages.Default(), Record: rec, Store: store, Models: Models{Preemptive: preemptive, NewLLM: func(*fsm.Machine, *stages.Blueprint, stages.Profile) llm.Client { return client }}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateLeft) })
	rig.c = c
	return rig
}

func lastAgentTurn(r *interviews.Record) interviews.Turn {
	for i := len(r.Turns) - 1; i >= 0; i-- {
		if r.Turns[i].Role == interviews.RoleAgent {
			return r.Turns[i]
		}
	}
	return interviews.Turn{}
}

// TestPrefetchAnswersWithTheEarlyCall: a reply started on the candidate's
// likely last words is held back until the turn ends; when it ends with
// those words the reply is the early call's answer, with no second call.
func TestPrefetchAnswersWithTheEarlyCall(t *testing.T) {
	rig := newPrefetchRig(t, true, 0)
	ctx := t.Context()
	deliver(t, rig.c.Greet(ctx))
	<-rig.seen
	rig.gate = make(chan struct{})
	rig.c.Prefetch(ctx, "I started with robotics at school.")
	if got := <-rig.seen; got != "I started with robotics at school." {
		t.Fatalf("early call for %q", got)
	}
	close(rig.gate) // the model answers while the endpointing delay runs
	reply := deliver(t, rig.c.Respond(ctx, CandidateTurn{Text: "I started with robotics at school.", Source: SourceVoice}))
	if reply != "Thank you. What happened next?" {
		t.Fatalf("reply %q", reply)
	}
	if n := len(rig.fake.ChatRequests()); n != 2 {
		t.Errorf("%d chat requests, want 2: the greeting and the early call", n)
	}
	rec := rig.c.Recorder().Snapshot()
	if m := lastAgentTurn(rec).Metrics; m == nil || !m.Preempted {
		t.Errorf("metrics %+v, want the turn marked preempted", m)
	}
}

// TestPrefetchIsThrownAwayWhenTheCandidateGoesOn: an early call for words
// the candidate then added to is never used or said; the reply answers
// the whole turn with a call of its own, and a cancelled early call is
// not used either.
func TestPrefetchIsThrownAwayWhenTheCandidateGoesOn(t *testing.T) {
	rig := newPrefetchRig(t, true, 0)
	ctx := t.Context()
	deliver(t, rig.c.Greet(ctx))
	<-rig.seen
	rig.c.Prefetch(ctx, "I started with robotics.")
	<-rig.seen
	reply := rig.c.Respond(ctx, CandidateTurn{Text: "I started with robotics, and then physics.", Source: SourceVoice})
	if got := <-rig.seen; got != "I started with robotics, and then physics." {
		t.Fatalf("the reply's own call was for %q", got)
	}
	deliver(t, reply)
	if m := lastAgentTurn(rig.c.Recorder().Snapshot()).Metrics; m != nil && m.Preempted {
		t.Error("a turn that ended with other words was answered by the early call")
	}
	rig.c.Prefetch(ctx, "Then I joined a startup.")
	<-rig.seen
	rig.c.CancelPrefetch() // the candidate went on speaking
	reply = rig.c.Respond(ctx, CandidateTurn{Text: "Then I joined a startup.", Source: SourceVoice})
	if got := <-rig.seen; got != "Then I joined a startup." {
		t.Fatalf("the reply after a cancelled early call made no call of its own (%q)", got)
	}
	deliver(t, reply)
	if n := len(rig.fake.ChatRequests()); n != 5 {
		t.Errorf("%d chat requests, want 5", n)
	}
}

// TestPrefetchOffWithoutPreemptive: without Options.Preemptive (the
// scripted interviewer, whose calls change its state) nothing is called
// early.
func TestPrefetchOffWithoutPreemptive(t *testing.T) {
	rig := newPrefetchRig(t, false, 0)
	ctx := t.Context()
	deliver(t, rig.c.Greet(ctx))
	<-rig.seen
	rig.c.Prefetch(ctx, "Hello.")
	deliver(t, rig.c.Respond(ctx, CandidateTurn{Text: "Hello.", Source: SourceVoice}))
	if n := len(rig.fake.ChatRequests()); n != 2 {
		t.Errorf("%d chat requests, want 2", n)
	}
}

// BenchmarkPreemptiveGeneration measures the model's first token after the
// end of the candidate's turn with the fake OpenAI at a fixed 300 ms to
// first token, when the reply starts at the end of the turn and when it
// started 500 ms earlier (the default endpointing delay), on the likely
// last words.
func BenchmarkPreemptiveGeneration(b *testing.B) {
	const ttft, endpointing = 300 * time.Millisecond, 500 * time.Millisecond
	for _, mode := range []string{"at-end-of-turn", "preemptive"} {
		b.Run(mode, func(b *testing.B) {
			rig := newPrefetchRig(b, mode == "preemptive", ttft)
			ctx := context.Background()
			deliver(b, rig.c.Greet(ctx))
			<-rig.seen
			var total time.Duration
			for i := 0; b.Loop(); i++ {
				text := "Answer number " + strings.Repeat("x", i%7) + time.Now().Format("150405.000000")
				rig.c.Prefetch(ctx, text)
				time.Sleep(endpointing)
				r := rig.c.Respond(ctx, CandidateTurn{Text: text, Source: SourceVoice})
				start := time.Now()
				<-r.Deltas()
				total += time.Since(start)
				deliver(b, r)
				for len(rig.seen) > 0 {
					<-rig.seen
				}
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "first-token-ms")
		})
	}
}
