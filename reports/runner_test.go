package reports

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/webhooks"
)

// scriptedGen is a Generator that fails its first failures calls (with an
// error carrying a key, which must not reach the record), then writes a
// small report; with gate set it waits for the gate to close first.
type scriptedGen struct {
	failures int
	gate     chan struct{}

	mu    sync.Mutex
	calls []time.Time
}

func (g *scriptedGen) Generate(ctx context.Context, in Input) (interviews.Report, error) {
	if g.gate != nil {
		select {
		case <-g.gate:
		case <-ctx.Done():
			return interviews.Report{}, ctx.Err()
		}
	}
	g.mu.Lock()
	g.calls = append(g.calls, time.Now())
	n := len(g.calls)
	g.mu.Unlock()
	if n <= g.failures {
		return interviews.Report{}, fmt.Errorf("model answered 503 (request with Authorization: Bearer sk-live-abcdef123456)")
	}
	return interviews.Report{OverallScore: 70 + float64(n), Headline: "Clear answers for " + in.Record.Candidate.Name, Model: "fake:model",
		Competencies: []interviews.Competency{{Name: "communication", Score: 75, Rationale: "clear"}}}, nil
}

func (g *scriptedGen) Calls() []time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.calls)
}

// events records the webhooks a runner sends.
type events struct {
	mu  sync.Mutex
	got []string
}

func (e *events) Notify(event string, rec *interviews.Record) {
	e.mu.Lock()
	defer e.mu.Unlock()
	v := 0
	if rec.Report != nil {
		v = rec.Report.Version
	}
	e.got = append(e.got, fmt.Sprintf("%s v%d", event, v))
}

func (e *events) Got() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.got)
}

func openStore(t *testing.T) interviews.Store {
	t.Helper()
	s, err := filestore.Open(filepath.Join(t.TempDir(), "interviews"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// finished stores a finished interview with the given status and number
// of answers.
func finished(t *testing.T, s interviews.Store, id string, status interviews.Status, answers int) {
	t.Helper()
	start := time.Now().Add(-30 * time.Minute)
	r := &interviews.Record{ID: id, Candidate: interviews.Candidate{Name: "Ada " + id, Role: "Engineer", Level: "senior"}, Blueprint: "default",
		CreatedAt: start, Status: interviews.StatusScheduled}
	r.Start(start)
	for i := range answers {
		r.AppendTurn(interviews.Turn{Role: interviews.RoleAgent, Text: "Question?", StartedAt: start, EndedAt: start})
		r.AppendTurn(interviews.Turn{Role: interviews.RoleCandidate, Text: fmt.Sprintf("Answer %d.", i), StartedAt: start, EndedAt: start})
	}
	r.Finish(status, interviews.EndedClosingDelivered, start.Add(20*time.Minute))
	if err := s.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
}

func newRunner(t *testing.T, opts RunnerOptions) *Runner {
	t.Helper()
	opts.Logger = slog.New(slog.DiscardHandler)
	r, err := NewRunner(opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// start runs r until the test ends.
func start(t *testing.T, r *Runner) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = r.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func get(t *testing.T, s interviews.Store, id string) *interviews.Record {
	t.Helper()
	r, err := s.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func actions(r *interviews.Record) []string {
	var out []string
	for _, e := range r.Audit {
		out = append(out, fmt.Sprintf("%s v%d", e.Action, e.ReportVersion))
	}
	return out
}

// TestRunnerRetriesWithBackoff: a generator that fails twice then succeeds
// is tried at once, after 1 minute and after 5 more; the report is then
// ready with its audit entries in order, the error kept short and free of
// the key, and interview.completed then report.ready sent once each.
func TestRunnerRetriesWithBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := openStore(t)
		finished(t, s, "retry", interviews.StatusCompleted, 3)
		gen := &scriptedGen{failures: 2}
		hooks := &events{}
		var outcomesMu sync.Mutex
		var outcomes []bool // true: written
		r := newRunner(t, RunnerOptions{Store: s, Generator: gen, Webhooks: hooks, OnReport: func(err error) {
			outcomesMu.Lock()
			outcomes = append(outcomes, err == nil)
			outcomesMu.Unlock()
		}})
		t0 := time.Now()
		start(t, r)
		synctest.Wait()

		rec := get(t, s, "retry")
		rep := rec.Report
		if rep == nil || rep.Status != interviews.ReportPending || rep.Attempts != 1 || rep.NextAttempt == nil || !rep.NextAttempt.Equal(t0.Add(time.Minute)) {
			t.Fatalf("after the first failure the report is %+v; want pending, 1 attempt, next at +1m", rep)
		}
		if strings.Contains(rep.Error, "sk-live") || !strings.Contains(rep.Error, "503") {
			t.Errorf("report error = %q: want the failure without the key", rep.Error)
		}

		time.Sleep(time.Minute)
		synctest.Wait()
		if rep := get(t, s, "retry").Report; rep.Attempts != 2 || !rep.NextAttempt.Equal(t0.Add(6*time.Minute)) {
			t.Fatalf("after the second failure the report is %+v; want 2 attempts, next at +6m", rep)
		}
		time.Sleep(5 * time.Minute)
		synctest.Wait()

		rec = get(t, s, "retry")
		rep = rec.Report
		if rep.Status != interviews.ReportReady || rep.Version != 1 || rep.Attempts != 3 || rep.Error != "" || rep.NextAttempt != nil ||
			rep.GeneratedAt == nil || !rep.GeneratedAt.Equal(t0.Add(6*time.Minute)) || rep.OverallScore != 73 || rep.Model != "fake:model" {
			t.Fatalf("report = %+v; want ready, version 1, 3 attempts, generated at +6m", rep)
		}
		want := []time.Time{t0, t0.Add(time.Minute), t0.Add(6 * time.Minute)}
		if got := gen.Calls(); !slices.EqualFunc(got, want, time.Time.Equal) {
			t.Errorf("generator called at %v, want %v", got, want)
		}
		if got, want := actions(rec), []string{"report.failed v1", "report.failed v1", "report.generated v1"}; !slices.Equal(got, want) {
			t.Errorf("audit = %v, want %v", got, want)
		}
		for _, e := range rec.Audit {
			if strings.Contains(e.Detail, "sk-live") || e.Who != interviews.AuditSystem {
				t.Errorf("audit entry %+v", e)
			}
		}
		if last := rec.Audit[2]; last.Model != "fake:model" {
			t.Errorf("the generation's audit entry names model %q", last.Model)
		}
		if got, want := hooks.Got(), []string{"interview.completed v1", "report.ready v1"}; !slices.Equal(got, want) {
			t.Errorf("webhooks = %v, want %v", got, want)
		}

		time.Sleep(time.Hour) // nothing more happens
		synctest.Wait()
		if n := len(gen.Calls()); n != 3 {
			t.Errorf("generator called %d times in all, want 3", n)
		}
		outcomesMu.Lock()
		defer outcomesMu.Unlock()
		if want := []bool{false, false, true}; !slices.Equal(outcomes, want) {
			t.Errorf("OnReport outcomes (written?) = %v, want %v", outcomes, want)
		}
	})
}

// TestRunnerGivesUp: after four failed attempts (now, +1m, +5m, +30m)
// the report is failed, and a request makes a new version that succeeds.
func TestRunnerGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := openStore(t)
		finished(t, s, "fails", interviews.StatusCompleted, 4)
		gen := &scriptedGen{failures: 4}
		r := newRunner(t, RunnerOptions{Store: s, Generator: gen})
		start(t, r)
		time.Sleep(2 * time.Hour)
		synctest.Wait()
		rec := get(t, s, "fails")
		if rep := rec.Report; rep.Status != interviews.ReportFailed || rep.Attempts != 4 || rep.NextAttempt != nil || rep.Error == "" {
			t.Fatalf("report = %+v, want failed after 4 attempts", rep)
		}
		if n := len(gen.Calls()); n != 4 {
			t.Errorf("generator called %d times, want 4", n)
		}
		if err := r.Request(t.Context(), "fails", "rev@example.com"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		rec = get(t, s, "fails")
		if rep := rec.Report; rep.Status != interviews.ReportReady || rep.Version != 2 || rep.Attempts != 1 {
			t.Fatalf("after the request the report is %+v; want version 2 ready", rep)
		}
		want := []string{"report.failed v1", "report.failed v1", "report.failed v1", "report.failed v1", "report.regenerate_requested v2", "report.generated v2"}
		if got := actions(rec); !slices.Equal(got, want) {
			t.Errorf("audit = %v, want %v", got, want)
		}
		if rec.Audit[4].Who != "rev@example.com" {
			t.Errorf("the request is audited as by %q", rec.Audit[4].Who)
		}
	})
}

// TestRunnerRegenerates: a request bumps the version of a ready report,
// keeps the earlier audit entries and sends report.ready for the new
// version; a request on an interview that gets no report is refused.
func TestRunnerRegenerates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := openStore(t)
		finished(t, s, "regen", interviews.StatusCompleted, 3)
		finished(t, s, "short", interviews.StatusCandidateLeft, 2)
		finished(t, s, "broke", interviews.StatusFailed, 5)
		gen := &scriptedGen{}
		hooks := &events{}
		r := newRunner(t, RunnerOptions{Store: s, Generator: gen, Webhooks: hooks})
		start(t, r)
		synctest.Wait()
		first := get(t, s, "regen")
		if first.Report.Status != interviews.ReportReady || first.Report.Version != 1 {
			t.Fatalf("report = %+v", first.Report)
		}
		time.Sleep(time.Minute)
		if err := r.Request(t.Context(), "regen", "rev@example.com"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		rec := get(t, s, "regen")
		if rep := rec.Report; rep.Status != interviews.ReportReady || rep.Version != 2 || rep.OverallScore != 72 {
			t.Fatalf("regenerated report = %+v; want version 2 from the second call", rep)
		}
		if got, want := actions(rec), []string{"report.generated v1", "report.regenerate_requested v2", "report.generated v2"}; !slices.Equal(got, want) {
			t.Errorf("audit = %v, want %v", got, want)
		}
		if !rec.Audit[0].At.Equal(first.Audit[0].At) || rec.Audit[0].Detail != first.Audit[0].Detail {
			t.Errorf("the first audit entry changed: %+v, was %+v", rec.Audit[0], first.Audit[0])
		}
		if got, want := hooks.Got(), []string{"interview.completed v1", "report.ready v1", "report.ready v2"}; !slices.Equal(got, want) {
			t.Errorf("webhooks = %v, want %v", got, want)
		}
		for _, id := range []string{"short", "broke"} {
			if rec := get(t, s, id); rec.Report != nil {
				t.Errorf("%s got a report: %+v", id, rec.Report)
			}
			if err := r.Request(t.Context(), id, "rev@example.com"); !errors.Is(err, ErrNotDue) {
				t.Errorf("Request(%s) = %v, want ErrNotDue", id, err)
			}
		}
		if err := r.Request(t.Context(), "nosuch", "rev@example.com"); !errors.Is(err, interviews.ErrNotFound) {
			t.Errorf("Request(nosuch) = %v, want ErrNotFound", err)
		}
	})
}

// TestTwoRunnersGenerateOnce: two runners sharing a store (two processes)
// generate a report once: the second finds the interview's lease taken.
func TestTwoRunnersGenerateOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := openStore(t)
		finished(t, s, "shared", interviews.StatusCompleted, 3)
		gate := make(chan struct{})
		gen := &scriptedGen{gate: gate}
		hooks := &events{}
		a := newRunner(t, RunnerOptions{Store: s, Generator: gen, Webhooks: hooks, Owner: "report a"})
		b := newRunner(t, RunnerOptions{Store: s, Generator: gen, Webhooks: hooks, Owner: "report b"})
		start(t, a)
		start(t, b)
		synctest.Wait() // one runner waits in the generator, the other found the lease held
		time.Sleep(3 * DefaultPollInterval)
		synctest.Wait()
		close(gate)
		synctest.Wait()
		time.Sleep(time.Hour)
		synctest.Wait()
		if n := len(gen.Calls()); n != 1 {
			t.Errorf("the report was generated %d times, want once", n)
		}
		rec := get(t, s, "shared")
		if rec.Report.Status != interviews.ReportReady || len(rec.Audit) != 1 {
			t.Errorf("report %+v, audit %v", rec.Report, actions(rec))
		}
		if got, want := hooks.Got(), []string{"interview.completed v1", "report.ready v1"}; !slices.Equal(got, want) {
			t.Errorf("webhooks = %v, want %v", got, want)
		}
	})
}

// TestRunnerWaitsForTheSession: an interview whose session still holds
// its lease (writing its last words) is left alone until the lease goes.
func TestRunnerWaitsForTheSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := openStore(t)
		finished(t, s, "held", interviews.StatusCompleted, 3)
		if _, err := s.AcquireLease(t.Context(), "held", "worker w1", time.Minute); err != nil {
			t.Fatal(err)
		}
		gen := &scriptedGen{}
		r := newRunner(t, RunnerOptions{Store: s, Generator: gen})
		start(t, r)
		time.Sleep(30 * time.Second)
		synctest.Wait()
		if rec := get(t, s, "held"); rec.Report != nil || len(gen.Calls()) != 0 {
			t.Fatalf("a report was started while the session held the interview: %+v", rec.Report)
		}
		if err := s.ReleaseLease(t.Context(), "held", "worker w1"); err != nil {
			t.Fatal(err)
		}
		r.Wake()
		synctest.Wait()
		if rec := get(t, s, "held"); rec.Report == nil || rec.Report.Status != interviews.ReportReady {
			t.Fatalf("report after the session ended = %+v", rec.Report)
		}
		if _, held, _ := s.Lease(t.Context(), "held"); held {
			t.Error("the runner kept the interview's lease")
		}
	})
}

// TestRunnerSurvivesBadGenerators: a generator that panics or returns an
// out-of-range score counts as a failed attempt.
func TestRunnerSurvivesBadGenerators(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := openStore(t)
		finished(t, s, "bad", interviews.StatusCompleted, 3)
		r := newRunner(t, RunnerOptions{Store: s, Generator: badGen{}, Webhooks: (*webhooks.Sender)(nil)})
		start(t, r)
		synctest.Wait()
		rep := get(t, s, "bad").Report
		if rep.Status != interviews.ReportPending || rep.Attempts != 1 || !strings.Contains(rep.Error, "not valid") {
			t.Errorf("report after an invalid one = %+v", rep)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		rep = get(t, s, "bad").Report
		if rep.Attempts != 2 || !strings.Contains(rep.Error, "boom") {
			t.Errorf("report after a panic = %+v", rep)
		}
	})
}

type badGen struct{}

func (badGen) Generate(ctx context.Context, in Input) (interviews.Report, error) {
	if in.Record.Report.Attempts == 0 {
		return interviews.Report{OverallScore: 130}, nil
	}
	panic("boom")
}

// TestWithFallback: a failing primary is replaced by the fallback's
// report, and the failure is reported.
func TestWithFallback(t *testing.T) {
	var told []error
	g := WithFallback(&scriptedGen{failures: 1}, Basic{}, func(err error) { told = append(told, err) })
	rec := &interviews.Record{ID: "fb", Candidate: interviews.Candidate{Name: "Ada", Role: "Engineer"}, Status: interviews.StatusCompleted}
	rep, err := g.Generate(context.Background(), Input{Record: rec})
	if err != nil || !rep.Basic || len(told) != 1 {
		t.Fatalf("first report = %+v, %v (told %v); want the basic report", rep, err, told)
	}
	rep, err = g.Generate(context.Background(), Input{Record: rec})
	if err != nil || rep.Basic || rep.Model != "fake:model" || len(told) != 1 {
		t.Fatalf("second report = %+v, %v; want the primary's", rep, err)
	}
}

// TestRunnerGenerate: Generate writes a due interview's report at once,
// as Run would (ready, audited, the webhooks sent), returns a ready one
// as it is, says ErrNotDue for an interview without one and, when the
// attempt fails, returns the error and leaves the report pending with
// its retry scheduled.
func TestRunnerGenerate(t *testing.T) {
	s := openStore(t)
	finished(t, s, "done", interviews.StatusCompleted, 3)
	finished(t, s, "early", interviews.StatusCandidateLeft, 1)
	finished(t, s, "flaky", interviews.StatusCompleted, 3)
	hooks := &events{}
	gen := &scriptedGen{}
	r := newRunner(t, RunnerOptions{Store: s, Generator: gen, Webhooks: hooks})

	rep, err := r.Generate(t.Context(), "done")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != interviews.ReportReady || rep.Version != 1 || rep.Attempts != 1 || rep.Headline != "Clear answers for Ada done" {
		t.Errorf("report %+v, want ready, version 1, first attempt", rep)
	}
	if rec := get(t, s, "done"); rec.Report == nil || rec.Report.Status != interviews.ReportReady ||
		!slices.Equal(actions(rec), []string{interviews.AuditReportGenerated + " v1"}) {
		t.Errorf("saved report %+v, audit %q", rec.Report, actions(rec))
	}
	if got, want := hooks.Got(), []string{interviews.EventInterviewCompleted + " v1", interviews.EventReportReady + " v1"}; !slices.Equal(got, want) {
		t.Errorf("webhooks %q, want %q", got, want)
	}
	again, err := r.Generate(t.Context(), "done")
	if err != nil || again.Attempts != 1 || len(gen.Calls()) != 1 {
		t.Errorf("second Generate: %+v, %v, %d calls; want the ready report as it is", again, err, len(gen.Calls()))
	}

	if _, err := r.Generate(t.Context(), "early"); !errors.Is(err, ErrNotDue) {
		t.Errorf("Generate of an interview left after one answer: %v, want ErrNotDue", err)
	}

	gen.failures = 2 // the next call fails
	if _, err := r.Generate(t.Context(), "flaky"); err == nil {
		t.Errorf("Generate with a failing generator: %v, want its error", err)
	}
	if rec := get(t, s, "flaky"); rec.Report == nil || rec.Report.Status != interviews.ReportPending || rec.Report.NextAttempt == nil {
		t.Errorf("report after a failed attempt %+v, want pending with a retry scheduled", rec.Report)
	}
}

// textsGen is a Generator that notes whether the record it was given still
// held the résumé text.
type textsGen struct {
	mu      sync.Mutex
	resumes []string
}

func (g *textsGen) Generate(ctx context.Context, in Input) (interviews.Report, error) {
	g.mu.Lock()
	g.resumes = append(g.resumes, in.Record.ResumeText)
	n := len(g.resumes)
	g.mu.Unlock()
	if n == 1 {
		return interviews.Report{}, errors.New("model answered 503")
	}
	return interviews.Report{OverallScore: 60, Headline: "Fine", Model: "fake:model"}, nil
}

// TestRunnerDropsTexts: with DropTexts, the job description, résumé and
// brief stay while the report is pending (a retry needs them), go in the
// write that makes it ready, with the time and reason in the record and
// an audit entry; a regenerated report is still written. Without it they
// stay.
func TestRunnerDropsTexts(t *testing.T) {
	for _, drop := range []bool{true, false} {
		t.Run(fmt.Sprint("drop=", drop), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := openStore(t)
				finished(t, s, "texts", interviews.StatusCompleted, 3)
				if _, err := s.Update(t.Context(), "texts", func(r *interviews.Record) error {
					r.JobDescription, r.ResumeText, r.ResumeSummary, r.Brief = "Build things.", "Ada's CV", "Programmer.", "# Topics"
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				gen := &textsGen{}
				r := newRunner(t, RunnerOptions{Store: s, Generator: gen, DropTexts: drop})
				start(t, r)
				synctest.Wait()
				if rec := get(t, s, "texts"); rec.Report.Status != interviews.ReportPending || rec.ResumeText == "" || rec.TextsDropped != nil {
					t.Fatalf("after a failed attempt: report %s, résumé %q, dropped %+v; want pending with the texts kept", rec.Report.Status, rec.ResumeText, rec.TextsDropped)
				}
				time.Sleep(time.Minute)
				synctest.Wait()
				readyAt := time.Now().UTC()
				rec := get(t, s, "texts")
				if rec.Report.Status != interviews.ReportReady {
					t.Fatalf("report = %+v, want ready", rec.Report)
				}
				kept := rec.JobDescription != "" || rec.ResumeText != "" || rec.ResumeSummary != "" || rec.Brief != ""
				if drop {
					if kept || rec.TextsDropped == nil || !rec.TextsDropped.At.Equal(readyAt) || rec.TextsDropped.Reason != interviews.DropReasonReportReady {
						t.Fatalf("texts kept %v, dropped %+v; want them gone at %v for %q", kept, rec.TextsDropped, readyAt, interviews.DropReasonReportReady)
					}
					if got, want := actions(rec), []string{"report.failed v1", "report.generated v1", "texts.dropped v1"}; !slices.Equal(got, want) {
						t.Errorf("audit = %v, want %v", got, want)
					}
					if err := r.Request(t.Context(), "texts", "rev@example.com"); err != nil {
						t.Fatal(err)
					}
					synctest.Wait()
					if rec := get(t, s, "texts"); rec.Report.Status != interviews.ReportReady || rec.Report.Version != 2 {
						t.Fatalf("regenerated report = %+v, want version 2 ready", rec.Report)
					}
					if got, want := gen.resumes, []string{"Ada's CV", "Ada's CV", ""}; !slices.Equal(got, want) {
						t.Errorf("the generator saw résumés %q, want %q", got, want)
					}
					return
				}
				if !kept || rec.ResumeText != "Ada's CV" || rec.TextsDropped != nil {
					t.Fatalf("without DropTexts: résumé %q, dropped %+v; want the texts kept", rec.ResumeText, rec.TextsDropped)
				}
			})
		})
	}
}

// TestRunnerDropsTextsOfEarlierReports: a record whose report was ready
// before texts were dropped (an older viva, or the setting off) loses its
// texts at the next scan, its report untouched; a record without a ready
// report keeps them.
func TestRunnerDropsTextsOfEarlierReports(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := openStore(t)
		finished(t, s, "old", interviews.StatusCompleted, 3)
		finished(t, s, "short", interviews.StatusCandidateLeft, 1)
		ready := time.Now().Add(-time.Hour).UTC()
		for _, id := range []string{"old", "short"} {
			if _, err := s.Update(t.Context(), id, func(r *interviews.Record) error {
				r.ResumeText, r.JobDescription = "Ada's CV", "Build things."
				if id == "old" {
					r.Report = &interviews.Report{Status: interviews.ReportReady, Version: 1, OverallScore: 64, GeneratedAt: &ready}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		gen := &scriptedGen{}
		start(t, newRunner(t, RunnerOptions{Store: s, Generator: gen, DropTexts: true}))
		synctest.Wait()
		rec := get(t, s, "old")
		if rec.HasServerTexts() || rec.TextsDropped == nil || !rec.TextsDropped.At.Equal(time.Now().UTC()) {
			t.Fatalf("texts kept %v, dropped %+v; want them gone now", rec.HasServerTexts(), rec.TextsDropped)
		}
		if rec.Report.OverallScore != 64 || rec.Report.Version != 1 || len(gen.Calls()) != 0 {
			t.Errorf("the report changed: %+v, %d generations", rec.Report, len(gen.Calls()))
		}
		if got, want := actions(rec), []string{"texts.dropped v1"}; !slices.Equal(got, want) {
			t.Errorf("audit = %v, want %v", got, want)
		}
		if rec := get(t, s, "short"); rec.ResumeText != "Ada's CV" || rec.TextsDropped != nil {
			t.Errorf("an interview without a report lost its texts: %q, %+v", rec.ResumeText, rec.TextsDropped)
		}
	})
}
