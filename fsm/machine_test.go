package fsm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/viva-interviews/viva/stages"
)

// testBlueprint has the default interview's timings and gates.
func testBlueprint() *stages.Blueprint {
	return &stages.Blueprint{Name: "test", Stages: []stages.Stage{
		{Name: "greeting", Title: "Welcome", Limit: 60 * time.Second, MinQuestions: 1},
		{Name: "intro", Title: "Introduction", Limit: 120 * time.Second, MinTime: 30 * time.Second, MinQuestions: 2},
		{Name: "experience", Title: "Your experience", Limit: 240 * time.Second, MinTime: 45 * time.Second, MinQuestions: 5},
		{Name: "closing", Title: "Closing", Limit: 45 * time.Second},
	}}
}

// oneStage is a blueprint with a single stage of the given gates.
func oneStage(limit, minTime time.Duration, minQuestions int) *stages.Blueprint {
	return &stages.Blueprint{Name: "one", Stages: []stages.Stage{
		{Name: "only", Limit: limit, MinTime: minTime, MinQuestions: minQuestions},
		{Name: "closing", Limit: time.Minute},
	}}
}

// recorder collects events; safe for concurrent use.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) on(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) all() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// kinds renders the events compactly: "stage_entered:intro",
// "milestone:intro:50", "question_asked:q1".
func (r *recorder) kinds() []string {
	var out []string
	for _, e := range r.all() {
		s := string(e.Kind) + ":" + e.Stage
		switch e.Kind {
		case EventMilestone:
			s += fmt.Sprintf(":%d", e.Milestone)
		case EventQuestionAsked, EventQuestionSpoken:
			s = string(e.Kind) + ":" + e.Question.ID
		}
		out = append(out, s)
	}
	return out
}

func mustNew(t *testing.T, bp *stages.Blueprint, opts Options) *Machine {
	t.Helper()
	m, err := New(bp, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return m
}

// askSpoken asks n distinct questions and marks them spoken.
func askSpoken(t *testing.T, m *Machine, n int) {
	t.Helper()
	topics := []string{"databases", "hiring", "deployments", "testing", "mentoring", "budgets", "latency", "security", "onboarding", "roadmaps"}
	for i := 0; i < n; i++ {
		topic := topics[(len(m.Questions())+i)%len(topics)]
		q, err := m.Ask(fmt.Sprintf("How do you approach %s? (%s %d)", topic, m.Stage(), len(m.Questions())), stages.QuestionContext{Kind: "model"})
		if err != nil {
			t.Fatalf("Ask: %v", err)
		}
		if err := m.MarkSpoken(q.ID); err != nil {
			t.Fatalf("MarkSpoken: %v", err)
		}
	}
}

func TestNewRejects(t *testing.T) {
	loop := testBlueprint()
	loop.Stages[2].Next = "intro"
	tests := []struct {
		name  string
		bp    *stages.Blueprint
		scale float64
		want  string
	}{
		{"nil blueprint", nil, 1, "no blueprint"},
		{"negative scale", testBlueprint(), -1, "time scale"},
		{"scale above 10", testBlueprint(), 10.5, "time scale"},
		{"NaN scale", testBlueprint(), math.NaN(), "time scale"},
		{"no stages", &stages.Blueprint{Name: "empty"}, 1, "no stages"},
		{"zero limit", oneStage(0, 0, 0), 1, "limit"},
		{"min time not below limit", oneStage(time.Minute, time.Minute, 0), 1, "min_time"},
		{"stage named done", &stages.Blueprint{Name: "x", Stages: []stages.Stage{{Name: stages.Done, Limit: time.Minute}}}, 1, "reserved"},
		{"loop", loop, 1, "loop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.bp, Options{TimeScale: tt.scale})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New error = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
	for _, scale := range []float64{0, 0.01, 1, 10} {
		if _, err := New(testBlueprint(), Options{TimeScale: scale}); err != nil {
			t.Errorf("New with TimeScale %v: %v", scale, err)
		}
	}
}

func TestStartAndAccessors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := mustNew(t, testBlueprint(), Options{})
		if m.Stage() != "" || m.Index() != -1 || m.Done() || !m.Deadline().IsZero() {
			t.Fatalf("before Start: stage %q index %d done %v deadline %v", m.Stage(), m.Index(), m.Done(), m.Deadline())
		}
		if _, err := m.Advance("x"); !errors.Is(err, ErrNotStarted) {
			t.Fatalf("Advance before Start = %v, want ErrNotStarted", err)
		}
		if _, err := m.Force("", "x"); !errors.Is(err, ErrNotStarted) {
			t.Fatalf("Force before Start = %v, want ErrNotStarted", err)
		}
		if _, err := m.Ask("Hello?", stages.QuestionContext{}); !errors.Is(err, ErrNotStarted) {
			t.Fatalf("Ask before Start = %v, want ErrNotStarted", err)
		}
		start := time.Now()
		tr := m.Start()
		if tr.From != "" || tr.To != "greeting" || tr.Forced || !tr.At.Equal(start) {
			t.Fatalf("Start = %+v", tr)
		}
		if again := m.Start(); !again.IsZero() {
			t.Fatalf("second Start = %+v, want zero", again)
		}
		if m.Stage() != "greeting" || m.Index() != 0 || m.Count() != 4 {
			t.Fatalf("stage %q index %d count %d", m.Stage(), m.Index(), m.Count())
		}
		if got, want := m.Deadline(), start.Add(60*time.Second); !got.Equal(want) {
			t.Fatalf("Deadline = %v, want %v", got, want)
		}
		if got := m.Path(); !reflect.DeepEqual(got, []string{"greeting", "intro", "experience", "closing"}) {
			t.Fatalf("Path = %v", got)
		}
		if len(m.Transitions()) != 1 {
			t.Fatalf("Transitions = %+v, want Start's only", m.Transitions())
		}
	})
}

func TestGatesRefuseThenAllow(t *testing.T) {
	type step struct {
		wait    time.Duration // advance the clock first
		speak   int           // then ask and speak this many questions
		allowed bool          // then Advance must succeed or be refused
	}
	tests := []struct {
		name         string
		minTime      time.Duration
		minQuestions int
		steps        []step
	}{
		{"time only", 30 * time.Second, 0, []step{
			{0, 0, false}, {29 * time.Second, 3, false}, {time.Second, 0, true},
		}},
		{"questions only", 0, 2, []step{
			{0, 0, false}, {50 * time.Second, 1, false}, {0, 1, true},
		}},
		{"both, questions first", 30 * time.Second, 2, []step{
			{0, 2, false}, {29 * time.Second, 0, false}, {time.Second, 0, true},
		}},
		{"both, time first", 30 * time.Second, 2, []step{
			{40 * time.Second, 1, false}, {0, 1, true},
		}},
		{"no gates", 0, 0, []step{{0, 0, true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := mustNew(t, oneStage(2*time.Minute, tt.minTime, tt.minQuestions), Options{})
				m.Start()
				for i, s := range tt.steps {
					time.Sleep(s.wait)
					askSpoken(t, m, s.speak)
					gate := m.Gate()
					tr, err := m.Advance("ready to move on")
					if s.allowed {
						if err != nil || gate != nil {
							t.Fatalf("step %d: Advance = %v (Gate %v), want allowed", i, err, gate)
						}
						if tr.From != "only" || tr.To != "closing" || tr.Forced || tr.Reason != "ready to move on" {
							t.Fatalf("step %d: transition %+v", i, tr)
						}
						return
					}
					var ge *GateError
					if !errors.As(err, &ge) || !errors.As(gate, &ge) {
						t.Fatalf("step %d: Advance = %v, Gate = %v, want *GateError", i, err, gate)
					}
					st := m.Status()
					if ge.Stage != "only" || ge.Spoken != st.Spoken || ge.MinQuestions != tt.minQuestions ||
						ge.MinTime != tt.minTime || ge.Elapsed != st.Elapsed ||
						ge.QuestionsMet() != st.MinQuestionsMet || ge.TimeMet() != st.MinTimeMet {
						t.Fatalf("step %d: GateError %+v disagrees with status %+v", i, ge, st)
					}
					if m.Stage() != "only" || len(m.Transitions()) != 1 {
						t.Fatalf("step %d: a refused Advance moved the machine to %q", i, m.Stage())
					}
				}
				t.Fatal("no step allowed the transition")
			})
		})
	}
}

func TestGateErrorMessage(t *testing.T) {
	tests := []struct {
		e    GateError
		want string
	}{
		{GateError{Stage: "intro", Spoken: 1, MinQuestions: 2, Elapsed: 12 * time.Second, MinTime: 30 * time.Second},
			"cannot leave intro yet: 1 of 2 required questions asked and 12s of the 30s minimum spent; ask another question, and spend about 18s more in this stage, before transitioning"},
		{GateError{Stage: "experience", Spoken: 2, MinQuestions: 5, Elapsed: 50 * time.Second, MinTime: 45 * time.Second},
			"cannot leave experience yet: 2 of 5 required questions asked and 50s of the 45s minimum spent; ask 3 more questions before transitioning"},
		{GateError{Stage: "greeting", Spoken: 0, MinQuestions: 1},
			"cannot leave greeting yet: 0 of 1 required questions asked; ask another question before transitioning"},
		{GateError{Stage: "intro", Spoken: 2, MinQuestions: 2, Elapsed: 1200 * time.Millisecond, MinTime: 1500 * time.Millisecond},
			"cannot leave intro yet: 2 of 2 required questions asked and 1.2s of the 1.5s minimum spent; keep the conversation going in this stage for about 300ms more (a follow-up question on the last answer works well) before transitioning"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("GateError%+v.Error() =\n%s\nwant\n%s", tt.e, got, tt.want)
		}
	}
}

func TestOnlySpokenQuestionsCount(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		m := mustNew(t, oneStage(time.Minute, 0, 2), Options{OnEvent: rec.on})
		m.Start()
		q1, err := m.Ask("What brought you to apply for this role?", stages.QuestionContext{Kind: "bank", Ref: "intro-1"})
		if err != nil {
			t.Fatal(err)
		}
		q2, err := m.Ask("Which databases have you run in production?", stages.QuestionContext{Kind: "model"})
		if err != nil {
			t.Fatal(err)
		}
		if q1.ID != "q1" || q2.ID != "q2" || q1.Spoken() || q1.Stage != "only" || q1.Context.Ref != "intro-1" {
			t.Fatalf("questions %+v %+v", q1, q2)
		}
		if n := m.Spoken("only"); n != 0 {
			t.Fatalf("Spoken = %d before any MarkSpoken", n)
		}
		var ge *GateError
		if _, err := m.Advance("asked two"); !errors.As(err, &ge) || ge.Spoken != 0 {
			t.Fatalf("Advance with two unspoken questions = %v, want a refusal counting 0 spoken", err)
		}
		time.Sleep(3 * time.Second)
		for range 3 { // idempotent
			if err := m.MarkSpoken(q1.ID); err != nil {
				t.Fatal(err)
			}
		}
		if n := m.Spoken("only"); n != 1 {
			t.Fatalf("Spoken = %d after marking q1 three times, want 1", n)
		}
		if got := m.Questions()[0].SpokenAt.Sub(q1.AskedAt); got != 3*time.Second {
			t.Fatalf("SpokenAt - AskedAt = %v, want 3s (the first MarkSpoken)", got)
		}
		if _, err := m.Advance("asked two"); !errors.As(err, &ge) || ge.Spoken != 1 {
			t.Fatalf("Advance with one spoken question = %v, want refusal counting 1", err)
		}
		if err := m.MarkSpoken("q9"); !errors.Is(err, ErrUnknownQuestion) {
			t.Fatalf("MarkSpoken(q9) = %v, want ErrUnknownQuestion", err)
		}
		if err := m.MarkSpoken(q2.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Advance("asked two"); err != nil {
			t.Fatalf("Advance with two spoken questions = %v", err)
		}
		want := []string{"stage_entered:only", "question_asked:q1", "question_asked:q2", "question_spoken:q1", "question_spoken:q2", "stage_left:only", "stage_entered:closing"}
		if got := rec.kinds(); !reflect.DeepEqual(got, want) {
			t.Fatalf("events\n got %v\nwant %v", got, want)
		}
	})
}

func TestAskRepetitionAcrossStages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := mustNew(t, oneStage(time.Minute, 0, 0), Options{})
		if _, err := m.Ask("   ", stages.QuestionContext{}); !errors.Is(err, ErrNotStarted) && !errors.Is(err, ErrEmptyQuestion) {
			t.Fatalf("Ask blank before start = %v", err)
		}
		m.Start()
		if _, err := m.Ask(" \t ", stages.QuestionContext{}); !errors.Is(err, ErrEmptyQuestion) {
			t.Fatalf("Ask blank = %v, want ErrEmptyQuestion", err)
		}
		first, err := m.Ask("Tell me about a challenging project you worked on", stages.QuestionContext{Kind: "bank"})
		if err != nil {
			t.Fatal(err)
		}
		// Never spoken, and the stage changes: still a repeat.
		if _, err := m.Force("", "test"); err != nil {
			t.Fatal(err)
		}
		_, err = m.Ask("Could you tell me about a project that was challenging for you?", stages.QuestionContext{Kind: "model"})
		var re *RepeatError
		if !errors.As(err, &re) {
			t.Fatalf("paraphrase in a later stage: Ask = %v, want *RepeatError", err)
		}
		if re.Previous.ID != first.ID || re.Previous.Stage != "only" || re.Similarity < RepeatThreshold {
			t.Fatalf("RepeatError = %+v", re)
		}
		if !strings.Contains(err.Error(), "ask something different") || !strings.Contains(err.Error(), first.Text) {
			t.Fatalf("RepeatError text %q", err)
		}
		q, err := m.Ask("What are you hoping to learn in your next role?", stages.QuestionContext{})
		if err != nil {
			t.Fatalf("a new question was refused: %v", err)
		}
		if q.ID != "q2" || q.Stage != "closing" {
			t.Fatalf("second accepted question = %+v, want q2 in closing (refused ones take no id)", q)
		}
		if n := len(m.Questions()); n != 2 {
			t.Fatalf("log has %d questions, want 2", n)
		}
	})
}

// TestDeadlinesForceEveryStage lets Run alone drive the interview from the
// greeting to Done.
func TestDeadlinesForceEveryStage(t *testing.T) {
	for _, scale := range []float64{1, 0.05} {
		t.Run(fmt.Sprint("scale ", scale), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := &recorder{}
				m := mustNew(t, testBlueprint(), Options{TimeScale: scale, OnEvent: rec.on})
				var forced []Transition
				runDone := make(chan struct{})
				go func() {
					defer close(runDone)
					m.Run(t.Context(), func(tr Transition) { forced = append(forced, tr) })
				}()
				start := time.Now()
				m.Start()
				<-runDone // Run returns by itself once Done
				if !m.Done() || m.Stage() != stages.Done || m.Index() != m.Count() {
					t.Fatalf("after Run: stage %q index %d", m.Stage(), m.Index())
				}
				want := []struct {
					from, to string
					at       time.Duration
				}{
					{"greeting", "intro", 60 * time.Second},
					{"intro", "experience", 180 * time.Second},
					{"experience", "closing", 420 * time.Second},
					{"closing", stages.Done, 465 * time.Second},
				}
				if len(forced) != len(want) {
					t.Fatalf("forced %d transitions, want %d: %+v", len(forced), len(want), forced)
				}
				for i, w := range want {
					tr := forced[i]
					at := time.Duration(float64(w.at) * scale)
					if tr.From != w.from || tr.To != w.to || !tr.Forced || tr.Reason != "deadline" || !tr.At.Equal(start.Add(at)) {
						t.Errorf("forced[%d] = %+v, want %s→%s forced by deadline at +%v", i, tr, w.from, w.to, at)
					}
				}
				if got := m.Transitions(); !reflect.DeepEqual(got[1:], forced) {
					t.Errorf("Transitions()[1:] = %+v, want the forced ones %+v", got[1:], forced)
				}
				if last := rec.all()[len(rec.all())-1]; last.Kind != EventDone || last.Transition == nil || !last.Transition.Forced {
					t.Errorf("last event = %+v, want a forced done", last)
				}
			})
		})
	}
}

func TestTimeScaleShortensLimits(t *testing.T) {
	tests := []struct {
		scale          float64
		limit, minTime time.Duration // of intro
	}{
		{0.05, 6 * time.Second, 1500 * time.Millisecond},
		{0.1, 12 * time.Second, 3 * time.Second},
		{1, 120 * time.Second, 30 * time.Second},
		{2, 240 * time.Second, 60 * time.Second},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.scale), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := mustNew(t, testBlueprint(), Options{TimeScale: tt.scale})
				m.Start()
				askSpoken(t, m, 1)
				if _, err := m.Advance("ready"); err != nil {
					t.Fatal(err)
				}
				entered := time.Now()
				cur := m.Current()
				if cur.Name != "intro" || cur.Limit != tt.limit || cur.MinTime != tt.minTime || cur.MinQuestions != 2 {
					t.Fatalf("Current = %s limit %v min %v q %d", cur.Name, cur.Limit, cur.MinTime, cur.MinQuestions)
				}
				if m.Blueprint().Stages[1].Limit != 120*time.Second {
					t.Fatalf("Blueprint() is scaled; it must keep the original timings")
				}
				if got := m.Deadline(); !got.Equal(entered.Add(tt.limit)) {
					t.Fatalf("Deadline = +%v, want +%v", got.Sub(entered), tt.limit)
				}
				askSpoken(t, m, 2)
				time.Sleep(tt.minTime - time.Millisecond)
				if _, err := m.Advance("ready"); err == nil {
					t.Fatalf("Advance allowed before the scaled min time %v", tt.minTime)
				}
				time.Sleep(time.Millisecond)
				if _, err := m.Advance("ready"); err != nil {
					t.Fatalf("Advance at the scaled min time: %v", err)
				}
			})
		})
	}
}

func TestStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := mustNew(t, testBlueprint(), Options{})
		if st := m.Status(); st.Stage != "" || st.Index != -1 || st.Count != 4 || st.Limit != 0 {
			t.Fatalf("status before Start = %+v", st)
		}
		m.Start()
		askSpoken(t, m, 1)
		if _, err := m.Advance("ok"); err != nil {
			t.Fatal(err)
		}
		entered := time.Now()
		askSpoken(t, m, 1)
		time.Sleep(90 * time.Second)
		want := TimeStatus{
			Stage: "intro", Index: 1, Count: 4, Entered: entered, Deadline: entered.Add(120 * time.Second),
			Elapsed: 90 * time.Second, Remaining: 30 * time.Second, Limit: 120 * time.Second, MinTime: 30 * time.Second,
			RemainingPct: 25, Spoken: 1, MinQuestions: 2, MinTimeMet: true, MinQuestionsMet: false,
		}
		if st := m.Status(); st != want {
			t.Fatalf("Status =\n%+v\nwant\n%+v", st, want)
		}
		time.Sleep(40 * time.Second) // nobody runs the timer: overrun shows
		st := m.Status()
		if !st.Overrun || st.Remaining != 0 || st.RemainingPct != 0 || st.Elapsed != 130*time.Second {
			t.Fatalf("overrun status = %+v", st)
		}
		if _, err := m.Force(stages.Done, "test"); err != nil {
			t.Fatal(err)
		}
		if st := m.Status(); st.Stage != stages.Done || st.Index != 4 || st.Overrun || !st.Deadline.IsZero() {
			t.Fatalf("status when done = %+v", st)
		}
	})
}

func TestRunRearmsAfterStageChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bp := &stages.Blueprint{Name: "rearm", Stages: []stages.Stage{
			{Name: "long", Limit: 600 * time.Second},
			{Name: "short", Limit: 20 * time.Second},
			{Name: "closing", Limit: 10 * time.Second},
		}}
		rec := &recorder{}
		m := mustNew(t, bp, Options{OnEvent: rec.on})
		ctx, cancel := context.WithCancel(t.Context())
		runDone := make(chan struct{})
		var forced []Transition
		go func() {
			defer close(runDone)
			m.Run(ctx, func(tr Transition) { forced = append(forced, tr) })
		}()
		start := time.Now()
		m.Start()
		time.Sleep(10 * time.Second)
		if _, err := m.Advance("moving on"); err != nil {
			t.Fatal(err)
		}
		// Run was sleeping towards long's 50% milestone (+300s); it must
		// re-arm for short's milestones (+20s, +25s, +28s) and deadline (+30s).
		time.Sleep(25 * time.Second)
		if m.Stage() != "closing" {
			t.Fatalf("stage at +35s = %q, want closing (short's deadline was +30s)", m.Stage())
		}
		cancel()
		<-runDone // Run returns on ctx cancellation
		if len(forced) != 1 || forced[0].From != "short" || !forced[0].At.Equal(start.Add(30*time.Second)) {
			t.Fatalf("forced = %+v, want short→closing at +30s", forced)
		}
		var got []string
		for _, e := range rec.all() {
			if e.Kind == EventMilestone {
				got = append(got, fmt.Sprintf("%s:%d@%v", e.Stage, e.Milestone, e.At.Sub(start)))
			}
		}
		want := []string{"short:50@20s", "short:75@25s", "short:90@28s", "short:100@30s", "closing:50@35s"}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("milestones\n got %v\nwant %v", got, want)
		}
	})
}

func TestMilestonesOncePerStage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		m := mustNew(t, oneStage(100*time.Second, 0, 0), Options{OnEvent: rec.on})
		m.Start()
		start := time.Now()
		// Polled without Run: each CheckDeadline emits what is due, once.
		for _, at := range []time.Duration{10, 50, 50, 60, 95, 95, 99} {
			time.Sleep(start.Add(at * time.Second).Sub(time.Now()))
			if _, forced := m.CheckDeadline(); forced {
				t.Fatalf("forced at +%ds, before the deadline", at)
			}
		}
		time.Sleep(time.Second)
		tr, forced := m.CheckDeadline()
		if !forced || tr.From != "only" || tr.To != "closing" || tr.Reason != "deadline" || !tr.Forced {
			t.Fatalf("CheckDeadline at the deadline = %+v, %v", tr, forced)
		}
		if _, forced := m.CheckDeadline(); forced {
			t.Fatal("CheckDeadline forced closing immediately")
		}
		want := []string{
			"stage_entered:only",
			"milestone:only:50",  // +50
			"milestone:only:75",  // +95 (both due)
			"milestone:only:90",  // +95
			"milestone:only:100", // +100, before leaving
			"stage_left:only", "stage_entered:closing",
		}
		if got := rec.kinds(); !reflect.DeepEqual(got, want) {
			t.Fatalf("events\n got %v\nwant %v", got, want)
		}

		// Through Run, closing (60s) gets its four milestones once each.
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go m.Run(ctx, nil)
		time.Sleep(61 * time.Second)
		var closing []string
		for _, e := range rec.all() {
			if e.Kind == EventMilestone && e.Stage == "closing" {
				closing = append(closing, fmt.Sprintf("%d@%v", e.Milestone, e.At.Sub(tr.At)))
			}
		}
		if want := []string{"50@30s", "75@45s", "90@54s", "100@1m0s"}; !reflect.DeepEqual(closing, want) {
			t.Fatalf("closing milestones %v, want %v", closing, want)
		}
		if !m.Done() {
			t.Fatal("closing's deadline did not end the interview")
		}
	})
}

func TestAcknowledgementOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bp := testBlueprint()
		bp.Stages[1].Acknowledgement = "Great to meet you, {{.Name}}."
		m := mustNew(t, bp, Options{Profile: stages.Profile{Name: "Ada", Role: "Engineer", Level: "senior"}})
		start := m.Start()
		if a, ok := m.TakeAck(); !ok || a != start.Ack || a == "" {
			t.Fatalf("ack after Start = %q, %v; transition ack %q", a, ok, start.Ack)
		}
		askSpoken(t, m, 1)
		tr, err := m.Advance("ready")
		if err != nil {
			t.Fatal(err)
		}
		if tr.Ack != "Great to meet you, Ada." || !m.PendingAck() {
			t.Fatalf("transition ack %q pending %v", tr.Ack, m.PendingAck())
		}
		if a, ok := m.TakeAck(); !ok || a != tr.Ack {
			t.Fatalf("TakeAck = %q, %v, want %q", a, ok, tr.Ack)
		}
		if a, ok := m.TakeAck(); ok || a != "" || m.PendingAck() {
			t.Fatalf("second TakeAck = %q, %v, want nothing", a, ok)
		}
		// Two transitions without a TakeAck: only the newer one is said.
		f1, _ := m.Force("", "deadline")
		f2, _ := m.Force("", "deadline")
		if f1.Ack == f2.Ack || f2.To != "closing" {
			t.Fatalf("acks %q / %q", f1.Ack, f2.Ack)
		}
		if a, ok := m.TakeAck(); !ok || a != f2.Ack {
			t.Fatalf("TakeAck after two transitions = %q, want the newer %q", a, f2.Ack)
		}
		if _, ok := m.TakeAck(); ok {
			t.Fatal("older acknowledgement delivered after the newer one")
		}
		// Reaching Done queues nothing and drops what was not taken.
		m2 := mustNew(t, testBlueprint(), Options{})
		m2.Start()
		m2.Force("closing", "candidate asked to stop")
		done, _ := m2.Force(stages.Done, "closing finished")
		if done.Ack != "" || m2.PendingAck() {
			t.Fatalf("done transition ack %q, pending %v", done.Ack, m2.PendingAck())
		}
	})
}

// TestAcknowledgementRace forces transitions from one goroutine while two
// others race to take the acknowledgement: each is delivered exactly once.
func TestAcknowledgementRace(t *testing.T) {
	bp := &stages.Blueprint{Name: "many"}
	const n = 60
	for i := range n {
		bp.Stages = append(bp.Stages, stages.Stage{Name: fmt.Sprintf("s%d", i), Title: fmt.Sprintf("Stage %d", i), Limit: time.Minute})
	}
	m := mustNew(t, bp, Options{})
	taken := make(chan string, 2*n)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if a, ok := m.TakeAck(); ok {
					taken <- a
				}
				runtime.Gosched()
			}
		}()
	}
	// waitTaken waits until a taker won the pending acknowledgement.
	waitTaken := func() {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); m.PendingAck(); runtime.Gosched() {
			if time.Now().After(deadline) {
				close(stop)
				t.Fatal("acknowledgement still pending after 10s: TakeAck does not clear it")
			}
		}
	}
	var acks []string
	acks = append(acks, m.Start().Ack)
	for len(acks) < n {
		waitTaken()
		tr, err := m.Force("", "deadline")
		if err != nil {
			t.Fatal(err)
		}
		acks = append(acks, tr.Ack)
	}
	waitTaken()
	close(stop)
	wg.Wait()
	close(taken)
	count := map[string]int{}
	for a := range taken {
		count[a]++
	}
	for _, a := range acks {
		if count[a] != 1 {
			t.Errorf("acknowledgement %q delivered %d times, want once", a, count[a])
		}
	}
	if len(count) != n {
		t.Errorf("%d distinct acknowledgements delivered, want %d", len(count), n)
	}
}

// TestDeadlineRacesTakeAck has Run force a transition at a deadline while
// another goroutine is taking the acknowledgement of the previous one.
func TestDeadlineRacesTakeAck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := mustNew(t, testBlueprint(), Options{TimeScale: 0.05})
		go m.Run(t.Context(), nil)
		m.Start()
		var got []string
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !m.Done() {
					if a, ok := m.TakeAck(); ok {
						mu.Lock()
						got = append(got, a)
						mu.Unlock()
					}
					time.Sleep(50 * time.Millisecond)
				}
			}()
		}
		wg.Wait()
		var want []string
		for _, tr := range m.Transitions() {
			if tr.Ack != "" {
				want = append(want, tr.Ack)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("acknowledgements taken %q, want each of %q once", got, want)
		}
	})
}

func TestForce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		m := mustNew(t, testBlueprint(), Options{OnEvent: rec.on})
		runDone := make(chan struct{})
		go func() { defer close(runDone); m.Run(t.Context(), nil) }()
		m.Start()
		time.Sleep(5 * time.Second)
		tr, err := m.Force("closing", "candidate asked to end the interview")
		if err != nil {
			t.Fatal(err)
		}
		if tr.From != "greeting" || tr.To != "closing" || !tr.Forced || tr.Reason != "candidate asked to end the interview" || tr.Ack == "" {
			t.Fatalf("Force(closing) = %+v", tr)
		}
		if m.Index() != 3 || m.Current().Name != "closing" {
			t.Fatalf("index %d current %q", m.Index(), m.Current().Name)
		}
		for _, to := range []string{"greeting", "intro", "closing", "nowhere"} {
			_, err := m.Force(to, "x")
			if err == nil || !strings.Contains(err.Error(), "choose one of: done") {
				t.Errorf("Force(%q) from closing = %v, want a refusal listing done", to, err)
			}
		}
		if m.Stage() != "closing" {
			t.Fatalf("refused Force moved the machine to %q", m.Stage())
		}
		done, err := m.Force(stages.Done, "closing remarks delivered")
		if err != nil || done.To != stages.Done || !done.Forced {
			t.Fatalf("Force(done) = %+v, %v", done, err)
		}
		<-runDone // Run notices Done and returns
		if _, err := m.Force("", "x"); !errors.Is(err, ErrDone) {
			t.Fatalf("Force after done = %v, want ErrDone", err)
		}
		if _, err := m.Advance("x"); !errors.Is(err, ErrDone) {
			t.Fatalf("Advance after done = %v, want ErrDone", err)
		}
		if _, err := m.Ask("One more thing?", stages.QuestionContext{}); !errors.Is(err, ErrDone) {
			t.Fatalf("Ask after done = %v, want ErrDone", err)
		}
		if _, forced := m.CheckDeadline(); forced {
			t.Fatal("CheckDeadline forced after done")
		}
		want := []string{"stage_entered:greeting", "stage_left:greeting", "stage_entered:closing", "stage_left:closing", "done:done"}
		if got := rec.kinds(); !reflect.DeepEqual(got, want) {
			t.Fatalf("events\n got %v\nwant %v", got, want)
		}
	})
}

// TestOnEventOrder checks the full event sequence, and that OnEvent may
// call back into the machine (even to move it) without deadlock or
// reordering.
func TestOnEventOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var m *Machine
		var got []string
		on := func(e Event) {
			s := string(e.Kind) + ":" + e.Stage
			if e.Question != nil {
				s += ":" + e.Question.ID
			}
			if e.Kind == EventMilestone {
				s += fmt.Sprint(":", e.Milestone)
			}
			// State is already updated when an event is delivered.
			if e.Kind == EventStageEntered && m.Stage() != e.Stage {
				s += " (stage mismatch: " + m.Stage() + ")"
			}
			got = append(got, s)
			// Moving the machine from inside OnEvent: its events come after
			// this one, in order.
			if e.Kind == EventQuestionSpoken && e.Stage == "experience" {
				if _, err := m.Force("", "enough"); err != nil {
					t.Errorf("Force from OnEvent: %v", err)
				}
				got = append(got, "(forced from OnEvent)")
			}
		}
		m = mustNew(t, testBlueprint(), Options{OnEvent: on})
		m.Start()
		q, _ := m.Ask("Can you hear me clearly?", stages.QuestionContext{Kind: "bank"})
		m.MarkSpoken(q.ID)
		m.Advance("ready")
		time.Sleep(60 * time.Second)
		m.CheckDeadline() // intro: 50%
		time.Sleep(60 * time.Second)
		m.CheckDeadline() // intro: 75, 90, 100, forced to experience
		q, _ = m.Ask("Tell me about a challenging project you worked on", stages.QuestionContext{Kind: "model"})
		m.MarkSpoken(q.ID) // OnEvent forces closing
		want := []string{
			"stage_entered:greeting",
			"question_asked:greeting:q1", "question_spoken:greeting:q1",
			"stage_left:greeting", "stage_entered:intro",
			"milestone:intro:50",
			"milestone:intro:75", "milestone:intro:90", "milestone:intro:100",
			"stage_left:intro", "stage_entered:experience",
			"question_asked:experience:q2", "question_spoken:experience:q2",
			"(forced from OnEvent)",
			"stage_left:experience", "stage_entered:closing",
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("events\n got %q\nwant %q", got, want)
		}
	})
}

// TestConcurrentUse exercises every method from several goroutines while
// Run forces deadlines; run with -race.
func TestConcurrentUse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		m := mustNew(t, testBlueprint(), Options{TimeScale: 0.05, OnEvent: rec.on})
		go m.Run(t.Context(), nil)
		m.Start()
		var wg sync.WaitGroup
		for g := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; !m.Done(); i++ {
					if q, err := m.Ask(fmt.Sprintf("Question %d from worker %d about topic%d%d?", i, g, g, i), stages.QuestionContext{}); err == nil {
						m.MarkSpoken(q.ID)
					}
					m.Status()
					m.Gate()
					m.Advance("try")
					m.TakeAck()
					m.Questions()
					m.Transitions()
					time.Sleep(100 * time.Millisecond)
				}
			}()
		}
		wg.Wait()
		// Events arrived in the order they happened: stage events follow
		// the transitions' order.
		var entered []string
		for _, e := range rec.all() {
			if e.Kind == EventStageEntered || e.Kind == EventDone {
				entered = append(entered, e.Transition.To)
			}
		}
		var want []string
		for _, tr := range m.Transitions() {
			want = append(want, tr.To)
		}
		if !reflect.DeepEqual(entered, want) {
			t.Fatalf("stage events %v, transitions %v", entered, want)
		}
		if want[len(want)-1] != stages.Done {
			t.Fatalf("interview did not finish: %v", want)
		}
	})
}

// TestDefaultBlueprint runs the shipped default interview on the clock alone.
func TestDefaultBlueprint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := mustNew(t, stages.Default(), Options{TimeScale: 0.1})
		start := time.Now()
		m.Start()
		m.Run(t.Context(), nil)
		var path []string
		for _, tr := range m.Transitions() {
			path = append(path, tr.To)
		}
		if want := []string{"greeting", "intro", "experience", "closing", stages.Done}; !reflect.DeepEqual(path, want) {
			t.Fatalf("path %v, want %v", path, want)
		}
		if got, want := time.Since(start), time.Duration(float64(510*time.Second)*0.1); got != want {
			t.Fatalf("interview lasted %v, want %v", got, want)
		}
	})
}

// TestWithdrawnQuestionMayBeAskedAgain: a question cut off before it was
// said does not block asking it again; a spoken one still does.
func TestWithdrawnQuestionMayBeAskedAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, err := New(stages.Default(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		m.Start()
		const text = "Tell me about a challenging project you worked on."
		q, err := m.Ask(text, stages.QuestionContext{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Ask(text, stages.QuestionContext{}); err == nil {
			t.Fatal("a pending question was asked twice")
		}
		if err := m.Withdraw(q.ID); err != nil {
			t.Fatal(err)
		}
		again, err := m.Ask(text, stages.QuestionContext{})
		if err != nil {
			t.Fatalf("withdrawn question refused: %v", err)
		}
		if err := m.MarkSpoken(again.ID); err != nil {
			t.Fatal(err)
		}
		_ = m.Withdraw(again.ID) // spoken: no effect
		if _, err := m.Ask(text, stages.QuestionContext{}); err == nil {
			t.Error("a spoken question was asked again")
		}
		if err := m.Withdraw("q99"); !errors.Is(err, ErrUnknownQuestion) {
			t.Errorf("Withdraw(unknown) = %v", err)
		}
	})
}

// TestResumeContinuesQuestionLog: a resumed machine is in the saved stage
// with the saved questions; a new question is numbered after them, spoken
// ones still count, and a started machine cannot be resumed.
func TestResumeContinuesQuestionLog(t *testing.T) {
	bp := stages.Default()
	m, err := New(bp, Options{})
	if err != nil {
		t.Fatal(err)
	}
	stage := bp.Path()[1]
	spoken := time.Now()
	saved := []stages.Question{
		{ID: "q1", Stage: bp.Path()[0], Text: "Tell me about yourself.", SpokenAt: &spoken},
		{ID: "q2", Stage: stage, Text: "Which database did you pick last, and why?", SpokenAt: &spoken},
	}
	if err := m.Resume(stage, saved); err != nil {
		t.Fatal(err)
	}
	if m.Stage() != stage || m.Spoken(stage) != 1 || m.PendingAck() {
		t.Fatalf("resumed: stage %s, spoken %d, ack pending %v", m.Stage(), m.Spoken(stage), m.PendingAck())
	}
	q, err := m.Ask("How do you test a distributed system end to end?", stages.QuestionContext{})
	if err != nil || q.ID != "q3" {
		t.Fatalf("Ask after resume = %+v, %v; want q3", q, err)
	}
	if _, err := m.Ask("Which database did you pick last, and why?", stages.QuestionContext{}); err == nil {
		t.Error("a saved question could be asked again")
	}
	if err := m.Resume(stage, nil); err == nil {
		t.Error("a started machine was resumed")
	}
	if m2, _ := New(bp, Options{}); m2.Resume("nosuchstage", nil) == nil {
		t.Error("resumed in an unknown stage")
	}
}

// TestAdvanceToSkipsUnderTheGates: AdvanceTo jumps to a later stage only
// once the current stage's gates are met, and the move is not forced.
func TestAdvanceToSkipsUnderTheGates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, err := New(stages.Default(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		m.Start()
		if _, err := m.AdvanceTo("closing", "exit: rubric_complete"); err == nil {
			t.Fatal("AdvanceTo moved on before the greeting's question was spoken")
		}
		q, err := m.Ask("Can you hear me?", stages.QuestionContext{Kind: stages.KindBank})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.MarkSpoken(q.ID); err != nil {
			t.Fatal(err)
		}
		tr, err := m.AdvanceTo("closing", "exit: rubric_complete")
		if err != nil {
			t.Fatal(err)
		}
		if tr.Forced || tr.To != "closing" || m.Stage() != "closing" {
			t.Errorf("transition %+v, stage %s: want an unforced move to the closing", tr, m.Stage())
		}
		if _, err := m.AdvanceTo("intro", "back"); err == nil {
			t.Error("AdvanceTo moved back")
		}
	})
}

// TestSkippedStagesAreSaid: a move past stages never entered queues an
// acknowledgement that names them first; a move to the next stage does not.
func TestSkippedStagesAreSaid(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := mustNew(t, testBlueprint(), Options{})
		m.Start()
		tr, err := m.Force("intro", "test")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(tr.Ack, "skip") {
			t.Errorf("ack %q of a move to the next stage mentions a skip", tr.Ack)
		}
		tr, err = m.Force("closing", "exit: max_turns")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(tr.Ack, "We've covered what we needed, so we'll skip the remaining part on ") {
			t.Errorf("ack %q does not say the skipped stage first", tr.Ack)
		}
		if got, ok := m.TakeAck(); !ok || got != tr.Ack {
			t.Errorf("TakeAck = %q, %v, want %q", got, ok, tr.Ack)
		}
	})
}
