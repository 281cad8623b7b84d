package voice

// frameSink receives 20 ms frames in order, each marked as part of an
// utterance or not; stt.Stream is one.
type frameSink interface {
	Write(frame []int16, inUtterance bool) error
}

// preRollBuffer is a delay line of whole 20 ms frames between the
// microphone and the STT stream while no utterance is in progress. Frames
// leave it, oldest first and marked not-utterance, only when it is full;
// at an onset flush sends everything it holds marked utterance, so the
// engine hears the audio before the onset and the first syllable. Every
// frame pushed reaches the sink exactly once, in order.
type preRollBuffer struct {
	out frameSink
	// ring holds capacityFrames frames; the oldest is at startFrame and
	// heldFrames are in use.
	ring           []int16
	capacityFrames int
	startFrame     int
	heldFrames     int
}

// newPreRollBuffer returns a delay line of capacityFrames (at least one)
// frames in front of out.
func newPreRollBuffer(out frameSink, capacityFrames int) preRollBuffer {
	return preRollBuffer{
		out:            out,
		ring:           make([]int16, capacityFrames*vadFrameSamples16kHz),
		capacityFrames: capacityFrames,
	}
}

// slot is the ring's i-th frame.
func (p *preRollBuffer) slot(i int) []int16 {
	return p.ring[i*vadFrameSamples16kHz : (i+1)*vadFrameSamples16kHz]
}

// push stores a copy of frame; when the line is full, its oldest frame
// first goes to the sink as not-utterance. A sink error is returned; the
// frame is stored all the same.
func (p *preRollBuffer) push(frame []int16) error {
	if p.heldFrames == p.capacityFrames {
		oldest := p.slot(p.startFrame)
		err := p.out.Write(oldest, false)
		copy(oldest, frame)
		p.startFrame = (p.startFrame + 1) % p.capacityFrames
		return err
	}
	copy(p.slot((p.startFrame+p.heldFrames)%p.capacityFrames), frame)
	p.heldFrames++
	return nil
}

// flush writes every held frame to the sink as utterance, oldest first,
// and empties the line. It returns the first sink error.
func (p *preRollBuffer) flush() error {
	var err error
	for k := range p.heldFrames {
		if werr := p.out.Write(p.slot((p.startFrame+k)%p.capacityFrames), true); werr != nil && err == nil {
			err = werr
		}
	}
	p.startFrame, p.heldFrames = 0, 0
	return err
}
