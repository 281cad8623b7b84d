package agent

import (
	"context"
	"strings"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
)

// The loop's turn-taking while the interviewer speaks and while the
// candidate is silent: cut-offs, false interruptions, check-ins.

// heardFromCandidate notes that the candidate is there: the silence count
// starts again.
func (l *Loop) heardFromCandidate() {
	l.silences = 0
	l.unresponsive = false
	l.stopAway()
}

// maybeCutOff stops a reply to a spoken turn that the candidate talks into
// within CutOffWindow of its start (or before it started): they were not
// done. Words decide later whether it is dropped or resumed.
func (l *Loop) maybeCutOff() {
	sp := l.speaking
	if sp == nil || sp.heardEnd.IsZero() || sp.root != nil || l.opts.FalseInterruptionTimeout <= 0 || l.opts.CutOffWindow < 0 {
		return
	}
	ps, ok := sp.play.(startedPlayback)
	if !ok {
		return
	}
	if at := ps.StartedAt(); !at.IsZero() && time.Since(at) > l.opts.CutOffWindow {
		return
	}
	l.log.Debug("the candidate went on speaking: stopping the reply")
	l.pauseSpeaking(true)
}

// pauseSpeaking stops the reply being delivered at once and waits
// FalseInterruptionTimeout to learn whether words follow.
func (l *Loop) pauseSpeaking(cutOff bool) {
	sp := l.speaking
	l.speaking = nil
	sp.reply.Cancel()
	sp.play.Interrupt()
	l.paused = &pause{sp: sp, d: sp.play.Wait(), cutOff: cutOff}
	l.pauseTimer = time.NewTimer(l.opts.FalseInterruptionTimeout)
}

// settlePause takes a paused reply as really interrupted: a cut-off reply
// is dropped and counted; another is delivered as cut.
func (l *Loop) settlePause() {
	p := l.paused
	if p == nil {
		return
	}
	l.paused = nil
	if l.pauseTimer != nil {
		l.pauseTimer.Stop()
		l.pauseTimer = nil
	}
	if p.cutOff {
		root := p.sp
		if root.root != nil {
			root = root.root
		}
		root.reply.Drop()
		root.delivered = true
		_ = l.c.Recorder().Update(func(r *interviews.Record) {
			r.CountTurnTaking(func(tt *interviews.TurnTaking) { tt.CutOffs++ })
		})
		l.log.Info("reply dropped: the candidate had not finished")
		return
	}
	l.delivered(p.sp, p.d)
}

// pauseExpired ends the wait for words: still speaking, it waits on;
// otherwise the sound was no interruption and the reply resumes.
func (l *Loop) pauseExpired(ctx context.Context) {
	if l.paused == nil {
		return
	}
	if l.candidateSpeaking {
		l.pauseTimer = time.NewTimer(l.opts.FalseInterruptionTimeout)
		return
	}
	_ = l.c.Recorder().Update(func(r *interviews.Record) {
		r.CountTurnTaking(func(tt *interviews.TurnTaking) { tt.FalseInterruptionsResumed++ })
	})
	l.resume(ctx)
}

// resume says the rest of the paused reply, from the sentence that was
// playing; the reply is saved as one, not interrupted.
func (l *Loop) resume(ctx context.Context) {
	p := l.paused
	l.paused = nil
	if l.pauseTimer != nil {
		l.pauseTimer.Stop()
		l.pauseTimer = nil
	}
	l.turnStarted = time.Time{}
	sp, root := p.sp, p.sp
	head, rootD, resumed := "", p.d, 1
	if sp.root != nil {
		root, head, rootD, resumed = sp.root, sp.head, sp.rootD, sp.resumed+1
	}
	text, _ := sp.reply.Wait()
	heard, rest := splitPlayed(text, p.d.Text)
	head = strings.TrimSpace(head + " " + heard)
	if rest == "" {
		d := rootD
		d.Text, d.Interrupted, d.EndedAt, d.FalseInterruptionsResumed = head, false, p.d.EndedAt, resumed
		if sp != root {
			sp.reply.Drop()
			sp.delivered = true
		}
		l.delivered(root, d)
		return
	}
	l.log.Debug("no words came: resuming the reply", "from", rest)
	cont := l.c.start(ctx, nil, root.reply.source, rest)
	l.speaking = &speech{reply: cont, play: l.t.Say(ctx, cont), root: root, head: head, rootD: rootD, resumed: resumed}
	if sp != root {
		sp.reply.Drop()
		sp.delivered = true
	}
}

// armAway starts the silence clock once the interviewer has finished
// speaking, outside the last stage.
func (l *Loop) armAway() {
	if l.opts.AwayAfter <= 0 || l.speaking != nil || l.paused != nil || l.candidateSpeaking || l.away || l.inputEnded || l.over() {
		return
	}
	if l.bp.IsLast(l.c.Machine().Stage()) {
		return
	}
	l.stopAway()
	l.awayTimer = time.NewTimer(l.opts.AwayAfter)
}

// stopAway stops the silence clock.
func (l *Loop) stopAway() {
	if l.awayTimer != nil {
		l.awayTimer.Stop()
		l.awayTimer = nil
	}
}

// checkIn speaks after a silence of AwayAfter: kindly the first time, an
// offer to stop the second, the closing the third. It reports whether the
// interview is over.
func (l *Loop) checkIn(ctx context.Context) bool {
	if l.speaking != nil || l.paused != nil || l.candidateSpeaking || l.away || l.over() || l.bp.IsLast(l.c.Machine().Stage()) {
		return false
	}
	l.silences++
	key := lang.CheckIn
	switch l.silences {
	case 1:
	case 2:
		key = lang.OfferStop
	default:
		key = lang.Unresponsive
		l.unresponsive = true
	}
	text := l.c.Say(key)
	l.log.Info("the candidate has been silent: checking in", "silences", l.silences)
	_ = l.c.Recorder().Update(func(r *interviews.Record) {
		r.CountTurnTaking(func(tt *interviews.TurnTaking) { tt.CheckIns++ })
	})
	l.say(ctx, l.c.CheckIn(ctx, text), time.Time{})
	return false
}
