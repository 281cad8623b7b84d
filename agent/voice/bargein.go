package voice

import "sync/atomic"

// bargeInDetector decides when the candidate is talking over the agent
// hard enough to interrupt it. The speech over the agent must span
// thresholdFrames from its first to its latest voiced frame (so the
// hangover after a cough does not count) and at least half of the
// threshold must have been voiced (so two coughs in a row do not either).
// It fires at most once per agent utterance.
//
// setAgentSpeaking may be called from any goroutine; observe belongs to
// the audio path.
type bargeInDetector struct {
	thresholdFrames int

	agentSpeaking atomic.Bool
	// agentUtterance counts false → true transitions of agentSpeaking.
	agentUtterance atomic.Uint64

	// Audio path state.
	seenUtterance uint64
	interrupted   bool  // fired for the current agent utterance
	firstFrame    int64 // first voiced frame over the agent, -1 before it
	voicedFrames  int   // voiced frames over the agent since firstFrame
}

// newBargeInDetector fires after thresholdFrames of speech over the agent.
func newBargeInDetector(thresholdFrames int) bargeInDetector {
	return bargeInDetector{thresholdFrames: thresholdFrames, firstFrame: -1}
}

// setAgentSpeaking says whether the agent's audio is playing; each
// false → true transition starts an agent utterance that can be
// interrupted once.
func (b *bargeInDetector) setAgentSpeaking(speaking bool) {
	if speaking && !b.agentSpeaking.Load() {
		b.agentUtterance.Add(1)
	}
	b.agentSpeaking.Store(speaking)
}

// observe takes the voice activity of the next frame. interrupt is true on
// the frame that decides an interruption; speechFrames is then the span of
// the candidate's speech over the agent, in frames.
func (b *bargeInDetector) observe(act frameActivity) (speechFrames int, interrupt bool) {
	agent := b.agentSpeaking.Load()
	if u := b.agentUtterance.Load(); u != b.seenUtterance {
		b.seenUtterance = u
		b.firstFrame, b.voicedFrames = -1, 0
		b.interrupted = false
	}
	switch {
	case act.started:
		if agent {
			b.firstFrame = act.index - int64(act.onsetFramesAgo)
			b.voicedFrames = act.windowVoicedFrames
		}
	case act.inUtterance:
		if act.voiced && agent {
			if b.firstFrame < 0 {
				b.firstFrame = act.index
			}
			b.voicedFrames++
		}
		if act.ended {
			b.firstFrame, b.voicedFrames = -1, 0
		}
	}
	if !agent || !act.voiced || !act.speaking() || b.interrupted || b.firstFrame < 0 {
		return 0, false
	}
	span := int(act.index - b.firstFrame + 1)
	if span < b.thresholdFrames || 2*b.voicedFrames < b.thresholdFrames {
		return 0, false
	}
	b.interrupted = true
	return span, true
}
