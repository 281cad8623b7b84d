package voice

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"gopkg.in/hraban/opus.v2"
)

// recordingWriter is what an OpusInput feeds, in tests: it notes each
// write as audio or marked silence.
type recordingWriter struct {
	writes []string // "a320" audio, "s640" silence, by samples
	audio  []int16
}

func (w *recordingWriter) WriteSample(pcm []int16) error {
	w.writes = append(w.writes, "a"+strconv.Itoa(len(pcm)))
	w.audio = append(w.audio, pcm...)
	return nil
}

func (w *recordingWriter) WriteSilence(n int) error {
	w.writes = append(w.writes, "s"+strconv.Itoa(n))
	return nil
}

func encodeFrames(t *testing.T, pcm []int16, rateHz int) [][]byte {
	t.Helper()
	enc, err := opus.NewEncoder(rateHz, 1, opus.AppVoIP)
	if err != nil {
		t.Fatal(err)
	}
	frame := int(durationToSamples(OpusFrameDuration, rateHz))
	var out [][]byte
	for off := 0; off+frame <= len(pcm); off += frame {
		buf := make([]byte, maxOpusPacketBytes)
		n, err := enc.Encode(pcm[off:off+frame], buf)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, buf[:n])
	}
	return out
}

// TestOpusInput decodes at 16 kHz, fills gaps in the sender's timestamps
// with marked silence, takes DTX packets for silence, drops packets older
// than the last and taps what it writes.
func TestOpusInput(t *testing.T) {
	var ph float64
	packets := encodeFrames(t, voicedSignal(200*time.Millisecond, &ph), InputSampleRate)
	const tick = OpusRTPClockHz / 50 // one 20 ms frame
	var w recordingWriter
	var tapped int
	in, err := newOpusInput(&w, func(pcm []int16) { tapped += len(pcm) })
	if err != nil {
		t.Fatal(err)
	}
	base := uint32(4_294_967_000) // the timestamps wrap around
	for _, p := range []struct {
		payload []byte
		ts      uint32
	}{
		{packets[0], base},
		{packets[1], base + tick},
		{packets[2], base + 4*tick},                       // two frames lost or not sent
		{packets[3], base + 2*tick},                       // late: already covered
		{[]byte{0x08}, base + 5*tick},                     // DTX marker: one 20 ms SILK frame
		{packets[4], base + 30*tick},                      // DTX pause until speech resumes
		{packets[5], base + 30*tick + 100*tick + 51*tick}, // over a second: a restart
	} {
		if err := in.WritePacket(p.payload, p.ts); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"a320", "a320", "s640", "a320", "s320", "s7680", "a320", "a320"}
	if !slices.Equal(w.writes, want) {
		t.Errorf("writes %v, want %v", w.writes, want)
	}
	if total := 320*5 + 640 + 320 + 7680; tapped != total {
		t.Errorf("tapped %d samples, want %d", tapped, total)
	}
	if peak := slices.Max(w.audio); peak < 1000 {
		t.Errorf("decoded audio peaks at %d: not the voiced signal", peak)
	}
}

func TestOpusPacketDuration(t *testing.T) {
	for _, tc := range []struct {
		packet []byte
		want   time.Duration
	}{
		{[]byte{0x08}, 20 * time.Millisecond},       // SILK NB 20 ms
		{[]byte{0x18}, 60 * time.Millisecond},       // SILK NB 60 ms
		{[]byte{0x78}, 20 * time.Millisecond},       // hybrid FB 20 ms
		{[]byte{0xf8}, 20 * time.Millisecond},       // CELT FB 20 ms
		{[]byte{0xf9}, 40 * time.Millisecond},       // two CELT 20 ms frames
		{[]byte{0xf3, 0x04}, 40 * time.Millisecond}, // four 10 ms frames (code 3)
		{[]byte{0xfb, 0x3f}, OpusFrameDuration},     // 63 × 20 ms is no packet
		{nil, OpusFrameDuration},
	} {
		if got := opusPacketDuration(tc.packet); got != tc.want {
			t.Errorf("duration of % x = %v, want %v", tc.packet, got, tc.want)
		}
	}
}

// TestListenerWriteSilence: marked silence ends an utterance as coded
// silence does, reaches the STT stream as zeros, and is never shown to
// the VAD.
func TestListenerWriteSilence(t *testing.T) {
	eng := &testSTT{}
	l, err := NewListener(t.Context(), ListenerOptions{STT: eng})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var ph float64
	if err := l.WriteSample(make([]int16, durationToSamples(300*time.Millisecond, InputSampleRate))); err != nil {
		t.Fatal(err)
	}
	if err := l.WriteSample(voicedSignal(time.Second, &ph)); err != nil {
		t.Fatal(err)
	}
	before := l.activity.frameIdx
	if err := l.WriteSilence(int(durationToSamples(DefaultMinSilence+100*time.Millisecond, InputSampleRate))); err != nil {
		t.Fatal(err)
	}
	frames := l.activity.frameIdx - before
	var got []string
	for len(got) < 2 {
		select {
		case ev := <-l.Events():
			switch ev.(type) {
			case SpeechStarted:
				got = append(got, "started")
			case SpeechEnded:
				got = append(got, "ended")
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("events %v: the utterance did not end on marked silence", got)
		}
	}
	if !slices.Equal(got, []string{"started", "ended"}) {
		t.Errorf("events %v, want started, ended", got)
	}
	if want := durationToSamples(DefaultMinSilence+100*time.Millisecond, InputSampleRate) / int64(vadFrameSamples16kHz); frames != want {
		t.Errorf("%d frames of silence counted, want %d", frames, want)
	}
}

// TestVoiceActivityMarkedSilence: a frame made only of marked silence is
// unvoiced without asking the classifier; a frame partly of it is asked.
func TestVoiceActivityMarkedSilence(t *testing.T) {
	c := &scriptedClassifier{pattern: "vv"}
	a := newVoiceActivity(c, 60*time.Millisecond, 100*time.Millisecond)
	if _, full := a.fillSilence(zeroFrame[:]); !full {
		t.Fatal("a whole frame of silence did not fill the frame")
	}
	if act, err := a.classify(); err != nil || act.voiced || c.next != 0 {
		t.Fatalf("marked silence: %+v, %v, classifier asked %d times; want unvoiced, unasked", act, err, c.next)
	}
	a.fillSilence(zeroFrame[:vadFrameSamples16kHz/2])
	a.fill(make([]int16, vadFrameSamples16kHz/2))
	if _, err := a.classify(); err != nil || c.next != 1 {
		t.Fatalf("half a frame of audio: %v, classifier asked %d times; want once", err, c.next)
	}
}
