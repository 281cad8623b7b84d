// Package fsm is the interview state machine: it walks a stages.Blueprint
// from its first stage to stages.Done, enforces each stage's gates (minimum
// time and minimum spoken questions) on transitions the LLM requests, forces
// the next stage when a stage's deadline passes, keeps the question log with
// a paraphrase-aware repetition check, queues the acknowledgement spoken on
// entering a stage, and reports everything as Events.
//
// The states and the allowed moves between them are a looplab/fsm machine
// (a stage may only move forward along the blueprint's path); Machine adds
// the clock, the gates and the bookkeeping around it. A Machine is safe for
// concurrent use: the conversation goroutine (Ask, Advance, TakeAck) and the
// fallback timer (Run) use it at the same time. Time comes from
// Options.Now, so tests drive it with testing/synctest or a fake clock.
//
// Milestones (50/75/90/100 % of a stage's limit) are emitted by
// CheckDeadline, and only there; Run wakes at every milestone and deadline
// of the current stage and calls it. A machine without Run emits them when
// its owner polls CheckDeadline.
package fsm

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	lf "github.com/looplab/fsm"

	"github.com/viva-interviews/viva/internal/words"
	"github.com/viva-interviews/viva/stages"
)

// MaxTimeScale is the largest accepted Options.TimeScale.
const MaxTimeScale = 10

// Options configure a Machine. The zero value is valid: real time, no
// scaling, no event listener.
type Options struct {
	// TimeScale multiplies every stage's Limit and MinTime: 0.1 runs the
	// interview ten times faster (practice, demos), 2 gives twice as long.
	// 0 means 1; otherwise it must be above 0 and at most MaxTimeScale.
	TimeScale float64
	// Now is the machine's clock; nil means time.Now (which tests using
	// testing/synctest see as their fake clock).
	Now func() time.Time
	// Profile fills the acknowledgement templates (candidate name, role…).
	Profile stages.Profile
	// OnEvent, when set, is called for every Event in the order they
	// happened, without the machine's lock held, so it may call the
	// machine's methods. Events are delivered by one goroutine at a time:
	// normally the caller whose action produced them, before that call
	// returns; when another goroutine is already delivering (or OnEvent
	// itself acts on the machine), that delivery loop passes them on right
	// after the events already queued.
	OnEvent func(Event)
}

// Machine is one interview's state machine. Create it with New, then call
// Start; run Run in a goroutine for the deadlines.
type Machine struct {
	bp      *stages.Blueprint
	path    []string       // stage names in visiting order
	pos     map[string]int // stage name → position in path
	scale   float64
	now     func() time.Time
	profile stages.Profile
	onEvent func(Event)

	// wake tells Run that the stage changed, so it re-arms its timer.
	wake chan struct{}

	mu            sync.Mutex
	states        *lf.FSM
	stage         string       // current stage, "" before Start
	cur           stages.Stage // current stage, scaled
	entered       time.Time
	nextMilestone int               // index into milestones of the next milestone to emit
	questions     []stages.Question // the question log, which is also the record's
	qtokens       []questionTokens  // normalised questions, parallel to questions
	qindex        map[string]int    // question id → index in questions
	transitions   []Transition
	ack           string
	ackPending    bool
	outbox        []Event
	flushing      bool
}

type questionTokens struct {
	tokens map[string]bool
	norm   string
}

// New returns a machine for bp, not yet started. It rejects a blueprint
// that fails bp.Validate (or whose stage order does not reach stages.Done)
// and a TimeScale out of range. The machine works on its own copy of bp.
func New(bp *stages.Blueprint, opts Options) (*Machine, error) {
	if bp == nil {
		return nil, errors.New("fsm: no blueprint: pass one, e.g. stages.Default()")
	}
	scale := opts.TimeScale
	if scale == 0 {
		scale = 1
	}
	if math.IsNaN(scale) || scale <= 0 || scale > MaxTimeScale {
		return nil, fmt.Errorf("fsm: time scale %v out of range: use a value above 0 and at most %d (0.1 = ten times faster, 1 = real time)", opts.TimeScale, MaxTimeScale)
	}
	if err := bp.Validate(); err != nil {
		return nil, fmt.Errorf("fsm: blueprint %q: %w", bp.Name, err)
	}
	bp = bp.Clone()
	path, err := checkBlueprint(bp)
	if err != nil {
		return nil, fmt.Errorf("fsm: blueprint %q: %w", bp.Name, err)
	}
	m := &Machine{
		bp:      bp,
		path:    path,
		pos:     make(map[string]int, len(path)),
		scale:   scale,
		now:     opts.Now,
		profile: opts.Profile,
		onEvent: opts.OnEvent,
		wake:    make(chan struct{}, 1),
		qindex:  map[string]int{},
	}
	if m.now == nil {
		m.now = time.Now
	}
	for i, name := range path {
		m.pos[name] = i
	}
	// One event per destination, allowed only from the states before it on
	// the path: the interview moves forward, never back or sideways.
	events := []lf.EventDesc{{Name: enterEvent(path[0]), Src: []string{""}, Dst: path[0]}}
	for i := 1; i < len(path); i++ {
		events = append(events, lf.EventDesc{Name: enterEvent(path[i]), Src: append([]string(nil), path[:i]...), Dst: path[i]})
	}
	events = append(events, lf.EventDesc{Name: enterEvent(stages.Done), Src: append([]string(nil), path...), Dst: stages.Done})
	m.states = lf.NewFSM("", events, nil)
	return m, nil
}

func enterEvent(stage string) string { return "enter " + stage }

// checkBlueprint returns the stages in visiting order, or an error when
// that order does not reach stages.Done (Validate already rejects such
// blueprints; this keeps the machine sound whatever it is given).
func checkBlueprint(bp *stages.Blueprint) ([]string, error) {
	path := bp.Path()
	if len(path) == 0 {
		return nil, errors.New("no stages: a blueprint needs at least one stage")
	}
	if next := bp.NextStage(path[len(path)-1]); next != stages.Done {
		return nil, fmt.Errorf("stage order %s → %s never reaches %q: fix the stages' next links", strings.Join(path, " → "), next, stages.Done)
	}
	return path, nil
}

// Blueprint returns a copy of the blueprint the machine runs (unscaled
// timings).
func (m *Machine) Blueprint() *stages.Blueprint { return m.bp.Clone() }

// TimeScale returns the factor applied to every Limit and MinTime.
func (m *Machine) TimeScale() float64 { return m.scale }

// Path returns the stage names in the order the interview visits them; its
// length is Count.
func (m *Machine) Path() []string { return append([]string(nil), m.path...) }

func (m *Machine) scaled(d time.Duration) time.Duration {
	return time.Duration(float64(d) * m.scale)
}

// Start enters the first stage and queues its acknowledgement (the
// blueprint's welcome line, if it has one). Calling it again is a no-op
// that returns the zero Transition.
func (m *Machine) Start() Transition {
	m.mu.Lock()
	if m.stage != "" {
		m.mu.Unlock()
		return Transition{}
	}
	tr, err := m.transitionLocked(m.path[0], false, "start")
	m.mu.Unlock()
	if err != nil {
		// Unreachable: New built the event for the first stage from "".
		panic(err)
	}
	m.flush()
	return tr
}

// Resume continues an interview a previous session started, instead of
// Start: the machine is in stage (its clock restarted now, nothing to
// acknowledge) with the question log questions, so new questions continue
// its numbering and spoken ones still count toward MinQuestions. No event
// is emitted: the record already holds the stage and the questions. It
// fails when the machine has started or stage is not on the path.
func (m *Machine) Resume(stage string, questions []stages.Question) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stage != "" {
		return fmt.Errorf("fsm: resume in %s: the interview has already started", stage)
	}
	if _, ok := m.pos[stage]; !ok {
		return fmt.Errorf("fsm: resume in %q: no such stage in this interview; choose one of: %s", stage, strings.Join(m.path, ", "))
	}
	m.states.SetState(stage)
	now := m.now()
	s, _, _ := m.bp.Stage(stage)
	s.Limit, s.MinTime = m.scaled(s.Limit), m.scaled(s.MinTime)
	m.stage, m.cur, m.entered, m.nextMilestone = stage, s, now, 0
	for _, q := range questions {
		m.qindex[q.ID] = len(m.questions)
		m.questions = append(m.questions, q.Clone())
		m.qtokens = append(m.qtokens, questionTokens{tokens: contentTokens(q.Text), norm: words.Normal(q.Text)})
	}
	m.transitions = append(m.transitions, Transition{To: stage, Reason: "resume", At: now})
	select {
	case m.wake <- struct{}{}:
	default:
	}
	return nil
}

// Stage returns the current stage name: "" before Start, stages.Done at the
// end.
func (m *Machine) Stage() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stage
}

// Current returns the current stage's definition with Limit and MinTime
// already scaled. Before Start it is the zero Stage; at the end it is a
// Stage named stages.Done.
func (m *Machine) Current() stages.Stage {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stage == stages.Done {
		return stages.Stage{Name: stages.Done}
	}
	if m.stage == "" {
		return stages.Stage{}
	}
	s, _, _ := m.bp.Stage(m.stage)
	s.Limit, s.MinTime = m.cur.Limit, m.cur.MinTime
	return s
}

// Index returns the 0-based position of the current stage in Path: -1
// before Start, Count() once done.
func (m *Machine) Index() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.indexLocked()
}

func (m *Machine) indexLocked() int {
	switch m.stage {
	case "":
		return -1
	case stages.Done:
		return len(m.path)
	}
	return m.pos[m.stage]
}

// Count returns the number of stages the interview visits (len(Path())).
func (m *Machine) Count() int { return len(m.path) }

// Done reports whether the interview reached stages.Done.
func (m *Machine) Done() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stage == stages.Done
}

// Deadline returns when the current stage will be forced to end (the time
// it was entered plus its scaled Limit); zero before Start and once done.
func (m *Machine) Deadline() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.activeLocked() {
		return time.Time{}
	}
	return m.deadlineLocked()
}

func (m *Machine) activeLocked() bool { return m.stage != "" && m.stage != stages.Done }

func (m *Machine) deadlineLocked() time.Time { return m.entered.Add(m.cur.Limit) }

// Status returns the current stage's clock and gates. It has no side
// effects (milestones are emitted by CheckDeadline).
func (m *Machine) Status() TimeStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := TimeStatus{Stage: m.stage, Index: m.indexLocked(), Count: len(m.path)}
	if !m.activeLocked() {
		return st
	}
	now := m.now()
	st.Entered = m.entered
	st.Deadline = m.deadlineLocked()
	st.Elapsed = max(now.Sub(m.entered), 0)
	st.Remaining = max(st.Deadline.Sub(now), 0)
	st.Limit, st.MinTime = m.cur.Limit, m.cur.MinTime
	if st.Limit > 0 {
		st.RemainingPct = min(100, 100*float64(st.Remaining)/float64(st.Limit))
	}
	st.Spoken, st.MinQuestions = m.spokenLocked(m.stage), m.cur.MinQuestions
	st.MinTimeMet = st.Elapsed >= st.MinTime
	st.MinQuestionsMet = st.Spoken >= st.MinQuestions
	st.Overrun = !now.Before(st.Deadline)
	return st
}
