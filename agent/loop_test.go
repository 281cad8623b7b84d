package agent

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/stages"
)

// fakeTransport is an in-memory transport: the test sends inputs and
// decides when each reply has been delivered.
type fakeTransport struct {
	inputs chan Input
	says   chan *fakePlayback

	mu        sync.Mutex
	stages    []StageChange
	listening int
}

func newFakeTransport() *fakeTransport {
	return &fakeTransport{inputs: make(chan Input), says: make(chan *fakePlayback, 16)}
}

func (f *fakeTransport) Inputs() <-chan Input { return f.inputs }

func (f *fakeTransport) Listening() {
	f.mu.Lock()
	f.listening++
	f.mu.Unlock()
}

func (f *fakeTransport) StageEntered(sc StageChange) {
	f.mu.Lock()
	f.stages = append(f.stages, sc)
	f.mu.Unlock()
}

func (f *fakeTransport) Say(_ context.Context, r *Reply) Playback {
	p := &fakePlayback{reply: r, release: make(chan struct{}), cut: make(chan struct{}), done: make(chan struct{})}
	go p.run()
	f.says <- p
	return p
}

// next returns the next reply the loop says.
func (f *fakeTransport) next(t *testing.T) *fakePlayback {
	t.Helper()
	synctest.Wait()
	select {
	case p := <-f.says:
		return p
	default:
		t.Fatal("the loop said nothing")
		return nil
	}
}

// quiet fails when the loop has said something.
func (f *fakeTransport) quiet(t *testing.T, why string) {
	t.Helper()
	synctest.Wait()
	select {
	case p := <-f.says:
		t.Fatalf("%s, yet the loop said %q", why, p.text)
	default:
	}
}

// send hands the loop an input and lets it act.
func (f *fakeTransport) send(in Input) {
	f.inputs <- in
	synctest.Wait()
}

// fakePlayback takes the whole reply at once and plays it when released;
// interrupted, it delivers its first word only.
type fakePlayback struct {
	reply   *Reply
	release chan struct{}
	cut     chan struct{}
	cutOnce sync.Once
	done    chan struct{}

	text string // the generated text; set before release is waited on
	d    Delivery

	startedMu sync.Mutex
	started   time.Time // when it "started playing": once its text was generated
}

// StartedAt is when the reply started playing; zero before.
func (p *fakePlayback) StartedAt() time.Time {
	p.startedMu.Lock()
	defer p.startedMu.Unlock()
	return p.started
}

func (p *fakePlayback) run() {
	defer close(p.done)
	var b strings.Builder
	for d := range p.reply.Deltas() {
		b.WriteString(d)
	}
	p.text = strings.TrimSpace(b.String())
	started := time.Now()
	p.startedMu.Lock()
	p.started = started
	p.startedMu.Unlock()
	select {
	case <-p.release:
		p.d = Delivery{Text: p.text, StartedAt: started}
	case <-p.cut:
		first, _, _ := strings.Cut(p.text, " ")
		p.d = Delivery{Text: first, Interrupted: true, StartedAt: started}
	}
}

// play delivers the reply whole.
func (p *fakePlayback) play() { close(p.release); synctest.Wait() }

func (p *fakePlayback) Done() <-chan struct{} { return p.done }
func (p *fakePlayback) Interrupt()            { p.cutOnce.Do(func() { close(p.cut) }) }
func (p *fakePlayback) Wait() Delivery        { <-p.done; return p.d }

// runLoop starts a loop on the default blueprint over a fake transport; it
// returns the transport, the loop and a channel with Run's result.
func runLoop(t *testing.T, ctx context.Context, scale float64, opts LoopOptions, newLLM func(*fsm.Machine, *stages.Blueprint, stages.Profile) llm.Client) (*fakeTransport, *Loop, <-chan error) {
	t.Helper()
	setup, _ := testSetup(t, scale, newLLM)
	l, err := NewLoop(setup, opts)
	if err != nil {
		t.Fatal(err)
	}
	ft := newFakeTransport()
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx, ft) }()
	return ft, l, done
}

// ended returns Run's result, failing when the loop still runs.
func ended(t *testing.T, done <-chan error) error {
	t.Helper()
	synctest.Wait()
	select {
	case err := <-done:
		return err
	default:
		t.Fatal("the loop is still running")
		return nil
	}
}

func agentTurns(rec *interviews.Record) []interviews.Turn {
	var out []interviews.Turn
	for _, turn := range rec.Turns {
		if turn.Role == interviews.RoleAgent {
			out = append(out, turn)
		}
	}
	return out
}

// TestLoopGreetsAndAnswers: the loop greets, shows the first stage, answers
// a turn once the greeting was delivered, shows the candidate it listens,
// and a cancelled context saves the interview as the options say.
func TestLoopGreetsAndAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		ft, l, done := runLoop(t, ctx, 1, LoopOptions{Stopped: Ending{Status: interviews.StatusCandidateLeft, Reason: interviews.EndedInterrupted}}, scriptedLLM)
		greet := ft.next(t)
		greet.play()
		ft.mu.Lock()
		if len(ft.stages) != 1 || ft.stages[0].Name != "greeting" || ft.stages[0].Count != 4 || ft.stages[0].Deadline.IsZero() || ft.listening != 1 {
			t.Errorf("after the greeting: stages %+v, listening %d", ft.stages, ft.listening)
		}
		ft.mu.Unlock()

		ft.send(CandidateTurn{Text: answers[0], Source: SourceText})
		reply := ft.next(t)
		if reply.text == "" || reply.text == greet.text {
			t.Errorf("reply %q", reply.text)
		}
		reply.play()
		cancel()
		if err := ended(t, done); err != nil {
			t.Fatal(err)
		}
		rec := l.Conductor().Recorder().Snapshot()
		if len(rec.Turns) != 3 || rec.Turns[1].Text != answers[0] || rec.Turns[2].Text != reply.text {
			t.Errorf("turns %+v", rec.Turns)
		}
		if rec.Status != interviews.StatusCandidateLeft || rec.EndedBy != interviews.EndedInterrupted {
			t.Errorf("stopped as %s by %s", rec.Status, rec.EndedBy)
		}
	})
}

// TestLoopBargeIn: the candidate speaking over the interviewer cuts the
// reply; only what was played is saved, marked interrupted, and the next
// voice turn is dated from its first speech.
func TestLoopBargeIn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ft, l, done := runLoop(t, t.Context(), 1, LoopOptions{}, scriptedLLM)
		greet := ft.next(t)
		start := time.Now()
		ft.send(SpeechStarted{At: start})
		ft.send(BargeIn{})
		synctest.Wait()
		time.Sleep(2 * time.Second)
		ft.send(SpeechEnded{})
		ft.send(CandidateTurn{Text: answers[0], Source: SourceVoice, StartedAt: time.Now(), EndedAt: time.Now()})
		ft.next(t).play()
		rec := l.Conductor().Recorder().Snapshot()
		first, _, _ := strings.Cut(greet.text, " ")
		if got := agentTurns(rec); len(got) != 2 || !got[0].Interrupted || got[0].Text != first {
			t.Errorf("agent turns %+v, want the greeting cut to %q", got, first)
		}
		if cand := rec.Turns[1]; cand.Role != interviews.RoleCandidate || !cand.StartedAt.Equal(start) || cand.Source != SourceVoice {
			t.Errorf("candidate turn %+v, want it to start at %v", cand, start)
		}
		ft.send(InputEnded{})
		if err := ended(t, done); err != nil {
			t.Fatal(err)
		}
	})
}

// TestLoopForcedMoveInterjects: a stage running out of time is
// acknowledged once nobody speaks: not while the candidate speaks, at
// once when they stop.
func TestLoopForcedMoveInterjects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ft, l, done := runLoop(t, t.Context(), 0.1, LoopOptions{}, scriptedLLM)
		ft.next(t).play()
		ft.send(SpeechStarted{At: time.Now()})
		m := l.Conductor().Machine()
		time.Sleep(time.Until(m.Deadline()) + time.Second)
		synctest.Wait()
		if m.Stage() != "intro" {
			t.Fatalf("stage %s after the greeting's deadline, want intro", m.Stage())
		}
		ft.quiet(t, "the candidate is speaking")
		ft.send(SpeechEnded{})
		ack := ft.next(t)
		want := stages.Default().AcknowledgementFor("intro", stages.Profile{Name: "Ada Lovelace", Role: "Backend engineer", Level: "senior"})
		if !strings.Contains(ack.text, want) {
			t.Errorf("interjection %q does not acknowledge the move (%q)", ack.text, want)
		}
		ack.play()
		ft.quiet(t, "the move was acknowledged")
		ft.mu.Lock()
		if n := len(ft.stages); n != 2 || !ft.stages[1].Forced || ft.stages[1].Name != "intro" {
			t.Errorf("stages shown %+v", ft.stages)
		}
		ft.mu.Unlock()
		close(ft.inputs)
		if err := ended(t, done); err != nil {
			t.Fatal(err)
		}
		if rec := l.Conductor().Recorder().Snapshot(); rec.EndedBy != interviews.EndedEndOfInput {
			t.Errorf("ended by %s, want end_of_input", rec.EndedBy)
		}
	})
}

// failingLLM fails every call after its first ok ones.
type failingLLM struct {
	mu sync.Mutex
	ok int
}

func (f *failingLLM) Complete(ctx context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ok > 0 {
		f.ok--
		onDelta("Tell me more.")
		return llm.Response{Text: "Tell me more."}, nil
	}
	return llm.Response{}, errors.New("llm: 503 service unavailable")
}

// TestLoopModelFailurePolicy: a failed model turn is survived, a success
// resets the count, and DefaultMaxModelFailures failures in a row end the
// interview as failed by the model, with Run saying why.
func TestLoopModelFailurePolicy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		model := &failingLLM{}
		ft, l, done := runLoop(t, t.Context(), 1, LoopOptions{}, func(*fsm.Machine, *stages.Blueprint, stages.Profile) llm.Client { return model })
		ft.next(t).play() // the greeting fails: 1
		model.mu.Lock()
		model.ok = 1
		model.mu.Unlock()
		ft.send(CandidateTurn{Text: "Hello?"})
		ft.next(t).play() // a success
		for i := range DefaultMaxModelFailures {
			ft.send(CandidateTurn{Text: "Are you there?"})
			p := ft.next(t)
			if i < DefaultMaxModelFailures-1 {
				p.play()
				continue
			}
			close(p.release)
		}
		err := ended(t, done)
		if err == nil || !strings.Contains(err.Error(), "503") {
			t.Errorf("Run returned %v, want the model's error", err)
		}
		rec := l.Conductor().Recorder().Snapshot()
		if rec.Status != interviews.StatusFailed || rec.EndedBy != interviews.EndedByProviderError("llm") {
			t.Errorf("saved %s by %s, want failed by provider_error: llm", rec.Status, rec.EndedBy)
		}
	})
}

// TestLoopLeaveAndRejoin: a candidate who leaves is saved candidate_left at
// once and welcomed back within the grace; gone again past the grace, the
// interview ends candidate_left.
func TestLoopLeaveAndRejoin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ft, l, done := runLoop(t, t.Context(), 1, LoopOptions{RejoinGrace: time.Minute}, scriptedLLM)
		greet := ft.next(t)
		ft.send(Left{})
		rc := l.Conductor().Recorder()
		if rec := rc.Snapshot(); rec.Status != interviews.StatusCandidateLeft || rec.RejoinUntil == nil {
			t.Fatalf("after leaving: %s, rejoin until %v", rec.Status, rec.RejoinUntil)
		}
		if !greet.d.Interrupted {
			t.Error("the greeting was not cut when the candidate left")
		}
		time.Sleep(30 * time.Second)
		ft.send(Joined{})
		welcome := ft.next(t)
		if !strings.HasPrefix(welcome.text, "Welcome back, Ada.") {
			t.Errorf("welcome back %q", welcome.text)
		}
		welcome.play()
		if rec := rc.Snapshot(); rec.Status != interviews.StatusInProgress || len(rec.Absences) != 1 || rec.Absences[0].BackAt == nil {
			t.Fatalf("after rejoining: %s, absences %+v", rec.Status, rec.Absences)
		}

		ft.send(Left{})
		time.Sleep(time.Minute + time.Second)
		if err := ended(t, done); err != nil {
			t.Fatal(err)
		}
		if rec := rc.Snapshot(); rec.Status != interviews.StatusCandidateLeft || rec.EndedBy != interviews.EndedCandidateLeft || rec.RejoinUntil != nil || len(rec.Absences) != 2 {
			t.Errorf("after the grace: %s by %s, rejoin until %v, absences %d", rec.Status, rec.EndedBy, rec.RejoinUntil, len(rec.Absences))
		}
	})
}

// TestLoopInputEndsAfterReply: input ending while a reply is on its way
// lets it be delivered, then saves candidate_left by end_of_input.
func TestLoopInputEndsAfterReply(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ft, l, done := runLoop(t, t.Context(), 1, LoopOptions{}, scriptedLLM)
		ft.next(t).play()
		ft.send(CandidateTurn{Text: answers[0]})
		reply := ft.next(t)
		ft.send(InputEnded{})
		select {
		case <-done:
			t.Fatal("the loop ended before the reply was delivered")
		default:
		}
		reply.play()
		if err := ended(t, done); err != nil {
			t.Fatal(err)
		}
		rec := l.Conductor().Recorder().Snapshot()
		if rec.Status != interviews.StatusCandidateLeft || rec.EndedBy != interviews.EndedEndOfInput || len(rec.Turns) != 3 || rec.Turns[2].Interrupted {
			t.Errorf("saved %s by %s with turns %+v", rec.Status, rec.EndedBy, rec.Turns)
		}
	})
}

// TestLoopWaitsForCandidate: with a join timeout the loop greets only once
// the candidate joins, and saves candidate_never_joined when nobody does.
func TestLoopWaitsForCandidate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ft, _, done := runLoop(t, t.Context(), 1, LoopOptions{JoinTimeout: time.Minute}, scriptedLLM)
		ft.quiet(t, "nobody joined")
		ft.send(Joined{})
		ft.next(t).play()
		ft.send(EndRequested{})
		if err := ended(t, done); err != nil {
			t.Fatal(err)
		}

		ft, l, done := runLoop(t, t.Context(), 1, LoopOptions{JoinTimeout: time.Minute}, scriptedLLM)
		time.Sleep(time.Minute)
		if err := ended(t, done); err != nil {
			t.Fatal(err)
		}
		ft.quiet(t, "nobody joined")
		if rec := l.Conductor().Recorder().Snapshot(); rec.Status != interviews.StatusCandidateLeft || rec.EndedBy != interviews.EndedCandidateNeverJoined {
			t.Errorf("saved %s by %s, want candidate_left by candidate_never_joined", rec.Status, rec.EndedBy)
		}
	})
}

// TestLoopClosed: a transport that can no longer carry the interview cuts
// the reply and ends it as it says.
func TestLoopClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ft, l, done := runLoop(t, t.Context(), 1, LoopOptions{}, scriptedLLM)
		greet := ft.next(t)
		ft.send(Closed{Status: interviews.StatusFailed, Reason: interviews.EndedByProviderError("stt")})
		if err := ended(t, done); err != nil {
			t.Fatal(err)
		}
		rec := l.Conductor().Recorder().Snapshot()
		if rec.Status != interviews.StatusFailed || rec.EndedBy != "provider_error: stt" || !greet.d.Interrupted {
			t.Errorf("saved %s by %s; greeting %+v", rec.Status, rec.EndedBy, greet.d)
		}
	})
}

// TestLoopResumesAfterCrash: an interview whose worker died mid-way (the
// record left in progress, then swept as worker_crashed) continues in a new
// loop from its saved state: the same record, turns appended, the stage
// kept, new question ids after the old ones, and the interviewer opens by
// welcoming the candidate back with the last question they heard.
func TestLoopResumesAfterCrash(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store, err := filestore.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		rec := &interviews.Record{Candidate: interviews.Candidate{Name: "Ada Lovelace", Role: "Backend engineer", Level: "senior"}}
		if err := store.Create(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
		ctx, crash := context.WithCancel(t.Context())
		l, err := NewLoop(Setup{Blueprint: stages.Default(), Record: rec, Store: store, Models: Models{NewLLM: scriptedLLM}}, LoopOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ft := newFakeTransport()
		done := make(chan error, 1)
		go func() { done <- l.Run(ctx, ft) }()
		ft.next(t).play()
		for _, a := range answers[:3] {
			ft.send(CandidateTurn{Text: a, Source: SourceText})
			ft.next(t).play()
		}
		rc := l.Conductor().Recorder()
		if err := rc.Flush(); err != nil {
			t.Fatal(err)
		}
		// What a killed worker leaves behind: the record as last saved.
		left, err := store.Get(ctx, rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		crash()
		<-done
		if err := store.Save(ctx, left); err != nil {
			t.Fatal(err)
		}
		if left.Status != interviews.StatusInProgress || len(left.Questions) == 0 {
			t.Fatalf("the crashed record is %s with %d questions; the test needs a question asked", left.Status, len(left.Questions))
		}
		if swept, err := store.SweepCrashed(ctx); err != nil || len(swept) != 1 {
			t.Fatalf("sweep = %v, %v", swept, err)
		}

		saved, err := store.Get(ctx, rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		l2, err := NewLoop(Setup{Blueprint: stages.Default(), Record: saved, Store: store, Models: Models{NewLLM: scriptedLLM}}, LoopOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ft2 := newFakeTransport()
		done2 := make(chan error, 1)
		ctx2, stop := context.WithCancel(t.Context())
		go func() { done2 <- l2.Run(ctx2, ft2) }()
		welcome := ft2.next(t)
		var lastAsked string
		for _, q := range left.Questions {
			if q.Spoken() {
				lastAsked = q.Text
			}
		}
		if !strings.HasPrefix(welcome.text, "Welcome back, Ada.") || !strings.Contains(welcome.text, strings.TrimSpace(lastAsked)) {
			t.Errorf("resumed with %q, want a welcome back repeating %q", welcome.text, lastAsked)
		}
		welcome.play()
		ft2.mu.Lock()
		if len(ft2.stages) != 1 || ft2.stages[0].Name != left.CurrentStage() {
			t.Errorf("stages shown on resume: %+v, want %s", ft2.stages, left.CurrentStage())
		}
		ft2.mu.Unlock()
		for _, a := range answers[3:6] {
			ft2.send(CandidateTurn{Text: a, Source: SourceText})
			ft2.next(t).play()
		}
		stop()
		if err := ended(t, done2); err != nil {
			t.Fatal(err)
		}
		if err := l2.Conductor().Recorder().Close(); err != nil {
			t.Fatalf("a save of the resumed interview failed: %v", err)
		}
		final, err := store.Get(ctx, rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(final.Turns) != len(left.Turns)+1+6 {
			t.Errorf("turns: %d before the crash, %d after resuming; want %d", len(left.Turns), len(final.Turns), len(left.Turns)+7)
		}
		for i, turn := range left.Turns {
			if final.Turns[i].Text != turn.Text || final.Turns[i].Seq != turn.Seq {
				t.Errorf("turn %d changed: %q → %q", i+1, turn.Text, final.Turns[i].Text)
			}
		}
		if len(final.Questions) < len(left.Questions) {
			t.Errorf("questions lost: %d → %d", len(left.Questions), len(final.Questions))
		}
		for i, q := range left.Questions {
			if final.Questions[i].ID != q.ID {
				t.Errorf("question %d is %s, was %s", i, final.Questions[i].ID, q.ID)
			}
		}
		if err := final.Validate(); err != nil {
			t.Error(err)
		}
		if len(final.Absences) != 1 || final.Absences[0].BackAt == nil {
			t.Errorf("the gap is not recorded: %+v", final.Absences)
		}
	})
}
