package fsm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	lf "github.com/looplab/fsm"

	"github.com/viva-interviews/viva/stages"
)

// Moving between stages: the gates, requested and forced transitions,
// deadlines and the timer that keeps them.

// Gate reports whether a requested transition (Advance) is allowed now: nil
// when it is, a *GateError saying what is missing when it is not, or
// ErrNotStarted / ErrDone.
func (m *Machine) Gate() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.gateLocked(m.now())
}

func (m *Machine) gateLocked(now time.Time) error {
	if err := m.activeErrLocked(); err != nil {
		return err
	}
	spoken := m.spokenLocked(m.stage)
	elapsed := max(now.Sub(m.entered), 0)
	if spoken >= m.cur.MinQuestions && elapsed >= m.cur.MinTime {
		return nil
	}
	return &GateError{Stage: m.stage, Spoken: spoken, MinQuestions: m.cur.MinQuestions, Elapsed: elapsed, MinTime: m.cur.MinTime}
}

func (m *Machine) activeErrLocked() error {
	switch m.stage {
	case "":
		return ErrNotStarted
	case stages.Done:
		return ErrDone
	}
	return nil
}

// Advance moves to the next stage when the LLM asks for it. It is refused
// with a *GateError until both the stage's scaled MinTime has passed and
// MinQuestions questions were spoken in it; with ErrNotStarted or ErrDone
// when there is no current stage. The transition queues the next stage's
// acknowledgement (none when it leads to stages.Done).
func (m *Machine) Advance(reason string) (Transition, error) {
	m.mu.Lock()
	if err := m.gateLocked(m.now()); err != nil {
		m.mu.Unlock()
		return Transition{}, err
	}
	tr, err := m.transitionLocked(m.bp.NextStage(m.stage), false, reason)
	m.mu.Unlock()
	m.flush()
	return tr, err
}

// AdvanceTo moves on to stage to, a later stage of Path (the closing stage
// when the interview has what it needs), under the same gates as Advance
// and recorded as not forced; the stages in between are not visited.
func (m *Machine) AdvanceTo(to, reason string) (Transition, error) {
	m.mu.Lock()
	if err := m.gateLocked(m.now()); err != nil {
		m.mu.Unlock()
		return Transition{}, err
	}
	tr, err := m.transitionLocked(to, false, reason)
	m.mu.Unlock()
	m.flush()
	return tr, err
}

// Force moves to stage to regardless of the gates, recorded as forced: ""
// means the next stage; to may name any later stage of Path (e.g. the
// closing stage when the candidate asks to stop) or stages.Done. Moving
// back, staying, or naming an unknown stage is an error.
func (m *Machine) Force(to, reason string) (Transition, error) {
	m.mu.Lock()
	tr, err := m.forceLocked(to, reason)
	m.mu.Unlock()
	m.flush()
	return tr, err
}

func (m *Machine) forceLocked(to, reason string) (Transition, error) {
	if err := m.activeErrLocked(); err != nil {
		return Transition{}, err
	}
	if to == "" {
		to = m.bp.NextStage(m.stage)
	}
	return m.transitionLocked(to, true, reason)
}

// transitionLocked moves to stage to through the looplab machine, which
// refuses anything but a forward move along the path, then records the
// transition, queues its acknowledgement and its events, and wakes Run.
func (m *Machine) transitionLocked(to string, forced bool, reason string) (Transition, error) {
	from := m.stage
	if err := m.states.Event(context.Background(), enterEvent(to)); err != nil {
		var invalid lf.InvalidEventError
		var unknown lf.UnknownEventError
		rest := m.path
		if from != "" {
			rest = m.path[m.pos[from]+1:]
		}
		later := strings.Join(append(rest[:len(rest):len(rest)], stages.Done), ", ")
		switch {
		case errors.As(err, &invalid):
			return Transition{}, fmt.Errorf("fsm: cannot move from %s to %s: the interview only moves forward; choose one of: %s", from, to, later)
		case errors.As(err, &unknown):
			return Transition{}, fmt.Errorf("fsm: cannot move from %s to %q: no such stage in this interview; choose one of: %s", from, to, later)
		}
		return Transition{}, fmt.Errorf("fsm: move from %s to %s: %w", from, to, err)
	}
	now := m.now()
	tr := Transition{From: from, To: to, Forced: forced, Reason: reason, At: now}
	m.stage = to
	m.entered = now
	m.nextMilestone = 0
	if to == stages.Done {
		m.cur = stages.Stage{Name: stages.Done}
		// Nothing is said after the end; an undelivered acknowledgement
		// would only confuse.
		m.ack, m.ackPending = "", false
	} else {
		s, _, _ := m.bp.Stage(to)
		s.Limit, s.MinTime = m.scaled(s.Limit), m.scaled(s.MinTime)
		m.cur = s
		tr.Ack = m.bp.AcknowledgementFor(to, m.profile)
		if from != "" {
			// Stages of the path jumped over were promised and never
			// entered: the acknowledgement says so first.
			if notice := m.bp.SkipNotice(m.path[m.pos[from]+1:m.pos[to]], m.profile); notice != "" {
				tr.Ack = strings.TrimSpace(notice + " " + tr.Ack)
			}
		}
		m.ack, m.ackPending = tr.Ack, tr.Ack != ""
	}
	m.transitions = append(m.transitions, tr)
	if from != "" {
		left := tr
		m.emitLocked(Event{Kind: EventStageLeft, Stage: from, Transition: &left, At: now})
	}
	kind := EventStageEntered
	if to == stages.Done {
		kind = EventDone
	}
	entered := tr
	m.emitLocked(Event{Kind: kind, Stage: to, Transition: &entered, At: now})
	select {
	case m.wake <- struct{}{}:
	default:
	}
	return tr, nil
}

// CheckDeadline emits the current stage's milestones that are due, then,
// at or past the stage's deadline, forces the next stage with reason
// "deadline" and returns that transition and true. Before Start and once
// done it does nothing.
func (m *Machine) CheckDeadline() (Transition, bool) {
	m.mu.Lock()
	if !m.activeLocked() {
		m.mu.Unlock()
		return Transition{}, false
	}
	now := m.now()
	for m.nextMilestone < len(milestones) {
		pct := milestones[m.nextMilestone]
		if now.Before(m.milestoneAtLocked(m.nextMilestone)) {
			break
		}
		m.nextMilestone++
		m.emitLocked(Event{Kind: EventMilestone, Stage: m.stage, Milestone: pct, At: now})
	}
	var tr Transition
	forced := false
	if !now.Before(m.deadlineLocked()) {
		var err error
		tr, err = m.forceLocked("", "deadline")
		forced = err == nil
	}
	m.mu.Unlock()
	m.flush()
	return tr, forced
}

func (m *Machine) milestoneAtLocked(i int) time.Time {
	return m.entered.Add(m.cur.Limit * time.Duration(milestones[i]) / 100)
}

// Run is the fallback timer that keeps the interview on time. It blocks
// until ctx is done or the interview is done: it sleeps until the current
// stage's next milestone or deadline, calls CheckDeadline, and calls
// onForced (when not nil, without the machine's lock) with every transition
// it forced. A stage change made elsewhere (Start, Advance, Force) wakes it
// to re-arm its timer. Run one Run per machine.
func (m *Machine) Run(ctx context.Context, onForced func(Transition)) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		m.mu.Lock()
		if m.stage == stages.Done {
			m.mu.Unlock()
			return
		}
		var timerC <-chan time.Time
		if m.activeLocked() {
			next := m.deadlineLocked()
			if m.nextMilestone < len(milestones) {
				next = m.milestoneAtLocked(m.nextMilestone)
			}
			timer.Reset(max(next.Sub(m.now()), 0))
			timerC = timer.C
		}
		m.mu.Unlock()

		select {
		case <-ctx.Done():
			return
		case <-m.wake:
			timer.Stop()
		case <-timerC:
			if tr, forced := m.CheckDeadline(); forced && onForced != nil {
				onForced(tr)
			}
		}
	}
}

// TakeAck returns the acknowledgement queued by the latest transition and
// clears it, so it is spoken exactly once: a second call returns "", false.
// A newer transition replaces an acknowledgement nobody took, and reaching
// stages.Done drops it.
func (m *Machine) TakeAck() (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.ackPending {
		return "", false
	}
	a := m.ack
	m.ack, m.ackPending = "", false
	return a, true
}

// PendingAck reports whether an acknowledgement is waiting for TakeAck.
func (m *Machine) PendingAck() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ackPending
}

// Transitions returns a copy of the transitions so far, Start's first.
func (m *Machine) Transitions() []Transition {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Transition(nil), m.transitions...)
}

// emitLocked queues an event for delivery by flush.
func (m *Machine) emitLocked(ev Event) {
	if m.onEvent != nil {
		m.outbox = append(m.outbox, ev)
	}
}

// flush delivers queued events to OnEvent, in order, without the lock. Only
// one goroutine delivers at a time; a flush that finds another one under way
// (or is called from inside OnEvent) returns at once and leaves its events
// to that loop, which drains the queue before it stops.
func (m *Machine) flush() {
	if m.onEvent == nil {
		return
	}
	m.mu.Lock()
	if m.flushing {
		m.mu.Unlock()
		return
	}
	m.flushing = true
	m.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			m.mu.Lock()
			m.flushing = false
			m.mu.Unlock()
			panic(r)
		}
	}()
	for {
		m.mu.Lock()
		batch := m.outbox
		m.outbox = nil
		if len(batch) == 0 {
			m.flushing = false
			m.mu.Unlock()
			return
		}
		m.mu.Unlock()
		for _, ev := range batch {
			m.onEvent(ev)
		}
	}
}
