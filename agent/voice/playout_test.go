package voice

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"gopkg.in/hraban/opus.v2"
)

// packetLog records what a Playout sends, with the pacer's clock.
type packetLog struct {
	mu     sync.Mutex
	slots  []int64
	frames []int
	at     []time.Time
	sizes  []int
}

func (p *packetLog) WritePacket(opus []byte, slot int64, frames int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.slots = append(p.slots, slot)
	p.frames = append(p.frames, frames)
	p.at = append(p.at, time.Now())
	p.sizes = append(p.sizes, len(opus))
	return nil
}

// framesSent is how many frames the packets held.
func (p *packetLog) framesSent() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.frames)
}

func (p *packetLog) snapshot() ([]int64, []time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.slots), slices.Clone(p.at)
}

// twoPlayouts makes two sessions' playouts on pacer at rateHz, sending to
// logs; the test's end closes them.
func twoPlayouts(t *testing.T, pacer *Pacer, rateHz int, logs *[2]packetLog) [2]*Playout {
	var pls [2]*Playout
	for i := range pls {
		pl, err := NewPlayout(PlayoutOptions{SampleRateHz: rateHz, Pacer: pacer, Out: &logs[i]})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = pl.Close() })
		pls[i] = pl
	}
	return pls
}

// TestPlayoutPacing: two sessions' audio leaves on one clock, the first
// packet at once in the slot under way; a frame whose next one is queued
// leaves with it in one packet a slot ahead, the others one per slot; a
// remainder is padded into a last frame; WaitForPlayout returns once all
// is sent, and the clock stops when nobody speaks.
func TestPlayoutPacing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pacer := NewPacer(nil)
		var logs [2]packetLog
		pls := twoPlayouts(t, pacer, 24000, &logs)
		var ph float64
		speech := voicedSignal(time.Second, &ph) // at 16 kHz: 1.5 s read as 24 kHz
		start := time.Now()
		if err := pls[0].WriteSample(speech[:24000*100/1000+7]); err != nil { // 100 ms and 7 samples
			t.Fatal(err)
		}
		if err := pls[1].WriteSample(speech[:24000*40/1000]); err != nil {
			t.Fatal(err)
		}
		pls[0].WaitForPlayout()
		if got := time.Since(start); got != 5*OpusFrameDuration {
			t.Errorf("playout of 6 frames took %v, want %v (the first goes at once)", got, 5*OpusFrameDuration)
		}
		slots0, at0 := logs[0].snapshot()
		slots1, _ := logs[1].snapshot()
		if !at0[0].Equal(start) {
			t.Errorf("the first frame left %v after it was written, want at once", at0[0].Sub(start))
		}
		if want := []int64{0, 2, 4, 5}; !slices.Equal(slots0, want) {
			t.Errorf("session 0 sent in slots %v, want %v", slots0, want)
		}
		if got, want := logs[0].framesSent(), []int{2, 2, 1, 1}; !slices.Equal(got, want) {
			t.Errorf("session 0's packets held %v frames, want %v", got, want)
		}
		if want := []int64{0}; !slices.Equal(slots1, want) {
			t.Errorf("session 1 sent in slots %v, want %v", slots1, want)
		}
		for i := 1; i < len(at0); i++ {
			if gap, want := at0[i].Sub(at0[i-1]), time.Duration(slots0[i]-slots0[i-1])*OpusFrameDuration; gap != want {
				t.Errorf("packet %d left %v after the previous one, want %v", i, gap, want)
			}
		}
		synctest.Wait()
		pacer.mu.Lock()
		running := pacer.running
		pacer.mu.Unlock()
		if running {
			t.Error("the pacer's clock runs with nothing to send")
		}
		if pacer.LateFrames() != 0 || pacer.SentFrames() != 8 {
			t.Errorf("late %d, sent %d; want 0 and 8", pacer.LateFrames(), pacer.SentFrames())
		}

		// After a pause the next reply starts a new talkspurt.
		time.Sleep(time.Second)
		if err := pls[1].WriteSample(speech[:480]); err != nil {
			t.Fatal(err)
		}
		pls[1].WaitForPlayout()
		slots1, _ = logs[1].snapshot()
		if got, want := slots1[len(slots1)-1], pacer.slotAt(time.Now()); got != want {
			t.Errorf("after the pause: slot %d, want %d", got, want)
		}
	})
}

// TestPlayoutClearQueue: a cleared queue sends nothing more and releases
// WaitForPlayout at once.
func TestPlayoutClearQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pacer := NewPacer(nil)
		var log packetLog
		pl, err := NewPlayout(PlayoutOptions{SampleRateHz: 16000, Pacer: pacer, Out: &log})
		if err != nil {
			t.Fatal(err)
		}
		defer pl.Close()
		var tapped int
		var packets [][]byte
		pl.tap = func(pcm []int16, packet []byte) {
			tapped += len(pcm)
			packets = append(packets, slices.Clone(packet))
		}
		if err := pl.WriteSample(make([]int16, 16000)); err != nil { // 1 s
			t.Fatal(err)
		}
		time.Sleep(2*OpusFrameDuration + time.Millisecond) // the first packet, then two ticks
		released := make(chan struct{})
		go func() {
			pl.WaitForPlayout()
			close(released)
		}()
		synctest.Wait()
		pl.ClearQueue()
		<-released
		time.Sleep(time.Second)
		if frames := log.framesSent(); !slices.Equal(frames, []int{2, 2}) {
			t.Errorf("packets of %v frames sent, want the two packets of two frames before the clear", frames)
		}
		if tapped != 16000 || len(packets) != 50 {
			t.Errorf("tap saw %d samples in %d frames, want 16000 in 50", tapped, len(packets))
		}
		// Each frame is tapped with the packet it was encoded into: the two
		// sent joined them.
		for i, size := range log.sizes {
			joined, _ := joinOpusFrames(nil, packets[2*i], packets[2*i+1])
			if len(joined) != size {
				t.Errorf("packet %d: %d bytes sent, the tapped frames join into %d", i, size, len(joined))
			}
		}
	})
}

// TestPacerLateFrames: a clock held up past a slot sends the missed
// frames at once, counted late, so the stream keeps its timing.
func TestPacerLateFrames(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var skew time.Duration
		var mu sync.Mutex
		pacer := NewPacer(func() time.Time { mu.Lock(); defer mu.Unlock(); return time.Now().Add(skew) })
		var log packetLog
		pl, err := NewPlayout(PlayoutOptions{SampleRateHz: 16000, Pacer: pacer, Out: &log})
		if err != nil {
			t.Fatal(err)
		}
		defer pl.Close()
		if err := pl.WriteSample(make([]int16, 320*5)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(OpusFrameDuration + time.Millisecond) // slots 0 and 1 sent at once, in one packet
		mu.Lock()
		skew = 2 * OpusFrameDuration // the next wake-up comes two slots late
		mu.Unlock()
		pl.WaitForPlayout()
		slots, _ := log.snapshot()
		if want := []int64{0, 2, 4}; !slices.Equal(slots, want) {
			t.Errorf("slots %v, want %v", slots, want)
		}
		if got := pacer.LateFrames(); got != 2 {
			t.Errorf("%d late frames, want 2", got)
		}
	})
}

func TestNewPlayoutRate(t *testing.T) {
	if _, err := NewPlayout(PlayoutOptions{SampleRateHz: 22050, Pacer: NewPacer(nil), Out: &packetLog{}}); err == nil {
		t.Error("a 22.05 kHz playout was accepted; Opus cannot code it")
	}
}

// TestPlayoutFirstFrameOnRunningClock: a session that starts speaking
// while the clock runs for another sends its first frame at once, and
// never a frame twice or a slot twice when the clock's tick falls in the
// slot its first packet covers.
func TestPlayoutFirstFrameOnRunningClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pacer := NewPacer(nil)
		var logs [2]packetLog
		pls := twoPlayouts(t, pacer, 16000, &logs)
		if err := pls[0].WriteSample(make([]int16, 320*10)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3*OpusFrameDuration + OpusFrameDuration/2)
		start := time.Now()
		if err := pls[1].WriteSample(make([]int16, 320*3)); err != nil {
			t.Fatal(err)
		}
		pls[1].WaitForPlayout()
		slots, at := logs[1].snapshot()
		if want := []int64{3, 5}; !slices.Equal(slots, want) {
			t.Errorf("the second session sent in slots %v, want %v", slots, want)
		}
		if got, want := logs[1].framesSent(), []int{2, 1}; !slices.Equal(got, want) {
			t.Errorf("its packets held %v frames, want %v", got, want)
		}
		if !at[0].Equal(start) {
			t.Errorf("its first frame left %v after it was written, want at once", at[0].Sub(start))
		}
		pls[0].WaitForPlayout()
		if got := pacer.SentFrames(); got != 13 {
			t.Errorf("%d frames sent, want 13", got)
		}
	})
}

// TestJoinOpusFrames: two frames joined in one packet decode to what the
// two packets decode to, one after the other, whether the frames are of
// one size (code 1) or not (code 3, with one- and two-byte lengths); a
// packet of other frames is not joined.
func TestJoinOpusFrames(t *testing.T) {
	var ph float64
	speech := voicedSignal(time.Second, &ph)
	long := false // a frame of 252 bytes or more: its length takes two bytes
	// At 48 kHz the bitrate alternates so that long frames differ in size.
	for _, c := range []struct{ rate, bitrate, alt int }{{16000, opusEncoderBitrate, opusEncoderBitrate}, {48000, 160_000, 123_000}} {
		rate, bitrate := c.rate, c.bitrate
		frame := rate / 50
		enc, err := opus.NewEncoder(rate, 1, opusEncoderApplication)
		if err != nil {
			t.Fatal(err)
		}
		var packets [][]byte
		for i := 0; i+frame <= len(speech) && len(packets) < 10; i += frame {
			if err := enc.SetBitrate([]int{c.bitrate, c.alt}[len(packets)%2]); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, maxOpusPacketBytes)
			n, err := enc.Encode(speech[i:i+frame], buf)
			if err != nil {
				t.Fatal(err)
			}
			packets = append(packets, buf[:n])
			long = long || n > 252
		}
		pairs := [][2][]byte{{packets[3], packets[3]}} // one size
		for i := 0; i+1 < len(packets); i += 2 {
			pairs = append(pairs, [2][]byte{packets[i], packets[i+1]})
		}
		for i, pair := range pairs {
			joined, ok := joinOpusFrames(nil, pair[0], pair[1])
			if !ok {
				t.Fatalf("%d bit/s: pair %d (%d and %d bytes) not joined", bitrate, i, len(pair[0]), len(pair[1]))
			}
			if d := opusPacketDuration(joined); d != 2*OpusFrameDuration {
				t.Errorf("%d bit/s: pair %d: the joined packet holds %v, want %v", bitrate, i, d, 2*OpusFrameDuration)
			}
			apart, together := decodeAll(t, rate, pair[0], pair[1]), decodeAll(t, rate, joined)
			if !slices.Equal(apart, together) {
				t.Errorf("%d bit/s: pair %d (%d and %d bytes): the joined packet decodes differently", bitrate, i, len(pair[0]), len(pair[1]))
			}
		}
	}
	if !long {
		t.Error("no frame was long enough to need a two-byte length")
	}
	if _, ok := joinOpusFrames(nil, []byte{0x78, 1, 2}, []byte{0x70, 1, 2}); ok {
		t.Error("frames of two configurations were joined")
	}
	if _, ok := joinOpusFrames(nil, []byte{0x79, 1, 2}, []byte{0x78, 1, 2}); ok {
		t.Error("a packet of two frames was joined again")
	}
}

// decodeAll decodes packets in order with one decoder.
func decodeAll(t *testing.T, rate int, packets ...[]byte) []int16 {
	t.Helper()
	dec, err := opus.NewDecoder(rate, 1)
	if err != nil {
		t.Fatal(err)
	}
	var out []int16
	pcm := make([]int16, rate*120/1000)
	for _, p := range packets {
		n, err := dec.Decode(p, pcm)
		if err != nil {
			t.Fatalf("decoding a %d-byte packet: %v", len(p), err)
		}
		out = append(out, pcm[:n]...)
	}
	return out
}
