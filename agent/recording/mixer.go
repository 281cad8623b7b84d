package recording

// Voice is one of the two voices of a recording.
type Voice int

// The voices mixed in a recording.
const (
	// Candidate is the candidate's microphone as the listener receives it.
	Candidate Voice = iota
	// Agent is the interviewer's speech as written to its track.
	Agent
	voices
)

// mixer lays the two voices on one timeline of samples at one rate and
// hands out the mix, silence filled, frame by frame. Positions count samples
// since the recording started. Each voice continues where its last audio
// ended unless that lies in the past (the voice was silent): then it starts
// at the time it is written. The candidate's audio has just arrived, so it
// ends at the time it is written; the interviewer's is queued behind what
// its track still plays, so it starts then. Audio not yet handed out can be
// withdrawn (Clear: the track's queue was dropped when the candidate cut
// the interviewer off).
//
// A voice's audio can come with the Opus packet that holds it (one 20 ms
// frame); the packet is kept beside the samples when they lie on the
// frame grid, so the frame handed out can name it and the recording can
// carry that packet instead of encoding the frame again. Audio that starts
// after a pause of its voice is moved onto the grid, by half a frame at
// most, over that voice's own silence. It is not safe for concurrent use.
type mixer struct {
	frameSamples int   // samples per frame handed out
	slack        int64 // a voice this close behind "now" stays contiguous
	maxAhead     int64 // audio placed further ahead than this is dropped
	emitted      int64 // position of the first sample not handed out
	cursor       [voices]int64
	buf          [voices][]int16  // from emitted on
	packets      [voices][]placed // packets of frames not handed out, by position
	seq          [voices]int64    // packets written per voice
	spare        [][]byte         // packet buffers to reuse
	out          mixFrame
	dropped      int64 // samples dropped: too late or too far ahead
}

// placed is a voice's packet that holds the frame of the mix at pos.
type placed struct {
	pos  int64
	seq  int64 // the voice's packets written before it, plus one
	data []byte
}

// mixFrame is a frame of the mix as Next hands it out.
type mixFrame struct {
	pcm []int16
	// peak is, per voice, the largest magnitude of its samples in the
	// frame.
	peak [voices]int
	// packet is, per voice, its packet that holds this frame (data nil
	// when it has none).
	packet [voices]placed
}

// alignSlack is how far a voice's packet may lie off the frame grid and
// still count as holding the frame: what resampling a TTS engine's 8 or
// 12 kHz frames to the recording's rate shifts them by.
const alignSlack = 2

func newMixer(frameSamples int, slack, maxAhead int64) *mixer {
	return &mixer{frameSamples: frameSamples, slack: slack, maxAhead: maxAhead, out: mixFrame{pcm: make([]int16, frameSamples)}}
}

// Write places pcm of voice v, written when the timeline was at now, with
// packet, when not nil, the Opus packet of one frame that holds it. It
// keeps neither.
func (m *mixer) Write(v Voice, now int64, pcm []int16, packet []byte) {
	n := int64(len(pcm))
	at := now // the interviewer's audio starts playing now at the earliest
	if v == Candidate {
		at = now - n // the candidate's audio has just ended
	}
	start := m.cursor[v]
	if start < at-m.slack {
		start = at
	}
	if start > now+m.maxAhead {
		m.dropped += n
		return
	}
	if packet != nil {
		start = m.placePacket(v, start, n, packet)
	}
	m.cursor[v] = start + n
	if start < m.emitted { // too late: the mix has moved on
		skip := min(m.emitted-start, n)
		m.dropped += skip
		pcm, start = pcm[skip:], m.emitted
	}
	if len(pcm) == 0 {
		return
	}
	off := int(start - m.emitted)
	b := m.buf[v]
	if need := off + len(pcm); need > len(b) {
		b = append(b, make([]int16, need-len(b))...)
	}
	copy(b[off:], pcm)
	m.buf[v] = b
}

// placePacket keeps the packet of voice v's n samples that would start at
// start when they hold one frame on the grid, moving them onto it when
// they follow a pause of the voice, and returns where they start.
func (m *mixer) placePacket(v Voice, start, n int64, packet []byte) int64 {
	m.seq[v]++
	fs := int64(m.frameSamples)
	grid := (start + fs/2) / fs * fs
	off := start - grid
	at := start
	switch {
	case n < fs-alignSlack || n > fs+alignSlack || grid < m.emitted:
		return start
	case off >= -alignSlack && off <= alignSlack:
	case m.quietBefore(v, start):
		at = grid
	default:
		return start
	}
	var b []byte
	if k := len(m.spare); k > 0 {
		b, m.spare = m.spare[k-1][:0], m.spare[:k-1]
	} else {
		b = make([]byte, 0, packetRoomBytes)
	}
	m.packets[v] = append(m.packets[v], placed{pos: grid, seq: m.seq[v], data: append(b, packet...)})
	return at
}

// quietBefore reports whether voice v placed nothing louder than faint in
// the frame before start.
func (m *mixer) quietBefore(v Voice, start int64) bool {
	from := max(start-int64(m.frameSamples), m.emitted) - m.emitted
	to := min(start, m.cursor[v]) - m.emitted
	return from >= to || peak(m.buf[v][from:to]) <= faintLevel
}

// Clear withdraws voice v's audio placed after now: it was queued and will
// never play.
func (m *mixer) Clear(v Voice, now int64) {
	if m.cursor[v] <= now {
		return
	}
	m.cursor[v] = max(now, m.emitted)
	if keep := int(m.cursor[v] - m.emitted); keep < len(m.buf[v]) {
		m.buf[v] = m.buf[v][:keep]
	}
	ps := m.packets[v]
	for len(ps) > 0 && ps[len(ps)-1].pos+int64(m.frameSamples) > m.cursor[v] {
		m.free(ps[len(ps)-1].data)
		ps = ps[:len(ps)-1]
	}
	m.packets[v] = ps
}

// End is the position where the last audio placed ends.
func (m *mixer) End() int64 { return max(m.cursor[Candidate], m.cursor[Agent], m.emitted) }

// Emitted is the position of the first sample not yet handed out.
func (m *mixer) Emitted() int64 { return m.emitted }

// Next hands out the next frame of the mix when it ends at or before upTo;
// the frame, and the packets it names, are valid until the next call.
func (m *mixer) Next(upTo int64) (*mixFrame, bool) {
	fs := m.frameSamples
	if m.emitted+int64(fs) > upTo {
		return nil, false
	}
	f := &m.out
	for v := range voices {
		m.free(f.packet[v].data)
		f.packet[v] = placed{}
	}
	for i := range f.pcm {
		var s int32
		for v := range voices {
			if i < len(m.buf[v]) {
				s += int32(m.buf[v][i])
			}
		}
		f.pcm[i] = int16(max(-32768, min(32767, s)))
	}
	for v := range voices {
		b := m.buf[v]
		f.peak[v] = peak(b[:min(fs, len(b))])
		ps := m.packets[v]
		for len(ps) > 0 && ps[0].pos <= m.emitted {
			if ps[0].pos == m.emitted {
				f.packet[v] = ps[0]
			} else {
				m.free(ps[0].data)
			}
			ps = ps[1:]
		}
		m.packets[v] = ps
		if len(b) <= fs {
			m.buf[v] = b[:0]
			continue
		}
		m.buf[v] = b[:copy(b, b[fs:])]
	}
	m.emitted += int64(fs)
	return f, true
}

// free keeps a packet's buffer for reuse.
func (m *mixer) free(p []byte) {
	if p != nil {
		m.spare = append(m.spare, p)
	}
}

// resampler converts a stream of mono PCM16 from one rate to another by
// linear interpolation; going down, a [1 2 1]/4 filter first takes off most
// of what the lower rate cannot hold. Speech needs no better. It keeps its
// state across calls, so chunks join without clicks.
type resampler struct {
	fromHz, toHz int
	prev         [2]int16 // the last two input samples, newest last
	last         int16    // the last filtered sample
	pos          float64  // position of the next output, in inputs since last
}

func newResampler(fromHz, toHz int) *resampler {
	return &resampler{fromHz: fromHz, toHz: toHz, pos: 1}
}

// Process appends in, resampled, to out.
func (r *resampler) Process(out, in []int16) []int16 {
	if r.fromHz == r.toHz {
		return append(out, in...)
	}
	down := r.fromHz > r.toHz
	step := float64(r.fromHz) / float64(r.toHz)
	at := func(i int) int16 { // the filtered input i (0 = r.last, 1 = in[0], …)
		if i == 0 {
			return r.last
		}
		return r.filtered(in, i-1, down)
	}
	n := len(in)
	for r.pos < float64(n) {
		i := int(r.pos)
		frac := r.pos - float64(i)
		a, b := float64(at(i)), float64(at(i+1))
		out = append(out, int16(a+(b-a)*frac))
		r.pos += step
	}
	if n > 0 {
		r.last = r.filtered(in, n-1, down)
		switch n {
		case 1:
			r.prev = [2]int16{r.prev[1], in[0]}
		default:
			r.prev = [2]int16{in[n-2], in[n-1]}
		}
		r.pos -= float64(n)
	}
	return out
}

// filtered is input i of in after the anti-alias filter (when down).
func (r *resampler) filtered(in []int16, i int, down bool) int16 {
	if !down {
		return in[i]
	}
	x := func(j int) int32 {
		if j >= 0 {
			return int32(in[j])
		}
		return int32(r.prev[2+j])
	}
	return int16((x(i-2) + 2*x(i-1) + x(i)) / 4)
}
