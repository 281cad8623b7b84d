package fsm

import (
	"fmt"
	"strings"

	"github.com/viva-interviews/viva/internal/words"
	"github.com/viva-interviews/viva/stages"
)

// The question log: asking (with the repeat check), withdrawing,
// marking spoken, counting.

// Ask registers a question about to be asked in the current stage and
// returns it with its id; it counts toward the stage's MinQuestions only
// once MarkSpoken confirms it was delivered. A question whose Similarity to
// any earlier question of the interview (every stage, spoken or not) is at
// least RepeatThreshold is refused with a *RepeatError naming the closest
// one. Empty text gives ErrEmptyQuestion; no current stage gives
// ErrNotStarted or ErrDone.
func (m *Machine) Ask(text string, qc stages.QuestionContext) (stages.Question, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return stages.Question{}, ErrEmptyQuestion
	}
	qt := questionTokens{tokens: contentTokens(text), norm: words.Normal(text)}
	m.mu.Lock()
	if err := m.activeErrLocked(); err != nil {
		m.mu.Unlock()
		return stages.Question{}, err
	}
	best, bestSim := -1, 0.0
	for i, prev := range m.qtokens {
		if m.questions[i].Withdrawn {
			continue
		}
		if s := tokenSimilarity(qt, prev); s > bestSim {
			best, bestSim = i, s
		}
	}
	if best >= 0 && bestSim >= RepeatThreshold {
		prev := m.questions[best]
		m.mu.Unlock()
		return stages.Question{}, &RepeatError{Previous: prev, Similarity: bestSim}
	}
	now := m.now()
	id := fmt.Sprintf("q%d", len(m.questions)+1)
	for n := len(m.questions) + 2; ; n++ {
		if _, taken := m.qindex[id]; !taken {
			break
		}
		id = fmt.Sprintf("q%d", n) // a resumed log may number its questions otherwise
	}
	q := stages.Question{
		ID:      id,
		Stage:   m.stage,
		Text:    text,
		Context: qc,
		AskedAt: now,
	}
	m.qindex[q.ID] = len(m.questions)
	m.questions = append(m.questions, q)
	m.qtokens = append(m.qtokens, qt)
	ev := q.Clone()
	m.emitLocked(Event{Kind: EventQuestionAsked, Stage: q.Stage, Question: &ev, At: now})
	m.mu.Unlock()
	m.flush()
	return q, nil
}

// Withdraw records that the question with this id was never delivered (the
// reply that carried it was cut off before it was said), so it no longer
// blocks asking it again. A spoken question cannot be withdrawn: Withdraw
// then does nothing. An id Ask never returned gives ErrUnknownQuestion.
func (m *Machine) Withdraw(id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	i, ok := m.qindex[id]
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownQuestion, id)
	}
	if !m.questions[i].Spoken() {
		m.questions[i].Withdrawn = true
	}
	return nil
}

// MarkSpoken records that the question with this id was actually delivered
// to the candidate (its text was output). Only spoken questions count
// toward MinQuestions. Marking a question twice keeps the first time and
// returns nil; an id Ask never returned gives ErrUnknownQuestion.
func (m *Machine) MarkSpoken(id string) error {
	m.mu.Lock()
	i, ok := m.qindex[id]
	if !ok {
		m.mu.Unlock()
		return fmt.Errorf("%w: %q", ErrUnknownQuestion, id)
	}
	q := &m.questions[i]
	if q.Spoken() {
		m.mu.Unlock()
		return nil
	}
	now := m.now()
	q.SpokenAt = &now
	ev := q.Clone()
	m.emitLocked(Event{Kind: EventQuestionSpoken, Stage: q.Stage, Question: &ev, At: now})
	m.mu.Unlock()
	m.flush()
	return nil
}

// Questions returns a deep copy of the question log in asking order: every
// question asked, spoken, withdrawn or still pending. It is the interview
// record's question list as it stands.
func (m *Machine) Questions() []stages.Question {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]stages.Question, len(m.questions))
	for i, q := range m.questions {
		out[i] = q.Clone()
	}
	return out
}

// Spoken returns how many questions asked in stage were spoken.
func (m *Machine) Spoken(stage string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.spokenLocked(stage)
}

func (m *Machine) spokenLocked(stage string) int {
	n := 0
	for _, q := range m.questions {
		if q.Stage == stage && q.Spoken() {
			n++
		}
	}
	return n
}
