package voice

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// packetLog records what a Playout sends, with the pacer's clock.
type packetLog struct {
	mu    sync.Mutex
	slots []int64
	at    []time.Time
	sizes []int
}

func (p *packetLog) WritePacket(opus []byte, slot int64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.slots = append(p.slots, slot)
	p.at = append(p.at, time.Now())
	p.sizes = append(p.sizes, len(opus))
	return nil
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

// TestPlayoutPacing: two sessions' audio leaves on one clock, one 20 ms
// frame per session per slot in consecutive slots, the first at once in
// the slot under way, a remainder padded into a last frame;
// WaitForPlayout returns once all is sent, and the clock stops when
// nobody speaks.
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
		if want := []int64{0, 1, 2, 3, 4, 5}; !slices.Equal(slots0, want) {
			t.Errorf("session 0 sent in slots %v, want %v", slots0, want)
		}
		if want := []int64{0, 1}; !slices.Equal(slots1, want) {
			t.Errorf("session 1 sent in slots %v, want %v", slots1, want)
		}
		for i := 1; i < len(at0); i++ {
			if gap := at0[i].Sub(at0[i-1]); gap != OpusFrameDuration {
				t.Errorf("frame %d left %v after the previous one, want %v", i, gap, OpusFrameDuration)
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
		if got, want := slots1[2], pacer.slotAt(time.Now()); got != want {
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
		pl.tap = func(pcm []int16) { tapped += len(pcm) }
		if err := pl.WriteSample(make([]int16, 16000)); err != nil { // 1 s
			t.Fatal(err)
		}
		time.Sleep(2*OpusFrameDuration + time.Millisecond) // the first frame, then two ticks
		released := make(chan struct{})
		go func() {
			pl.WaitForPlayout()
			close(released)
		}()
		synctest.Wait()
		pl.ClearQueue()
		<-released
		time.Sleep(time.Second)
		if slots, _ := log.snapshot(); len(slots) != 3 {
			t.Errorf("%d frames sent, want the 3 before the clear", len(slots))
		}
		if tapped != 16000 {
			t.Errorf("tap saw %d samples, want 16000", tapped)
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
		time.Sleep(OpusFrameDuration + time.Millisecond) // slots 0 (at once) and 1 sent on time
		mu.Lock()
		skew = 2 * OpusFrameDuration // the next wake-up comes two slots late
		mu.Unlock()
		pl.WaitForPlayout()
		slots, _ := log.snapshot()
		if want := []int64{0, 1, 2, 3, 4}; !slices.Equal(slots, want) {
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
// never two frames in one slot when the clock's tick falls in the same
// slot.
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
		if want := []int64{3, 4, 5}; !slices.Equal(slots, want) {
			t.Errorf("the second session sent in slots %v, want %v", slots, want)
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
