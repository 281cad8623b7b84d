package voice

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"testing/synctest"
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
	var carried [][]byte // the packets tapped with their audio
	in, err := newOpusInput(&w, func(pcm []int16, packet []byte) {
		tapped += len(pcm)
		if packet != nil {
			if len(pcm) != 320 {
				t.Errorf("a packet tapped with %d samples", len(pcm))
			}
			carried = append(carried, slices.Clone(packet))
		}
	})
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
	if want := [][]byte{packets[0], packets[1], packets[2], packets[4], packets[5]}; !slices.EqualFunc(carried, want, bytes.Equal) {
		t.Errorf("tapped %d packets with their audio, want the %d decoded", len(carried), len(want))
	}
	// Only a mono packet of one 20 ms frame is tapped with its audio.
	joined, _ := joinOpusFrames(nil, packets[0], packets[1])
	stereo := append([]byte{packets[0][0] | 0x04}, packets[0][1:]...)
	for what, p := range map[string][]byte{"40 ms": joined, "stereo": stereo} {
		if recordablePacket(p, 320) != nil || recordablePacket(p, 640) != nil {
			t.Errorf("a %s packet is tapped with its audio", what)
		}
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

// frameTicks is one 20 ms frame on the RTP clock.
const frameTicks = OpusRTPClockHz / 50

// dtxMarker is a silence marker as a DTX sender sends it: one byte, the
// table of contents of one 20 ms SILK frame.
var dtxMarker = []byte{0x08}

// TestOpusInputDTXEndOfSpeech: a sender speaks, then sends one DTX packet
// every 400 ms; on a SilenceClock the Listener sees the end of speech
// within silenceFillAfter of when the pause is long enough, not when the
// next DTX packet arrives, and the audio written by the time a packet
// arrives is exactly the time elapsed on the sender's clock.
func TestOpusInputDTXEndOfSpeech(t *testing.T) {
	var ph float64
	pcm := append(make([]int16, durationToSamples(300*time.Millisecond, InputSampleRate)),
		voicedSignal(time.Second, &ph)...)
	packets := encodeFrames(t, pcm, InputSampleRate)
	const dtxEvery = 20 // frames: 400 ms
	synctest.Test(t, func(t *testing.T) {
		l := newTestListener(t, &testSTT{}, ListenerOptions{})
		var tapped atomic.Int64
		in, err := NewOpusInput(l, func(pcm []int16, _ []byte) { tapped.Add(int64(len(pcm))) })
		if err != nil {
			t.Fatal(err)
		}
		clock := NewSilenceClock(nil)
		clock.Add(in)
		start := time.Now()
		// Frame f's packet is sent once the frame is captured: at (f+1) × 20 ms.
		sentAt := func(f int) time.Time { return start.Add(time.Duration(f+1) * OpusFrameDuration) }
		lastAudio := len(packets) - 1
		frames := lastAudio + 1 + 5*dtxEvery
		fed := make(chan error, 1)
		go func() {
			defer close(fed)
			for f := range frames {
				time.Sleep(time.Until(sentAt(f)))
				var p []byte
				switch {
				case f <= lastAudio:
					p = packets[f]
				case (f-lastAudio)%dtxEvery == 0:
					p = dtxMarker
				default:
					continue
				}
				if err := in.WritePacket(p, uint32(f)*frameTicks); err != nil {
					fed <- err
					return
				}
				if want := int64(f+1) * int64(vadFrameSamples16kHz); tapped.Load() != want {
					fed <- fmt.Errorf("after frame %d: %d samples written, want %d (the time elapsed)", f, tapped.Load(), want)
					return
				}
			}
		}()
		var endSeen time.Time
		for ev := range l.Events() {
			if _, ok := ev.(SpeechEnded); ok {
				endSeen = time.Now()
				break
			}
		}
		if err := <-fed; err != nil {
			t.Fatal(err)
		}
		due := sentAt(lastAudio).Add(DefaultMinSilence)
		if late := endSeen.Sub(due); endSeen.IsZero() || late > silenceFillAfter {
			t.Errorf("end of speech seen %v after the pause reached %v, want within %v", late, DefaultMinSilence, silenceFillAfter)
		}
		in.Close()
		if n := clock.Inputs(); n != 0 {
			t.Errorf("%d inputs still on the clock after Close", n)
		}
	})
}

// TestOpusInputFillAccounting steps the wall clock by hand: the silence
// written by the clock and by the packets that follow adds up to the time
// elapsed, late packets of audio already heard are dropped, a DTX packet
// the clock covered writes nothing, and audio the clock wrongly took for
// silence (held up in the network) still reaches the Listener, the next
// pause being shortened by as much.
func TestOpusInputFillAccounting(t *testing.T) {
	var ph float64
	audio := encodeFrames(t, voicedSignal(200*time.Millisecond, &ph), InputSampleRate)
	var w recordingWriter
	in, err := newOpusInput(&w, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Unix(1_000_000, 0)
	now := start
	in.now = func() time.Time { return now }
	written := func() (n int) {
		for _, s := range w.writes {
			k, _ := strconv.Atoi(s[1:])
			n += k
		}
		return n
	}
	const base = uint32(4_294_967_000) // the timestamps wrap around
	// slot advances the wall clock to the end of frame f and runs the
	// clock's fill.
	slot := func(f int) {
		now = start.Add(time.Duration(f+1) * OpusFrameDuration)
		in.fillSilence(now)
	}
	send := func(f int, p []byte) {
		t.Helper()
		if err := in.WritePacket(p, base+uint32(f)*frameTicks); err != nil {
			t.Fatal(err)
		}
	}
	wantWritten := func(what string, frames int) {
		t.Helper()
		if got := written(); got != frames*vadFrameSamples16kHz {
			t.Errorf("%s: %d samples written, want %d (%d frames); writes %v", what, got, frames*vadFrameSamples16kHz, frames, w.writes)
		}
	}

	for f := range 5 { // speech, frames 0–4
		slot(f)
		send(f, audio[f])
	}
	for f := 5; f < 9; f++ {
		slot(f) // 80 ms without a packet: not yet a pause
	}
	wantWritten("80 ms after the last packet", 5)
	slot(9) // 100 ms: the clock writes the pause so far, less one frame
	wantWritten("100 ms after the last packet", 9)
	for f := 10; f <= 24; f++ {
		slot(f)
	}
	send(24, dtxMarker) // the DTX packet 400 ms on
	wantWritten("at the DTX packet", 25)
	send(3, audio[3]) // a late duplicate: dropped
	wantWritten("after a late duplicate", 25)

	// Speech resumes, then its packets are held up in the network for
	// 120 ms: the clock takes that for a pause and writes 80 ms.
	slot(25)
	send(25, audio[5])
	for f := 26; f <= 30; f++ {
		slot(f)
	}
	wantWritten("while speech is held up", 30)
	for f := 26; f <= 30; f++ {
		send(f, audio[f%len(audio)]) // they arrive at once: written after the silence
	}
	if got := w.writes[len(w.writes)-5:]; !slices.Equal(got, []string{"a320", "a320", "a320", "a320", "a320"}) {
		t.Errorf("held-up audio: last writes %v, want it all", got)
	}
	send(28, audio[8]) // reordered after newer audio: dropped
	wantWritten("after the held-up audio", 35)

	// The next pause absorbs those 80 ms: the clock writes only what the
	// time elapsed (less the frame held back) leaves. This pause's DTX
	// packet is 80 ms late, and the clock has covered it already.
	for f := 31; f <= 54; f++ {
		slot(f)
	}
	send(50, dtxMarker)
	wantWritten("at a DTX packet covered by the clock", 54)
	slot(55)
	send(55, audio[0]) // speech again: only the frame the clock held back is added
	wantWritten("when speech resumes", 56)

	// A sender that stops for good gets at most maxGapFill of silence.
	for f := 56; f < 56+200; f++ {
		slot(f)
	}
	wantWritten("long after the sender stopped", 56+int(maxGapFill/OpusFrameDuration))
	in.Close()
	n := written()
	slot(300)
	if written() != n {
		t.Error("the clock wrote silence after Close")
	}
}

// TestOpusInputSkipsUnvoiced: packets the sender's encoder marks as
// holding no voice are written as silence, undecoded, after the first
// quietDecoded of a run; the speech after them decodes whole, and no time
// is lost.
func TestOpusInputSkipsUnvoiced(t *testing.T) {
	var ph float64
	pcm := voicedSignal(300*time.Millisecond, &ph)
	pcm = append(pcm, make([]int16, InputSampleRate)...) // a second of silence
	pcm = append(pcm, voicedSignal(300*time.Millisecond, &ph)...)
	packets := encodeFrames(t, pcm, InputSampleRate)
	var w recordingWriter
	var tapped int
	in, err := newOpusInput(&w, func(pcm []int16, _ []byte) { tapped += len(pcm) })
	if err != nil {
		t.Fatal(err)
	}
	const tick = OpusRTPClockHz / 50
	for i, p := range packets {
		if err := in.WritePacket(p, uint32(i*tick)); err != nil {
			t.Fatal(err)
		}
	}
	silent := 0
	for _, s := range w.writes {
		if s == "s320" {
			silent++
		}
	}
	// The encoder's voice detector lets a frame or two of silence through
	// as voice, the next 200 ms are decoded, the rest of the second is not.
	decoded := int(quietDecoded / OpusFrameDuration)
	if silent < 50-decoded-3 || silent > 50-decoded {
		t.Errorf("%d of the 50 silent packets written as silence, want %d to %d: %v", silent, 50-decoded-3, 50-decoded, w.writes)
	}
	if want := len(packets) * 320; tapped != want {
		t.Errorf("tapped %d samples, want %d", tapped, want)
	}
	last := w.audio[len(w.audio)-3200:] // the last 200 ms decoded
	if peak := slices.Max(last); peak < 1000 {
		t.Errorf("the speech after the pause peaks at %d: not the voiced signal", peak)
	}
	for _, p := range packets[:10] {
		if !opusVoiced(p) {
			t.Fatalf("a packet of speech (% x…) reads as unvoiced", p[:2])
		}
	}
}

func TestOpusVoiced(t *testing.T) {
	for _, tc := range []struct {
		packet []byte
		want   bool
	}{
		{[]byte{0x48, 0x80, 0x11}, true},              // SILK WB 20 ms, VAD set
		{[]byte{0x48, 0x7f, 0x11}, false},             // SILK WB 20 ms, VAD clear
		{[]byte{0x50, 0x40, 0x11}, true},              // SILK WB 40 ms: second frame voiced
		{[]byte{0x50, 0x3f, 0x11}, false},             // SILK WB 40 ms: neither
		{[]byte{0x49, 0x10, 0x00, 0x80, 0x00}, true},  // two 20 ms frames, the second voiced
		{[]byte{0x49, 0x10, 0x00, 0x10, 0x00}, false}, // two 20 ms frames, neither voiced
		{[]byte{0x78, 0x00, 0x11}, false},             // hybrid FB 20 ms, VAD clear
		{[]byte{0xf8, 0x00, 0x11}, true},              // CELT: no flag
		{[]byte{0x4c, 0x00, 0x11}, true},              // stereo
		{[]byte{0x4b, 0x02, 0x00, 0x00}, true},        // code 3: decoded
	} {
		if got := opusVoiced(tc.packet); got != tc.want {
			t.Errorf("opusVoiced(% x) = %v, want %v", tc.packet, got, tc.want)
		}
	}
}
