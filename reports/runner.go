package reports

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/viva-interviews/viva/interviews"
)

// Runner defaults, applied by NewRunner to zero RunnerOptions fields.
const (
	// DefaultPollInterval is how often the Runner looks for interviews
	// that ended.
	DefaultPollInterval = 5 * time.Second
	// DefaultGenerateTimeout bounds one generation.
	DefaultGenerateTimeout = 3 * time.Minute
	// leaseMargin is how much longer than a generation the Runner holds
	// an interview's lease.
	leaseMargin = time.Minute
	// maxErrorLen bounds the error kept in a report and its audit entry.
	maxErrorLen = 200
)

// DefaultBackoff are the waits before the second, third and fourth
// attempts at a report; after the fourth fails the report is failed.
var DefaultBackoff = []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute}

// ErrNotDue means an interview gets no report: it has not ended, it
// failed, or the candidate left before answering MinAnswers questions.
// Besides errors.Is, callers that do not import this package recognise it
// by its NotDue method.
var ErrNotDue error = notDueError{}

type notDueError struct{}

func (notDueError) Error() string {
	return "reports: this interview gets no report: only interviews that completed, or that the candidate left after answering at least three questions, have one"
}

// NotDue marks the error as ErrNotDue.
func (notDueError) NotDue() bool { return true }

// RunnerOptions configures a Runner. Store and Generator are required.
type RunnerOptions struct {
	// Store holds the records; the Runner writes their report and audit
	// with Store.Update under each interview's lease.
	Store interviews.Store
	// Generator writes the reports.
	Generator Generator
	// Designs is the design library the blueprint an interview followed
	// comes from, at the record's version (default: the built-in designs
	// and those installed in Store). A blueprint it cannot give leaves the
	// generator without one (it then scores DefaultCompetencies).
	Designs interviews.Designs
	// Webhooks receives interview.completed and report.ready; nil sends
	// nothing.
	Webhooks interviews.Notifier
	// Logger receives the Runner's logs (default slog.Default()).
	Logger *slog.Logger
	// Now is the clock of the records' times (default time.Now).
	Now func() time.Time
	// PollInterval is how often the store is scanned (default
	// DefaultPollInterval); Wake scans at once.
	PollInterval time.Duration
	// Backoff are the waits between attempts (default DefaultBackoff);
	// a report fails after len(Backoff)+1 attempts.
	Backoff []time.Duration
	// GenerateTimeout bounds one generation (default
	// DefaultGenerateTimeout).
	GenerateTimeout time.Duration
	// OnReport, when set, is told the outcome of every attempt at a
	// report once it is saved: nil for a report written, the error for
	// an attempt that failed (metrics count them). It must not block.
	OnReport func(err error)
	// Owner names this Runner in the interviews' leases (default
	// "report <host>:<pid>"); two Runners sharing a store need different
	// owners.
	Owner string
	// DropTexts removes the record's server-side texts (job description,
	// résumé text and summary, brief) in the same write that makes its
	// report ready, noting it in the record and its audit list: the texts
	// served the interview and the report, and are not kept longer. A
	// regenerated report reads the transcript and the analyses, not them.
	DropTexts bool
}

// Runner generates the report of every interview that ends, in the
// background: it finds finished interviews that are Due and have no
// report (or a pending one whose retry time has come), generates the
// report under the interview's lease, so one process at a time does, and
// writes it ready, or schedules a retry, or marks it failed. Every
// generation and failure is appended to the record's audit list.
type Runner struct {
	store    interviews.Store
	gen      Generator
	designs  interviews.Designs
	hooks    interviews.Notifier
	onReport func(error) // nil: outcomes are only logged
	log      *slog.Logger
	now      func() time.Time
	poll     time.Duration
	backoff  []time.Duration
	timeout  time.Duration
	owner    string
	drop     bool
	leaseTTL time.Duration
	wake     chan struct{}

	mu sync.Mutex
	// settled are the records last seen needing nothing, by id, with their
	// revision then (Summary.Revision): unchanged records are not read again.
	settled map[string]string
}

// NewRunner checks opts and returns a Runner; call Run to start it.
func NewRunner(opts RunnerOptions) (*Runner, error) {
	if opts.Store == nil || opts.Generator == nil {
		return nil, errors.New("reports: a runner needs a store and a generator")
	}
	if opts.PollInterval < 0 || opts.GenerateTimeout < 0 {
		return nil, errors.New("reports: the poll interval and the generation timeout must not be negative")
	}
	r := &Runner{store: opts.Store, gen: opts.Generator, designs: opts.Designs, hooks: opts.Webhooks, onReport: opts.OnReport, log: opts.Logger,
		now: opts.Now, poll: opts.PollInterval, backoff: opts.Backoff, timeout: opts.GenerateTimeout, owner: opts.Owner,
		drop: opts.DropTexts, wake: make(chan struct{}, 1), settled: map[string]string{}}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.now == nil {
		r.now = time.Now
	}
	if r.poll == 0 {
		r.poll = DefaultPollInterval
	}
	if r.backoff == nil {
		r.backoff = DefaultBackoff
	}
	if r.timeout == 0 {
		r.timeout = DefaultGenerateTimeout
	}
	if r.owner == "" {
		host, _ := os.Hostname()
		r.owner = "report " + host + ":" + strconv.Itoa(os.Getpid())
	}
	r.leaseTTL = r.timeout + leaseMargin
	return r, nil
}

// MaxAttempts is how many times the Runner tries a report before it is
// failed.
func (r *Runner) MaxAttempts() int { return len(r.backoff) + 1 }

// Run scans the store every PollInterval (at once on Wake, and when a
// retry falls due) and generates the reports due, until ctx ends. It
// returns ctx's error.
func (r *Runner) Run(ctx context.Context) error {
	for {
		next := r.scan(ctx)
		wait := r.poll
		if !next.IsZero() {
			wait = min(wait, max(next.Sub(r.now()), 0))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-r.wake:
			t.Stop()
		case <-t.C:
		}
	}
}

// Wake makes Run scan the store now (an interview just ended, or a
// report was requested).
func (r *Runner) Wake() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// scan generates every report due and returns the earliest retry time
// still ahead (zero for none).
func (r *Runner) scan(ctx context.Context) time.Time {
	var next time.Time
	later := func(t *time.Time) {
		if t != nil && (next.IsZero() || t.Before(next)) {
			next = *t
		}
	}
	for offset := 0; ctx.Err() == nil; offset += interviews.MaxListLimit {
		page, err := r.store.List(ctx, interviews.ListOptions{Offset: offset, Limit: interviews.MaxListLimit})
		if err != nil {
			r.log.Error("reports: listing interviews", "err", err)
			return next
		}
		for _, sum := range page.Items {
			if ctx.Err() != nil {
				return next
			}
			if sum.Status.Finished() {
				later(r.consider(ctx, sum.ID, sum.Revision))
			}
		}
		if offset+len(page.Items) >= page.Total || len(page.Items) == 0 {
			break
		}
	}
	return next
}

// consider generates the report of one finished interview if it is due,
// and returns its retry time when one is scheduled ahead.
func (r *Runner) consider(ctx context.Context, id, stamp string) *time.Time {
	ok := stamp != ""
	r.mu.Lock()
	settled := ok && r.settled[id] == stamp
	r.mu.Unlock()
	if settled {
		return nil
	}
	rec, err := r.store.Get(ctx, id)
	if err != nil {
		if !errors.Is(err, interviews.ErrNotFound) {
			r.log.Error("reports: reading an interview", "interview_id", id, "err", err)
		}
		return nil
	}
	switch work, retry := r.due(rec); {
	case retry != nil:
		return retry
	case !work:
		r.dropLeftTexts(ctx, rec)
		r.mu.Lock()
		if ok {
			r.settled[id] = stamp
		}
		r.mu.Unlock()
		return nil
	}
	return r.generate(ctx, id)
}

// due says whether rec's report is to be generated now, or else when its
// retry is scheduled.
func (r *Runner) due(rec *interviews.Record) (now bool, retry *time.Time) {
	if !Due(rec) {
		return false, nil
	}
	rep := rec.Report
	switch {
	case rep == nil:
		return true, nil
	case rep.Status != interviews.ReportPending:
		return false, nil
	case rep.NextAttempt != nil && r.now().Before(*rep.NextAttempt):
		return false, rep.NextAttempt
	}
	return true, nil
}

// generate makes one attempt at id's report under its lease and returns
// the retry time it scheduled, if any.
func (r *Runner) generate(ctx context.Context, id string) *time.Time {
	return r.attempt(ctx, id).retry
}

// Generate writes id's report now, in one attempt, as Run does when the
// interview falls due (under its lease, with the audit entry and the
// retry schedule), and returns the report as saved. A pending report is
// tried now; a ready or failed one is returned as it is. It returns
// ErrNotDue when the interview gets no report, and the attempt's error
// when it failed: the report then stays pending and Run tries it again.
// viva chat calls it when its interview ends, so a practice run in the
// terminal gets its report without a running web app.
func (r *Runner) Generate(ctx context.Context, id string) (*interviews.Report, error) {
	rec, err := r.store.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("reports: reading the interview: %w", err)
	}
	if !Due(rec) {
		return nil, ErrNotDue
	}
	if rec.Report != nil && rec.Report.Status != interviews.ReportPending {
		return rec.Report, nil
	}
	o := r.attempt(ctx, id)
	if o.err != nil {
		return nil, o.err
	}
	if o.saved == nil || o.saved.Report == nil {
		// Another runner wrote it meanwhile: read what it wrote.
		if rec, err = r.store.Get(ctx, id); err != nil {
			return nil, fmt.Errorf("reports: reading the interview: %w", err)
		}
		return rec.Report, nil
	}
	return o.saved.Report, nil
}

// outcome is what one attempt at a report came to: the record as saved
// (nil when nothing was saved), the retry time it scheduled and, when the
// attempt failed, why.
type outcome struct {
	saved *interviews.Record
	retry *time.Time
	err   error
}

// attempt makes one attempt at id's report under its lease.
func (r *Runner) attempt(ctx context.Context, id string) outcome {
	log := r.log.With("interview_id", id)
	if _, err := r.store.AcquireLease(ctx, id, r.owner, r.leaseTTL); err != nil {
		if errors.Is(err, interviews.ErrLeaseHeld) {
			log.Debug("reports: the interview is held by another session; trying later", "err", err)
		} else {
			log.Error("reports: taking the interview's lease", "err", err)
		}
		return outcome{err: fmt.Errorf("reports: taking the interview's lease: %w", err)}
	}
	defer func() {
		// Released also when the runner stops, so the next one need not
		// wait for the lease to lapse.
		if err := r.store.ReleaseLease(context.WithoutCancel(ctx), id, r.owner); err != nil {
			log.Error("reports: releasing the interview's lease", "err", err)
		}
	}()

	rec, o, due := r.pending(ctx, id, log)
	if !due {
		return o
	}
	version := rec.Report.Version

	content, genErr := r.run(ctx, rec)
	if ctx.Err() != nil {
		// Stopping: the report stays pending and is tried at the next start.
		return outcome{err: fmt.Errorf("reports: %w", ctx.Err())}
	}
	if genErr == nil {
		content.Status = interviews.ReportReady
		content.Version = version
		content.Attempts = rec.Report.Attempts + 1
		content.Error, content.NextAttempt = "", nil
		if err := content.Validate(); err != nil {
			genErr = fmt.Errorf("the generated report is not valid: %w", err)
		}
	}
	var retry *time.Time
	saved, err := r.store.Update(ctx, id, func(rec *interviews.Record) error {
		var err error
		retry, err = r.record(rec, version, &content, genErr)
		return err
	})
	switch {
	case errors.Is(err, errUnchanged):
		return outcome{}
	case err != nil:
		log.Error("reports: saving the report", "err", err)
		return outcome{err: fmt.Errorf("reports: saving the report: %w", err)}
	case genErr != nil:
		log.Warn("reports: generating the report failed", "version", version, "attempts", saved.Report.Attempts, "err", saved.Report.Error)
		if r.onReport != nil {
			r.onReport(genErr)
		}
		return outcome{saved: saved, retry: retry, err: fmt.Errorf("reports: generating the report: %w", genErr)}
	}
	log.Info("reports: report ready", "version", version, "by", writer(saved.Report))
	if r.onReport != nil {
		r.onReport(nil)
	}
	if r.hooks != nil {
		r.hooks.Notify(interviews.EventReportReady, saved)
	}
	return outcome{saved: saved}
}

// pending reads id again under its lease (another runner may have written
// the report since the scan) and marks its first report pending. It
// returns the record and whether a report is still due; when not, the
// outcome says why.
func (r *Runner) pending(ctx context.Context, id string, log *slog.Logger) (*interviews.Record, outcome, bool) {
	first := false
	rec, err := r.store.Update(ctx, id, func(rec *interviews.Record) error {
		if work, _ := r.due(rec); !work {
			return errUnchanged
		}
		if rec.Report == nil {
			rec.Report = &interviews.Report{Status: interviews.ReportPending, Version: 1}
			first = true
			return nil
		}
		return errUnchanged
	})
	switch {
	case errors.Is(err, errUnchanged):
		if rec, err = r.store.Get(ctx, id); err != nil {
			log.Error("reports: reading the interview", "err", err)
			return nil, outcome{err: fmt.Errorf("reports: reading the interview: %w", err)}, false
		}
		if work, _ := r.due(rec); !work {
			return nil, outcome{}, false
		}
	case err != nil:
		log.Error("reports: marking the report pending", "err", err)
		return nil, outcome{err: fmt.Errorf("reports: marking the report pending: %w", err)}, false
	}
	if first && r.hooks != nil {
		r.hooks.Notify(interviews.EventInterviewCompleted, rec)
	}
	return rec, outcome{}, true
}

// record puts the attempt at report version into rec: the report content
// when genErr is nil, else the failure and when to try again (retry, nil
// after the last attempt). It returns errUnchanged when a regeneration was
// requested meanwhile.
func (r *Runner) record(rec *interviews.Record, version int, content *interviews.Report, genErr error) (retry *time.Time, err error) {
	rep := rec.Report
	if rep == nil || rep.Version != version || rep.Status != interviews.ReportPending {
		return nil, errUnchanged // a regeneration was requested meanwhile
	}
	now := r.now().UTC().Round(0)
	if genErr == nil {
		content.GeneratedAt = &now
		rec.Report = content
		rec.Audit = append(rec.Audit, interviews.AuditEntry{At: now, Who: interviews.AuditSystem, Action: interviews.AuditReportGenerated,
			Detail: fmt.Sprintf("report version %d by %s, attempt %d", version, writer(content), content.Attempts), ReportVersion: version, Model: content.Model})
		if r.drop {
			dropTexts(rec, now)
		}
		return nil, nil
	}
	rep.Attempts++
	rep.Error = shortError(genErr)
	detail := fmt.Sprintf("attempt %d of %d failed: %s", rep.Attempts, r.MaxAttempts(), rep.Error)
	if rep.Attempts >= r.MaxAttempts() {
		rep.Status, rep.NextAttempt = interviews.ReportFailed, nil
		detail += "; no more attempts: regenerate it from the reviewer page"
	} else {
		at := now.Add(r.backoff[rep.Attempts-1])
		rep.NextAttempt, retry = &at, &at
		detail += "; next attempt at " + at.Format(time.RFC3339)
	}
	rec.Audit = append(rec.Audit, interviews.AuditEntry{At: now, Who: interviews.AuditSystem, Action: interviews.AuditReportFailed,
		Detail: detail, ReportVersion: version})
	return retry, nil
}

// dropTexts removes rec's server-side texts, once its report is ready, and
// notes it in the audit list; it reports whether there were any.
func dropTexts(rec *interviews.Record, now time.Time) bool {
	if rec.Report == nil || rec.Report.Status != interviews.ReportReady || !rec.DropServerTexts(now, interviews.DropReasonReportReady) {
		return false
	}
	rec.Audit = append(rec.Audit, interviews.AuditEntry{At: now, Who: interviews.AuditSystem, Action: interviews.AuditTextsDropped,
		Detail: "job description, résumé and brief removed: the report is ready", ReportVersion: rec.Report.Version})
	return true
}

// dropLeftTexts removes the texts of a record whose report was ready
// before DropTexts was on (written by an older viva, or with the setting
// off), so they go at the next scan as they would have with the report.
func (r *Runner) dropLeftTexts(ctx context.Context, rec *interviews.Record) {
	if !r.drop || rec.Report == nil || rec.Report.Status != interviews.ReportReady || !rec.HasServerTexts() {
		return
	}
	_, err := r.store.Update(ctx, rec.ID, func(rec *interviews.Record) error {
		if !dropTexts(rec, r.now().UTC().Round(0)) {
			return errUnchanged
		}
		return nil
	})
	if err != nil && !errors.Is(err, errUnchanged) && !errors.Is(err, interviews.ErrNotFound) {
		r.log.Error("reports: removing the texts of a reported interview", "interview_id", rec.ID, "err", err)
	}
}

// errUnchanged stops an update that has nothing to change.
var errUnchanged = errors.New("reports: nothing to change")

// run calls the generator with a time limit, turning a panic into an
// error so one bad record never stops the Runner.
func (r *Runner) run(ctx context.Context, rec *interviews.Record) (rep interviews.Report, err error) {
	in := Input{Record: rec}
	designs := r.designs
	if designs == nil {
		designs = interviews.Library{Store: r.store}
	}
	if o, err := interviews.OpenDesigns(ctx, designs, rec.Clone()); err != nil {
		r.log.Warn("reports: the interview's blueprint is not in the design library; reporting without it", "interview_id", rec.ID, "blueprint", rec.Blueprint, "err", err)
	} else {
		in.Blueprint = o.Blueprint
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the report generator failed: %v", v)
		}
	}()
	rep, err = r.gen.Generate(ctx, in)
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("no report within %s: %w", r.timeout, err)
	}
	return rep, err
}

// writer names what wrote a report, for the audit list.
func writer(rep *interviews.Report) string {
	if rep.Model != "" {
		return rep.Model
	}
	return "the basic report"
}

// secretLike matches what might be a key or a token in an error text.
var secretLike = regexp.MustCompile(`(?i)(sk-[a-z0-9_-]{6,}|bearer\s+\S+|(api[_-]?key|token|secret|password)=\S+)`)

// shortError is err's text on one line, cut to maxErrorLen characters,
// with anything that looks like a key or a token hidden.
func shortError(err error) string {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	msg = secretLike.ReplaceAllString(msg, "[hidden]")
	if rs := []rune(msg); len(rs) > maxErrorLen {
		msg = string(rs[:maxErrorLen]) + "…"
	}
	return msg
}

// Request regenerates id's report: a ready or failed report becomes a new
// pending version, a pending one is tried now; the request is appended to
// the audit list as by who. It wakes Run and returns at once; ErrNotDue
// when the interview gets no report, interviews.ErrNotFound for an
// unknown id.
func (r *Runner) Request(ctx context.Context, id, who string) error {
	_, err := r.store.Update(ctx, id, func(rec *interviews.Record) error {
		if !Due(rec) {
			return ErrNotDue
		}
		rep := rec.Report
		if rep == nil {
			return errUnchanged // the next scan generates it
		}
		if rep.Status == interviews.ReportPending {
			rep.NextAttempt = nil
		} else {
			rec.Report = &interviews.Report{Status: interviews.ReportPending, Version: rep.Version + 1}
		}
		rec.Audit = append(rec.Audit, interviews.AuditEntry{At: r.now().UTC().Round(0), Who: who, Action: interviews.AuditReportRegenerate,
			Detail: fmt.Sprintf("report version %d requested", rec.Report.Version), ReportVersion: rec.Report.Version})
		return nil
	})
	if err != nil && !errors.Is(err, errUnchanged) {
		if errors.Is(err, ErrNotDue) {
			return ErrNotDue
		}
		return fmt.Errorf("reports: requesting a report: %w", err)
	}
	r.mu.Lock()
	delete(r.settled, id)
	r.mu.Unlock()
	r.Wake()
	return nil
}

// WithFallback returns a Generator that asks primary (a model) and, when
// it fails, writes fallback's report instead (the basic report), so a
// model that is down or keeps answering malformed JSON still leaves every
// interview with a report; a reviewer can ask for the model's later.
// onFallback, when not nil, is told each time the fallback stood in.
func WithFallback(primary, fallback Generator, onFallback func(err error)) Generator {
	return fallbackGenerator{primary: primary, fallback: fallback, onFallback: onFallback}
}

type fallbackGenerator struct {
	primary, fallback Generator
	onFallback        func(error)
}

func (g fallbackGenerator) Generate(ctx context.Context, in Input) (interviews.Report, error) {
	rep, err := g.primary.Generate(ctx, in)
	if err == nil || ctx.Err() != nil {
		return rep, err
	}
	if g.onFallback != nil {
		g.onFallback(err)
	}
	return g.fallback.Generate(ctx, in)
}
