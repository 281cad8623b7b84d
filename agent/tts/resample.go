package tts

// resampler converts a stream of mono PCM16 audio from one sample rate to
// another by linear interpolation, chunk by chunk, carrying the last input
// sample across chunks so the joins are seamless. Good enough for a backup
// voice; not a studio converter.
type resampler struct {
	fromHz, toHz int
	consumed     int   // input samples seen before the current chunk
	produced     int   // output samples emitted so far
	last         int16 // the last input sample of the previous chunk
	buf          []int16
}

func newResampler(fromHz, toHz int) *resampler {
	return &resampler{fromHz: fromHz, toHz: toHz}
}

// process converts one chunk and returns the output it completes; the
// returned slice is reused by the next call.
func (r *resampler) process(in []int16) []int16 {
	if r.fromHz == r.toHz {
		return in
	}
	r.buf = r.buf[:0]
	total := r.consumed + len(in)
	sample := func(i int) float64 {
		if i < r.consumed {
			return float64(r.last) // only ever the previous chunk's last sample
		}
		return float64(in[i-r.consumed])
	}
	for {
		num := r.produced * r.fromHz // output position in input samples, × toHz
		i := num / r.toHz
		if i+1 >= total {
			break
		}
		frac := float64(num%r.toHz) / float64(r.toHz)
		a, b := sample(i), sample(i+1)
		r.buf = append(r.buf, int16(a+(b-a)*frac))
		r.produced++
	}
	if len(in) > 0 {
		r.last = in[len(in)-1]
	}
	r.consumed = total
	return r.buf
}
