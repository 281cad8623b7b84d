package agent

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent/analysis"
	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/agent/llm/openai"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
	"github.com/viva-interviews/viva/stages"
	"github.com/viva-interviews/viva/testrig/fakeopenai"
)

// paymentsJob is the job description of a backend payments role.
const paymentsJob = `Senior backend engineer, payments.
Requirements:
- Go in production
- Kafka with exactly-once semantics
- PostgreSQL at scale
- Kubernetes, with observability
- Mentoring other engineers
Nice to have:
- PCI-DSS
- Rust`

const paymentsResume = `# Sam Rivera
Senior backend engineer at Ledgerly (2019–today): led the ledger service in Go, 40k payments a minute.
Built Kafka pipelines for settlement. Python at Initech 2015–2019.`

// manualClock is the state machine's clock, moved on by the test.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *manualClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *manualClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// orderedAnalyzer is the offline analysis, noting how many interviewer
// requests the model had received when the résumé was read.
type orderedAnalyzer struct {
	analysis.Rules
	requests    func() int
	mu          sync.Mutex
	skillsAfter int // interviewer requests before Skills ran; -1 before
}

func (a *orderedAnalyzer) Skills(ctx context.Context, resume, jd string) ([]interviews.Skill, error) {
	a.mu.Lock()
	a.skillsAfter = a.requests()
	a.mu.Unlock()
	return a.Rules.Skills(ctx, resume, jd)
}

// TestDiligentModelInterview runs a whole interview with a model that does
// what viva's prompts literally say (fakeopenai.Diligent) through the real
// OpenAI client, with a backend payments job description, a résumé and the
// full-stack template, the model slow on some requests. It shows what a
// candidate and a reviewer get: one model request per interviewer turn in
// the common case, the filler at most once a turn and never in the
// model's history or the record, no suggestion of a question already
// asked, every required skill of the job probed, and the greeting asked of
// the model before the résumé is read.
func TestDiligentModelInterview(t *testing.T) {
	model := &fakeopenai.Diligent{}
	fake := fakeopenai.New()
	defer fake.Close()
	var slowMu sync.Mutex
	served := 0
	fake.ChatFunc(func(req fakeopenai.Request) fakeopenai.Reply {
		r := model.Reply(req)
		slowMu.Lock()
		served++
		slow := served%4 == 2
		slowMu.Unlock()
		if slow {
			// A model slow to its first token, past the filler's wait.
			r.Chunk, r.Delay = 1000, 150*time.Millisecond
		}
		return r
	})
	client, err := openai.New(openai.Options{APIKey: fakeopenai.Key, BaseURL: fake.URL, Model: "gpt-test"})
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := stages.BuiltinTemplate("fullstack-senior")
	if err != nil {
		t.Fatal(err)
	}
	clock := &manualClock{now: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)}
	an := &orderedAnalyzer{requests: func() int { return len(fake.ChatRequests()) }, skillsAfter: -1}
	setup, _ := testSetup(t, 1, func(*fsm.Machine, *stages.Blueprint, stages.Profile) llm.Client { return client })
	setup.Template, setup.Analyzer, setup.Clock = tpl, an, clock.Now
	setup.FillerAfter = 10 * time.Millisecond
	setup.Record.JobDescription, setup.Record.ResumeText = paymentsJob, paymentsResume
	c, err := NewInterview(setup)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateLeft) })

	// say drains a reply as a transport does and reports it delivered.
	var spoken []string
	say := func(r *Reply) {
		t.Helper()
		var b strings.Builder
		for d := range r.Deltas() {
			b.WriteString(d)
		}
		if _, err := r.Wait(); err != nil {
			t.Fatalf("turn failed: %v", err)
		}
		spoken = append(spoken, b.String())
		r.Delivered(Delivery{Text: b.String()})
		c.guide.wg.Wait() // the analysis beside the reply has landed
	}
	say(c.Greet(t.Context()))
	for turn := 0; turn < 40; turn++ {
		select {
		case <-c.Ended():
		default:
			clock.Add(25 * time.Second)
			q, _ := c.LastQuestion()
			say(c.Respond(t.Context(), CandidateTurn{Text: paymentsAnswer(q)}))
			continue
		}
		break
	}
	select {
	case <-c.Ended():
	default:
		t.Fatalf("the interview did not end; stage %s", c.Machine().Stage())
	}
	rec := flushed(t, c)
	for _, tr := range rec.Turns {
		t.Logf("%s [%s] %s", tr.Role, tr.Stage, tr.Text)
	}

	var agentTurns int
	for _, tr := range rec.Turns {
		if tr.Role == interviews.RoleAgent {
			agentTurns++
		}
	}
	var chat int
	for _, req := range fake.ChatRequests() {
		if req.Format == nil {
			chat++
		}
	}
	perTurn := float64(chat) / float64(agentTurns)
	t.Logf("%d model requests for %d interviewer turns (%.2f a turn), %d questions", chat, agentTurns, perTurn, len(rec.Questions))
	if perTurn > 1.2 {
		t.Errorf("%.2f model requests per interviewer turn, want at most 1.2", perTurn)
	}

	// The filler: at most once a turn; never in the model's history or a
	// turn's text; kept as the turn's own note.
	fillers := 0
	for _, s := range spoken {
		if n := strings.Count(s, lang.Text("", lang.Filler)); n > 1 {
			t.Errorf("the filler said %d times in one turn: %q", n, s)
		}
	}
	for _, tr := range rec.Turns {
		if strings.Contains(tr.Text, lang.Text("", lang.Filler)) {
			t.Errorf("turn %d's text holds the filler: %q", tr.Seq, tr.Text)
		}
		if tr.Filler != "" {
			fillers++
		}
	}
	if fillers == 0 {
		t.Errorf("no turn noted the filler though the model was slow")
	}
	for i, req := range fake.ChatRequests() {
		for _, m := range req.Messages[1:] {
			if strings.Contains(m.Content, lang.Text("", lang.Filler)) {
				t.Errorf("request %d shows the model its own filler: %q", i+1, m.Content)
			}
		}
	}

	// No suggestion repeats a question already asked.
	for i, s := range model.Suggestions() {
		for _, a := range s.Asked {
			if s.Text != "" && fsm.Similarity(s.Text, a) >= fsm.RepeatThreshold {
				t.Errorf("request %d suggested %q after %q was asked", i+1, s.Text, a)
			}
		}
	}

	// Every required skill of the job was probed by a question heard.
	probed := map[string]bool{}
	for _, q := range rec.Questions {
		if q.Spoken() && q.Context.Targets.Skill != "" {
			probed[strings.ToLower(q.Context.Targets.Skill)] = true
		}
	}
	for _, s := range rec.Skills {
		if slices.Contains(s.Sources, "job_required") && !probed[strings.ToLower(s.Name)] {
			t.Errorf("required skill %s was never probed (probed: %v)", s.Name, probed)
		}
	}

	// The greeting's model call came before the résumé was read.
	an.mu.Lock()
	after := an.skillsAfter
	an.mu.Unlock()
	if after < 1 {
		t.Errorf("the résumé was read after %d interviewer requests, want after the greeting's", after)
	}
}

// paymentsAnswer is a candidate's answer to q, as a senior payments
// engineer would give it.
func paymentsAnswer(q string) string {
	l := strings.ToLower(q)
	switch {
	case strings.Contains(l, "hear me") || strings.Contains(l, "ready"):
		return "Yes, I can hear you clearly, and I'm ready."
	case strings.Contains(l, "questions for me"):
		return "No, that's all from me. Thank you."
	case strings.Contains(l, "how long") || strings.Contains(l, "years"):
		return "About eight years now, six of them in payments."
	case strings.Contains(l, "kafka"):
		return "I ran our settlement pipeline on Kafka with idempotent producers and transactions for exactly-once, about two billion events a day."
	case strings.Contains(l, "postgres"):
		return "Our ledger runs on PostgreSQL, sharded by merchant, about twelve terabytes; I led the move to partitioned tables."
	case strings.Contains(l, "kubernetes"):
		return "We deploy everything on Kubernetes; I set up our Prometheus and tracing so on-call can see payment latency per merchant."
	case strings.Contains(l, " go ") || strings.Contains(l, " go?") || strings.Contains(l, "go,"):
		return "I have written Go in production for six years; the ledger service I lead is Go, forty thousand payments a minute."
	case strings.Contains(l, "draws you") || strings.Contains(l, "interested") || strings.Contains(l, "why"):
		return "Because payments at your scale is exactly the problem I want to work on next, and your team cares about correctness."
	}
	return "At Ledgerly I led the ledger service: I designed the double-entry model, cut reconciliation errors by 90 percent, and mentored three engineers along the way."
}
