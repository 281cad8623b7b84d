package interviews

import (
	"slices"
	"strings"
	"time"

	"github.com/viva-interviews/viva/incident"
)

// The words for who the candidate is in EndReason.InWords: the terminal
// speaks to the candidate, the reviewer's pages about them.
const (
	// CandidateYou is the candidate addressed directly (viva chat).
	CandidateYou = "you"
	// CandidateThird is the candidate as reviewers read about them.
	CandidateThird = "the candidate"
)

// providerWords name the providers of EndedByProviderError in words.
var providerWords = map[string]string{
	incident.LLM: "the language model",
	incident.STT: "speech recognition",
	incident.TTS: "the voice",
}

// InWords says in words why an interview ended, as a clause that can
// follow a colon: "the closing remarks were delivered", "the candidate
// ended the interview". candidate is who the candidate is to the reader
// (CandidateYou or CandidateThird). Every EndReason has its words here, so
// the terminal and the reviewer's pages say the same thing; pressing End in
// the room (EndedCandidateRequest) is the candidate ending the interview,
// never "left".
func (e EndReason) InWords(candidate string) string {
	switch e {
	case EndedClosingDelivered:
		return "the closing remarks were delivered"
	case EndedDeadline:
		return "the time ran out"
	case EndedCandidateRequest:
		return candidate + " ended the interview"
	case EndedCandidateLeft:
		return candidate + " left the room"
	case EndedCandidateNeverJoined:
		return candidate + " never joined"
	case EndedWorkerStopped:
		return "the interviewer was shut down"
	case EndedEndOfInput:
		return "the input ended"
	case EndedInterrupted:
		return "interrupted with Ctrl-C"
	case EndedWorkerCrashed:
		return "the interviewer stopped unexpectedly"
	case EndedCandidateUnresponsive:
		return "no answer came after several check-ins"
	case EndedModelBudget:
		return "the interview reached its limit of model calls"
	case EndedPlanRefused:
		return "the interview plan could not run"
	case "":
		return "no reason was recorded"
	}
	if e.ProviderError() {
		p := strings.TrimPrefix(string(e), providerErrorPrefix)
		if w, ok := providerWords[p]; ok {
			return w + " failed"
		}
		return "the " + p + " service failed"
	}
	return strings.ReplaceAll(string(e), "_", " ")
}

// EndReasons lists every fixed end reason (EndedByProviderError aside), in
// the order of their declaration.
var EndReasons = []EndReason{EndedClosingDelivered, EndedDeadline, EndedCandidateRequest, EndedCandidateLeft,
	EndedCandidateNeverJoined, EndedWorkerStopped, EndedEndOfInput, EndedInterrupted, EndedWorkerCrashed,
	EndedCandidateUnresponsive, EndedModelBudget, EndedPlanRefused}

// TurnsInOrder returns the turns in the order they were spoken: by start
// time, ties kept in recorded order, and a turn without a time kept after
// the turn recorded before it. Turns are recorded when they end, so a turn
// that began first but ended later (the candidate still speaking as the
// interviewer's reply started) follows its successor in Turns; readers of
// the conversation want it before.
func (r *Record) TurnsInOrder() []Turn {
	type keyed struct {
		at   time.Time
		turn Turn
	}
	ks := make([]keyed, len(r.Turns))
	var last time.Time
	for i, t := range r.Turns {
		if !t.StartedAt.IsZero() {
			last = t.StartedAt
		}
		ks[i] = keyed{at: last, turn: t}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return a.at.Compare(b.at) })
	turns := make([]Turn, len(ks))
	for i, k := range ks {
		turns[i] = k.turn
	}
	return turns
}
