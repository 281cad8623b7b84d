package agent

import (
	"context"
	"time"

	"github.com/viva-interviews/viva/interviews"
)

// awaitCandidate waits for Joined; it reports false when the interview
// ended instead.
func (l *Loop) awaitCandidate(ctx context.Context, in *<-chan Input) bool {
	return l.awaitBeforeGreeting(ctx, in, l.opts.JoinTimeout, func(ev Input) (ok, done bool) {
		switch ev.(type) {
		case Hearing:
			l.hearing = true
		case Joined:
			return true, true
		}
		return false, false
	}, func() bool {
		l.c.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateNeverJoined)
		l.log.Info("the candidate never joined")
		return false
	})
}

// awaitBeforeGreeting reads inputs until step says it is done (with ok
// its result) or timeout passes (timedOut's result). The interview ending
// meanwhile — ctx cancelled, the input ended, an ending asked for, the
// transport closed — reports false.
func (l *Loop) awaitBeforeGreeting(ctx context.Context, in *<-chan Input, timeout time.Duration,
	step func(Input) (ok, done bool), timedOut func() bool) bool {
	wait := time.NewTimer(timeout)
	defer wait.Stop()
	for {
		select {
		case <-wait.C:
			return timedOut()
		case <-ctx.Done():
			l.c.Finish(l.opts.Stopped.Status, l.opts.Stopped.Reason)
			return false
		case ev, ok := <-*in:
			if !ok {
				*in, ev = nil, InputEnded{}
			}
			switch e := ev.(type) {
			case InputEnded:
				l.c.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateNeverJoined)
				return false
			case EndRequested, Closed:
				l.handle(ctx, e)
				return false
			}
			if ok, done := step(ev); done {
				return ok
			}
		}
	}
}

// awaitHearing waits, after the candidate joined, until they receive the
// interviewer's audio or HearingTimeout passes; it reports false when the
// interview ended instead.
func (l *Loop) awaitHearing(ctx context.Context, in *<-chan Input) bool {
	if l.hearing {
		return true
	}
	return l.awaitBeforeGreeting(ctx, in, l.opts.HearingTimeout, func(ev Input) (ok, done bool) {
		switch ev.(type) {
		case Hearing:
			return true, true
		case Left:
			// Not greeted yet: as if they never came.
			l.c.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateNeverJoined)
			return false, true
		}
		return false, false
	}, func() bool {
		l.log.Warn("the candidate's audio subscription was not confirmed in time; greeting anyway", "timeout", l.opts.HearingTimeout)
		return true
	})
}
