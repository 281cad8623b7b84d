package worker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/viva-interviews/viva/interviews"
)

// TopicSignals carries the room page's integrity signals to the
// interviewer as small JSON data packets: {"kind":"focus_lost","ms":42000}
// when the candidate's tab or window got focus back after losing it, and
// {"kind":"paste","chars":230} when text was pasted into the answer box.
// They are kept in the record beside the answer they concern, as context
// for the reviewer (interviews.Signal).
const TopicSignals = "viva.signals"

// Limits on the room page's reports, checked before anything is kept.
const (
	// MaxSignalBytes bounds one report.
	MaxSignalBytes = 256
	// signalBurst reports are taken at once, then signalsPerMinute a
	// minute; more are dropped.
	signalBurst      = 10
	signalsPerMinute = 20
)

// DecodeSignal reads one report of the room page, received at at. Only
// the two kinds the page observes are accepted; figures out of range, an
// unknown field or more than MaxSignalBytes are refused with the reason.
func DecodeSignal(b []byte, at time.Time) (interviews.Signal, error) {
	if len(b) > MaxSignalBytes {
		return interviews.Signal{}, fmt.Errorf("signal of %d bytes: at most %d", len(b), MaxSignalBytes)
	}
	var in struct {
		Kind  interviews.SignalKind `json:"kind"`
		Ms    int64                 `json:"ms"`
		Chars int                   `json:"chars"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return interviews.Signal{}, fmt.Errorf("signal is not a JSON object of kind, ms and chars: %w", err)
	}
	s := interviews.Signal{Kind: in.Kind, At: at, Ms: in.Ms, Chars: in.Chars}
	switch {
	case in.Kind == interviews.SignalFocusLost && (in.Ms <= 0 || in.Chars != 0):
		return s, errors.New("a focus_lost signal needs ms above 0 and no chars")
	case in.Kind == interviews.SignalPaste && (in.Chars <= 0 || in.Ms != 0):
		return s, errors.New("a paste signal needs chars above 0 and no ms")
	case in.Kind != interviews.SignalFocusLost && in.Kind != interviews.SignalPaste:
		return s, fmt.Errorf("signal kind %q: the room page reports only %s and %s", in.Kind, interviews.SignalFocusLost, interviews.SignalPaste)
	}
	return s, s.Validate()
}

// signalGate admits the candidate's reports at a bounded rate.
type signalGate struct {
	mu      sync.Mutex
	tokens  tokens
	started bool
}

// admit reports whether one more report may be kept at now.
func (g *signalGate) admit(now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.started {
		g.tokens, g.started = newTokens(signalBurst, time.Minute/signalsPerMinute), true
	}
	return g.tokens.take(now)
}

// dataPacket takes a data packet sent to the interviewer: the candidate's
// integrity signals are kept in the record (the answer they concern is
// the next one given); anything else, from anyone else, or beyond the
// rate, is dropped.
func (ss *session) dataPacket(p lksdk.DataPacket, params lksdk.DataReceiveParams) {
	user, ok := p.(*lksdk.UserDataPacket)
	if !ok || user.Topic != TopicSignals || ss.c == nil {
		return
	}
	if id := ss.candidateID(); id == "" || params.SenderIdentity != id {
		return
	}
	now := time.Now()
	s, err := DecodeSignal(user.Payload, now)
	if err != nil {
		ss.log.Debug("a room page's signal was refused", "err", err)
		return
	}
	if !ss.signals.admit(now) {
		ss.log.Debug("a room page's signal was dropped: too many")
		return
	}
	_ = ss.c.Recorder().Update(func(rec *interviews.Record) { rec.AddSignal(s) })
}
