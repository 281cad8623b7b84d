package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/agent/llm/openai"
	"github.com/viva-interviews/viva/agent/llm/scripted"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/incident"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/stages"
	"github.com/viva-interviews/viva/testrig/fakeopenai"
)

// soakReportEnv names the file BenchmarkSoak writes its figures to, as
// JSON; unset, they go to soak.json in the benchmark's temporary directory
// and to the benchmark's log.
const soakReportEnv = "VIVA_SOAK_REPORT"

// Engine names of the interviewer models, as production wires them.
const (
	soakPrimary   = "openai"
	soakSecondary = "scripted"
)

// soakOptions configure a soak: many interviews at once through the real
// conversation loop, the OpenAI client against the local fake with faults
// injected, the scripted interviewer as its fallback, and the JSON store.
type soakOptions struct {
	// Interviews is how many interviews run at once in a round.
	Interviews int
	// Answers is how many answers each candidate gives before ending the
	// interview themselves (at most len(answers)).
	Answers int
	// FaultRate is the share of model requests that meet a fault.
	FaultRate float64
	// Seed makes the faults' choice repeatable.
	Seed uint64
	// TimeScale multiplies the stages' limits and every provider timeout,
	// backoff and cooldown alike.
	TimeScale float64
	// Think is how long a candidate thinks before each answer.
	Think time.Duration
}

// scaled is d on the soak's time scale.
func (o soakOptions) scaled(d time.Duration) time.Duration {
	return time.Duration(float64(d) * o.TimeScale)
}

// soakRig is what lives as long as a worker process: one fake model
// server, one OpenAI client shared by every interview, one store.
type soakRig struct {
	opts   soakOptions
	srv    *fakeopenai.Server
	http   *http.Client
	model  llm.Client
	store  interviews.Store
	faults *faultInjector
	log    *slog.Logger
}

// newSoakRig starts the fake model server (piped for testing/synctest, on
// a socket otherwise), the OpenAI client on it as production configures it
// (timeouts on the soak's time scale) and a store in a temporary
// directory. Call close when done.
func newSoakRig(tb testing.TB, opts soakOptions, piped bool) *soakRig {
	tb.Helper()
	r := &soakRig{opts: opts, faults: newFaultInjector(opts.FaultRate, opts.Seed), log: slog.New(slog.DiscardHandler)}
	if piped {
		r.srv, r.http = fakeopenai.NewPiped()
	} else {
		r.srv = fakeopenai.New()
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = opts.Interviews
		r.http = &http.Client{Transport: tr}
	}
	r.srv.ChatFunc(r.faults.reply)
	model, err := openai.New(openai.Options{
		APIKey: fakeopenai.Key, BaseURL: r.srv.URL, HTTPClient: r.http, Logger: r.log,
		FirstTokenTimeout: opts.scaled(openai.DefaultFirstTokenTimeout),
		ChunkGapTimeout:   opts.scaled(openai.DefaultChunkGapTimeout),
		Backoff:           opts.scaled(openai.DefaultBackoff),
		MaxBackoff:        opts.scaled(openai.DefaultMaxBackoff),
	})
	if err != nil {
		r.close()
		tb.Fatal(err)
	}
	r.model = model
	if r.store, err = filestore.Open(tb.TempDir()); err != nil {
		r.close()
		tb.Fatal(err)
	}
	return r
}

// close stops the fake server and drops the client's connections.
func (r *soakRig) close() {
	r.srv.Close()
	r.http.CloseIdleConnections()
}

// newLLM wraps the shared OpenAI client with the scripted interviewer as
// production does (cmd/viva's llmFactory), with the cooldown on the soak's
// time scale.
func (r *soakRig) newLLM(m *fsm.Machine, bp *stages.Blueprint, p stages.Profile) llm.Client {
	return llm.WithFallback(r.model, scripted.New(m, bp, p), llm.FallbackOptions{
		Primary: soakPrimary, Secondary: soakSecondary,
		Cooldown: r.opts.scaled(llm.DefaultCooldown),
	})
}

// soakInterview is one interview of a round, as it ended.
type soakInterview struct {
	name   string
	given  []string           // answers the loop received
	runErr error              // Run's result
	saved  *interviews.Record // the record read back from disk
	getErr error              // reading it back
}

// soakRound is the outcome of one round.
type soakRound struct {
	interviews []soakInterview
	elapsed    time.Duration
}

// candidateName is the name of interview i of round: letters only, so the
// interviewer speaks it whole and the fault injector finds it in prompts.
func candidateName(round, i int) string {
	suffix := func(n int) string {
		s := string(rune('a' + n%26))
		for n /= 26; n > 0; n /= 26 {
			s = string(rune('a'+n%26)) + s
		}
		return s
	}
	return "Ada Soak" + suffix(round) + "x" + suffix(i)
}

// round runs opts.Interviews interviews at once until every one has ended
// and its record is saved, then reads every record back from disk.
func (r *soakRig) round(tb testing.TB, ctx context.Context, round int) soakRound {
	tb.Helper()
	// What the rig remembers of earlier rounds is the test's memory, not
	// the interviews': drop it so the heap figures are the product's.
	r.srv.ForgetChatRequests()
	r.faults.forget()
	start := time.Now()
	out := make([]soakInterview, r.opts.Interviews)
	var wg sync.WaitGroup
	ids := make([]string, len(out))
	for i := range out {
		name := candidateName(round, i)
		rec := &interviews.Record{Candidate: interviews.Candidate{Name: name, Role: "Backend engineer", Level: "senior"}}
		if err := r.store.Create(ctx, rec); err != nil {
			tb.Fatalf("creating interview %d: %v", i, err)
		}
		ids[i] = rec.ID
		l, err := NewLoop(Setup{Blueprint: stages.Default(), Record: rec, Store: r.store, TimeScale: r.opts.TimeScale,
			Models: Models{NewLLM: r.newLLM}, Pace: Pace{FillerAfter: r.opts.scaled(DefaultFillerAfter)}, Logger: r.log.With("interview_id", rec.ID)}, LoopOptions{})
		if err != nil {
			tb.Fatalf("interview %d: %v", i, err)
		}
		cand := newScriptedCandidate(answers[:min(r.opts.Answers, len(answers))], r.opts.Think)
		wg.Go(func() {
			err := l.Run(ctx, cand)
			cand.close()
			if cerr := l.Conductor().Recorder().Close(); cerr != nil {
				err = errors.Join(err, fmt.Errorf("saving the record: %w", cerr))
			}
			out[i] = soakInterview{name: name, given: cand.Given(), runErr: err}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	for i := range out {
		out[i].saved, out[i].getErr = r.store.Get(ctx, ids[i])
	}
	return soakRound{interviews: out, elapsed: elapsed}
}

// check reports every interview of the round that did not end, whose
// record is missing or invalid on disk, or that lost a turn the candidate
// gave; it reports whether all were sound.
func (s soakRound) check(tb testing.TB) bool {
	tb.Helper()
	ok := true
	fail := func(format string, args ...any) {
		tb.Helper()
		tb.Errorf(format, args...)
		ok = false
	}
	for _, iv := range s.interviews {
		rec := iv.saved
		if iv.getErr != nil {
			fail("%s: the record is lost: %v", iv.name, iv.getErr)
			continue
		}
		if err := rec.Validate(); err != nil {
			fail("%s: the saved record is invalid: %v", iv.name, err)
		}
		if !rec.Status.Finished() {
			fail("%s: saved as %s, want an ended interview", iv.name, rec.Status)
		}
		// Run fails only when the model failed turn after turn, and the
		// record must say so.
		if iv.runErr != nil && (rec.Status != interviews.StatusFailed || rec.EndedBy != interviews.EndedByProviderError(incident.LLM)) {
			fail("%s: Run returned %v, yet the record says %s by %s", iv.name, iv.runErr, rec.Status, rec.EndedBy)
		}
		var heard []string
		for _, t := range rec.Turns {
			if t.Role == interviews.RoleCandidate {
				heard = append(heard, t.Text)
			}
		}
		if !slices.Equal(heard, iv.given) {
			fail("%s: the candidate gave %d answers, the record holds %d: %q", iv.name, len(iv.given), len(heard), heard)
		}
	}
	return ok
}

// soakTotals are a round's figures.
type soakTotals struct {
	Turns         int `json:"turns"`
	Incidents     int `json:"incidents"`
	FallbackTurns int `json:"fallback_turns"`
	Failed        int `json:"failed"`
}

// totals counts the turns, incidents, fallback turns and failed
// interviews of the records read back.
func (s soakRound) totals() soakTotals {
	var t soakTotals
	for _, iv := range s.interviews {
		if iv.saved == nil {
			continue
		}
		t.Turns += len(iv.saved.Turns)
		t.Incidents += len(iv.saved.Incidents)
		for _, turn := range iv.saved.Turns {
			if turn.Fallback != "" {
				t.FallbackTurns++
			}
		}
		if iv.saved.Status == interviews.StatusFailed {
			t.Failed++
		}
	}
	return t
}

// modelFaults are the failures the fake model is given to inject: server
// errors, rate limits with and without a wait longer than the client
// allows, requests never answered, streams that stall, drop or end early
// before or after their first words.
var modelFaults = []fakeopenai.Reply{
	{Status: http.StatusServiceUnavailable},
	{Status: http.StatusTooManyRequests},
	{Status: http.StatusTooManyRequests, RetryAfter: time.Minute},
	{Hang: true},
	{StallAfter: 1},
	{StallAfter: 3},
	{DropAfter: 1},
	{CutMidEvent: 3},
	{EndAfter: 3},
}

// faultInjector answers the fake model's requests: a short interviewer
// reply, or, at the given rate, one of modelFaults. Each interview draws
// from a random sequence of its own (found by the candidate's name in the
// system prompt), so which of its requests fail does not depend on how the
// interviews interleave.
type faultInjector struct {
	rate float64
	seed uint64

	mu              sync.Mutex
	rngs            map[string]*rand.Rand
	requests        int
	injected        map[string]int // faults per candidate name, this round
	injectedEarlier int            // faults of earlier rounds
}

func newFaultInjector(rate float64, seed uint64) *faultInjector {
	return &faultInjector{rate: rate, seed: seed, rngs: map[string]*rand.Rand{}, injected: map[string]int{}}
}

// promptName is the candidate's name in a request's system prompt (see
// stages.DefaultPersona), or "".
func promptName(req fakeopenai.Request) string {
	if len(req.Messages) == 0 {
		return ""
	}
	_, rest, ok := strings.Cut(req.Messages[0].Content, "interview with ")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, " for the ")
	return name
}

// reply is the fake server's ChatFunc.
func (f *faultInjector) reply(req fakeopenai.Request) fakeopenai.Reply {
	name := promptName(req)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests++
	rng := f.rngs[name]
	if rng == nil {
		var h uint64 = 14695981039346656037 // FNV-1a of the name, mixed with the seed
		for i := 0; i < len(name); i++ {
			h = (h ^ uint64(name[i])) * 1099511628211
		}
		rng = rand.New(rand.NewPCG(f.seed, h))
		f.rngs[name] = rng
	}
	users := 0
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			users++
		}
	}
	text := fmt.Sprintf("Thank you for that. Could you walk me through one more detail of it, point %d?", users)
	if rng.Float64() >= f.rate {
		return fakeopenai.Reply{Text: text}
	}
	f.injected[name]++
	fault := modelFaults[rng.IntN(len(modelFaults))]
	if fault.Status == 0 {
		fault.Text = text
	}
	return fault
}

// forget drops the random sequences and per-interview counts of
// interviews that have ended; the totals of counts are kept.
func (f *faultInjector) forget() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range f.injected {
		f.injectedEarlier += n
	}
	clear(f.rngs)
	clear(f.injected)
}

// counts returns the requests served and the faults injected so far.
func (f *faultInjector) counts() (requests, injected int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	injected = f.injectedEarlier
	for _, n := range f.injected {
		injected += n
	}
	return f.requests, injected
}

// injectedInto returns the faults injected into the requests of the
// interview of the named candidate.
func (f *faultInjector) injectedInto(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.injected[name]
}

// TestSoakWithFaults runs interviews at once while a fifth of the model's
// requests fail (server errors, rate limits, hangs, stalls, cuts), under
// testing/synctest so every timeout runs out in fake time: every interview
// ends, its record on disk validates and holds every answer the candidate
// gave, the faults show as incidents and fallback turns, and no goroutine
// is left behind.
func TestSoakWithFaults(t *testing.T) {
	opts := soakOptions{Interviews: 8, Answers: 8, FaultRate: 0.2, Seed: 16, TimeScale: 0.02, Think: 300 * time.Millisecond}
	before := goleak.IgnoreCurrent()
	synctest.Test(t, func(t *testing.T) {
		rig := newSoakRig(t, opts, true)
		defer rig.close()
		res := rig.round(t, t.Context(), 0)
		res.check(t)
		tot := res.totals()
		requests, injected := rig.faults.counts()
		t.Logf("%d interviews: %d turns, %d model requests, %d faults injected, %d incidents, %d fallback turns, %d failed",
			len(res.interviews), tot.Turns, requests, injected, tot.Incidents, tot.FallbackTurns, tot.Failed)
		if injected == 0 {
			t.Fatal("no fault was injected: the soak proves nothing")
		}
		if tot.Incidents == 0 || tot.FallbackTurns == 0 {
			t.Errorf("%d faults injected, yet the records hold %d incidents and %d fallback turns", injected, tot.Incidents, tot.FallbackTurns)
		}
		for _, iv := range res.interviews {
			if iv.saved == nil {
				continue
			}
			fellBack := slices.ContainsFunc(iv.saved.Turns, func(t interviews.Turn) bool { return t.Fallback == soakSecondary })
			hasFallback := slices.ContainsFunc(iv.saved.Incidents, func(i incident.Incident) bool { return i.Kind == incident.Fallback })
			if fellBack && !hasFallback {
				t.Errorf("%s: turns by the %s interviewer with no fallback incident: %+v", iv.name, soakSecondary, iv.saved.Incidents)
			}
			if n := rig.faults.injectedInto(iv.name); n > 0 && len(iv.saved.Incidents) == 0 {
				t.Errorf("%s: %d faults injected into its model requests, no incident recorded", iv.name, n)
			}
		}
	})
	goleak.VerifyNone(t, before)
}

// soakRoundReport is one benchmark round's figures.
type soakRoundReport struct {
	Round      int     `json:"round"`
	Seconds    float64 `json:"seconds"`
	HeapInuse  uint64  `json:"heap_inuse_bytes"`
	HeapAlloc  uint64  `json:"heap_alloc_bytes"`
	Goroutines int     `json:"goroutines"`
	soakTotals
}

// soakReport is what BenchmarkSoak writes.
type soakReport struct {
	Interviews        int               `json:"interviews_per_round"`
	FaultRate         float64           `json:"fault_rate"`
	TimeScale         float64           `json:"time_scale"`
	InterviewsPerSec  float64           `json:"interviews_per_second"`
	ModelRequests     int               `json:"model_requests"`
	FaultsInjected    int               `json:"faults_injected"`
	HeapGrowth        int64             `json:"heap_inuse_growth_bytes"`
	GoroutinesAtStart int               `json:"goroutines_at_start"`
	Rounds            []soakRoundReport `json:"rounds"`
}

// BenchmarkSoak runs rounds of 20 interviews at once, in real time, with a
// fifth of the model's requests failing, and reports interviews per
// second, turns, incidents and fallback turns per round, the heap in use
// after each round (after a collection) and its growth from the first
// round to the last: over a bounded soak it stays flat. Every round's
// records are checked as in TestSoakWithFaults. Run it for a few rounds:
//
//	go test -run '^$' -bench Soak -benchtime 10x ./agent
func BenchmarkSoak(b *testing.B) {
	opts := soakOptions{Interviews: 20, Answers: len(answers), FaultRate: 0.2, Seed: 16, TimeScale: 0.02}
	rig := newSoakRig(b, opts, false)
	defer rig.close()
	report := soakReport{Interviews: opts.Interviews, FaultRate: opts.FaultRate, TimeScale: opts.TimeScale, GoroutinesAtStart: runtime.NumGoroutine()}
	var running time.Duration
	round := 0
	for b.Loop() {
		res := rig.round(b, b.Context(), round)
		running += res.elapsed
		b.StopTimer()
		if !res.check(b) {
			b.FailNow()
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		report.Rounds = append(report.Rounds, soakRoundReport{Round: round, Seconds: res.elapsed.Seconds(),
			HeapInuse: ms.HeapInuse, HeapAlloc: ms.HeapAlloc, Goroutines: runtime.NumGoroutine(), soakTotals: res.totals()})
		round++
		b.StartTimer()
	}
	b.StopTimer()
	report.ModelRequests, report.FaultsInjected = rig.faults.counts()
	report.InterviewsPerSec = float64(round*opts.Interviews) / running.Seconds()
	first, last := report.Rounds[0], report.Rounds[len(report.Rounds)-1]
	report.HeapGrowth = int64(last.HeapInuse) - int64(first.HeapInuse)
	var sum soakTotals
	for _, r := range report.Rounds {
		sum.Turns += r.Turns
		sum.Incidents += r.Incidents
		sum.FallbackTurns += r.FallbackTurns
	}
	n := float64(len(report.Rounds))
	b.ReportMetric(report.InterviewsPerSec, "interviews/s")
	b.ReportMetric(float64(sum.Turns)/n, "turns/round")
	b.ReportMetric(float64(sum.Incidents)/n, "incidents/round")
	b.ReportMetric(float64(sum.FallbackTurns)/n, "fallbacks/round")
	b.ReportMetric(float64(last.HeapInuse), "heap-inuse-B")
	b.ReportMetric(float64(report.HeapGrowth), "heap-growth-B")

	out, err := json.MarshalIndent(report, "", "  ")
	if err != nil {
		b.Fatal(err)
	}
	path := os.Getenv(soakReportEnv)
	if path == "" {
		path = filepath.Join(b.TempDir(), "soak.json")
		b.Logf("soak figures:\n%s", out)
	}
	if err := os.WriteFile(path, append(out, '\n'), 0o644); err != nil {
		b.Fatalf("writing the soak figures: %v", err)
	}
}
