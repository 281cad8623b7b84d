package agent

import (
	"context"
	"strings"
	"time"

	"github.com/viva-interviews/viva/interviews"
)

// handle acts on one input; it reports whether the interview is over.
func (l *Loop) handle(ctx context.Context, ev Input) bool {
	c := l.c
	switch e := ev.(type) {
	case SpeechStarted:
		l.candidateSpeaking = true
		c.CancelPrefetch() // they go on: a reply started early is stale
		l.heardFromCandidate()
		if l.turnStarted.IsZero() {
			l.turnStarted, l.turnBursts = e.At, 0
		}
		l.turnBursts++
		l.maybeCutOff()

	case SpeechEnded:
		l.candidateSpeaking = false
		l.maybeInterject(ctx)

	case Heard:
		l.heardFromCandidate()
		if l.paused != nil && strings.TrimSpace(e.Text) != "" && !IsBackchannel(e.Text) {
			l.settlePause()
		}

	case Hearing:
		l.hearing = true
	case TurnLikely:
		if l.speaking == nil && l.paused == nil && !l.candidateSpeaking && !l.away {
			c.Prefetch(ctx, e.Text)
		}
	case BargeIn:
		l.bargeIn()

	case CandidateTurn:
		l.candidateTurn(ctx, e)

	case Joined:
		l.joined(ctx)

	case Left:
		return l.left()

	case EndRequested:
		l.stopSpeaking()
		c.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateRequest)
		if e.Saved != nil {
			close(e.Saved)
		}
		l.log.Info("the candidate ended the interview: saved")
		return true

	case InputEnded:
		l.settlePause()
		if l.speaking != nil {
			l.inputEnded = true // ends once the reply is delivered
			return false
		}
		c.Finish(interviews.StatusCandidateLeft, interviews.EndedEndOfInput)
		return true

	case Closed:
		l.stopSpeaking()
		c.Finish(e.Status, e.Reason)
		l.log.Info("the interview can no longer be carried: saved", "status", e.Status, "ended_by", e.Reason)
		return true
	}
	return false
}

// bargeIn stops (or, with a false-interruption timeout, pauses) the
// interviewer's reply when the candidate speaks over it.
func (l *Loop) bargeIn() {
	sp := l.speaking
	if sp == nil {
		return
	}
	l.log.Debug("barge-in: stopping the interviewer's reply")
	if l.opts.FalseInterruptionTimeout > 0 {
		l.pauseSpeaking(false)
		return
	}
	sp.play.Interrupt()
	sp.reply.Cancel()
}

// candidateTurn answers one turn of the candidate's; a backchannel over
// the interviewer's reply is counted, not answered.
func (l *Loop) candidateTurn(ctx context.Context, e CandidateTurn) {
	c := l.c
	if strings.TrimSpace(e.Text) == "" || l.away || l.inputEnded {
		return
	}
	if e.Source == SourceVoice && IsBackchannel(e.Text) && (l.speaking != nil || l.paused != nil) {
		// "Mm-hm" while the interviewer speaks: not a turn.
		l.backchannels++
		_ = c.Recorder().Update(func(r *interviews.Record) {
			r.CountTurnTaking(func(tt *interviews.TurnTaking) { tt.BackchannelsIgnored++ })
		})
		l.turnStarted = time.Time{}
		if l.paused != nil {
			l.resume(ctx)
		}
		return
	}
	l.heardFromCandidate()
	l.settlePause()
	l.stopSpeaking()
	var heardEnd time.Time
	if e.Source == SourceVoice {
		if !l.turnStarted.IsZero() {
			e.StartedAt, e.Bursts = l.turnStarted, l.turnBursts
		}
		l.turnStarted = time.Time{}
		heardEnd = e.EndedAt
	}
	if IsRepeatRequest(e.Text) {
		if r, ok := c.Repeat(ctx, e); ok {
			l.say(ctx, r, heardEnd)
			return
		}
	}
	l.say(ctx, c.Respond(ctx, e), heardEnd)
}

// joined continues the interview when the candidate who left comes back.
func (l *Loop) joined(ctx context.Context) {
	if !l.away {
		return
	}
	r, err := l.c.Rejoin(ctx)
	if err != nil {
		l.log.Warn("the candidate came back too late", "err", err)
		return
	}
	l.away = false
	l.rejoin.Stop()
	l.rejoin = nil
	l.say(ctx, r, time.Time{})
}

// left saves the interview when the candidate leaves: kept open for them
// to come back within the rejoin grace, else ended. It reports whether
// the interview is over.
func (l *Loop) left() bool {
	if l.away {
		return false
	}
	c := l.c
	l.stopSpeaking()
	l.stopAway()
	if grace := l.opts.RejoinGrace; grace > 0 && !c.Machine().Done() {
		// Saved candidate_left now; continued if they come back.
		c.Leave(grace)
		l.away = true
		l.candidateSpeaking, l.turnStarted = false, time.Time{}
		l.rejoin = time.NewTimer(grace)
		l.t.Listening()
		return false
	}
	c.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateLeft)
	l.log.Info("the candidate left: interview saved")
	return true
}
