package voice

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

const testTTSRate = 24000 // like OpenAI's pcm output

// testTTS is an in-package TTS engine producing, for each call, audio whose
// every sample holds the call's number (1, 2, …), so a sink can tell which
// sentence it is playing. Audio lasts perWord per word; it streams in
// chunks of chunkAudio every chunkEvery after firstDelay.
type testTTS struct {
	firstDelay time.Duration
	chunkAudio time.Duration
	chunkEvery time.Duration
	perWord    time.Duration
	failText   string // synthesis of this text fails after its first chunk

	mu    sync.Mutex
	calls []ttsCall
}

type ttsCall struct {
	text       string
	start, end time.Time
	cancelled  bool
}

func newTestTTS() *testTTS {
	return &testTTS{
		firstDelay: 50 * time.Millisecond,
		chunkAudio: 100 * time.Millisecond,
		chunkEvery: 20 * time.Millisecond,
		perWord:    200 * time.Millisecond,
	}
}

func (e *testTTS) Name() string    { return "test" }
func (e *testTTS) SampleRate() int { return testTTSRate }

func (e *testTTS) Synthesize(ctx context.Context, text string, out func(pcm []int16) error) error {
	e.mu.Lock()
	e.calls = append(e.calls, ttsCall{text: text, start: time.Now()})
	id := len(e.calls)
	e.mu.Unlock()
	err := e.synthesize(ctx, text, int16(id), out)
	e.mu.Lock()
	e.calls[id-1].end = time.Now()
	e.calls[id-1].cancelled = ctx.Err() != nil
	e.mu.Unlock()
	return err
}

func (e *testTTS) synthesize(ctx context.Context, text string, id int16, out func(pcm []int16) error) error {
	total := int(durationToSamples(time.Duration(len(strings.Fields(text)))*e.perWord, testTTSRate))
	chunk := int(durationToSamples(e.chunkAudio, testTTSRate))
	buf := make([]int16, chunk)
	for i := range buf {
		buf[i] = id
	}
	wait := e.firstDelay
	for sent := 0; sent < total; sent += chunk {
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
		wait = e.chunkEvery
		if err := out(buf[:min(chunk, total-sent)]); err != nil {
			return err
		}
		if text == e.failText {
			return errors.New("synthesis service unavailable")
		}
	}
	return nil
}

func (e *testTTS) call(t *testing.T, i int) ttsCall {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if i >= len(e.calls) {
		t.Fatalf("TTS call %d never happened (%d calls)", i, len(e.calls))
	}
	return e.calls[i]
}

// testSink plays audio in virtual time like a Playout on its Pacer: a
// ticker takes one frame (SinkFrameDuration) from the queue every frame.
type testSink struct {
	frame int

	mu        sync.Mutex
	queue     []int16
	maxQueued int
	played    []playedFrame
	writes    []sinkWrite
	clears    []time.Time
	empty     chan struct{}

	stop, stopped chan struct{}
}

type playedFrame struct {
	at      time.Time
	samples []int16
}

type sinkWrite struct {
	at  time.Time
	ids []int16 // distinct sample values in the write
}

func newTestSink(t *testing.T, rateHz int) *testSink {
	s := &testSink{
		frame:   int(durationToSamples(SinkFrameDuration, rateHz)),
		empty:   make(chan struct{}),
		stop:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	go s.run()
	t.Cleanup(func() { close(s.stop); <-s.stopped })
	return s
}

func (s *testSink) run() {
	defer close(s.stopped)
	tick := time.NewTicker(SinkFrameDuration)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-s.stop:
			return
		}
		s.mu.Lock()
		if len(s.queue) > 0 {
			n := min(s.frame, len(s.queue))
			s.played = append(s.played, playedFrame{at: time.Now(), samples: slices.Clone(s.queue[:n])})
			s.queue = s.queue[n:]
			if len(s.queue) == 0 {
				s.signalEmpty()
			}
		}
		s.mu.Unlock()
	}
}

func (s *testSink) signalEmpty() {
	close(s.empty)
	s.empty = make(chan struct{})
}

func (s *testSink) WriteSample(pcm []int16) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, pcm...)
	s.maxQueued = max(s.maxQueued, len(s.queue))
	w := sinkWrite{at: time.Now()}
	for _, v := range pcm {
		if !slices.Contains(w.ids, v) {
			w.ids = append(w.ids, v)
		}
	}
	s.writes = append(s.writes, w)
	return nil
}

func (s *testSink) ClearQueue() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = nil
	s.clears = append(s.clears, time.Now())
	s.signalEmpty()
}

func (s *testSink) WaitForPlayout() {
	for {
		s.mu.Lock()
		if len(s.queue) == 0 {
			s.mu.Unlock()
			return
		}
		ch := s.empty
		s.mu.Unlock()
		<-ch
	}
}

// playedOf returns how many samples of call id were played and when the
// last of them was.
func (s *testSink) playedOf(id int16) (n int, last time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.played {
		for _, v := range f.samples {
			if v == id {
				n++
				last = f.at
			}
		}
	}
	return n, last
}

// lastWriteOf returns when the last write holding call id happened.
func (s *testSink) lastWriteOf(id int16) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	var at time.Time
	for _, w := range s.writes {
		if slices.Contains(w.ids, id) {
			at = w.at
		}
	}
	return at
}

// wait returns u's result, failing the test if it takes longer than a
// minute of virtual time (the sink's ticker would otherwise advance the
// clock forever).
func wait(t *testing.T, u *Utterance) Result {
	t.Helper()
	select {
	case <-u.Done():
	case <-time.After(time.Minute):
		t.Fatal("utterance never finished")
	}
	return u.Wait()
}

func newTestSpeaker(t *testing.T, engine *testTTS, sink *testSink, maxAhead time.Duration) *Speaker {
	t.Helper()
	s, err := NewSpeaker(SpeakerOptions{TTS: engine, Sink: sink, MaxAhead: maxAhead, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("NewSpeaker: %v", err)
	}
	return s
}

func checkMaxAhead(t *testing.T, sink *testSink, maxAhead time.Duration) {
	t.Helper()
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if limit := int(durationToSamples(maxAhead, testTTSRate)); sink.maxQueued > limit {
		t.Errorf("sink held %v of audio, more than MaxAhead %v", samplesToDuration(int64(sink.maxQueued), testTTSRate), maxAhead)
	}
}

func TestSpeakerFirstAudioBeforeReplyEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := newTestTTS()
		sink := newTestSink(t, testTTSRate)
		sp := newTestSpeaker(t, engine, sink, 0)
		deltas := make(chan string)
		start := time.Now()
		u := sp.Say(t.Context(), deltas)
		for _, d := range []string{"Thanks", " for joining", " today.", " Let"} {
			deltas <- d
		}
		<-u.Started() // the first sentence is heard while the reply is still being written
		if got := time.Since(start); got != engine.firstDelay {
			t.Errorf("Started after %v, want %v", got, engine.firstDelay)
		}
		time.Sleep(3 * time.Second) // the LLM stalls mid-reply
		secondAt := time.Now()
		deltas <- " us begin with your background."
		close(deltas)
		r := wait(t, u)
		doneAt := time.Now()

		// First audio: the TTS's own 50 ms, no pipeline delay.
		if got := r.FirstAudioAt.Sub(start); got != engine.firstDelay {
			t.Errorf("first audio %v after Say, want %v", got, engine.firstDelay)
		}
		if !r.FirstAudioAt.Before(secondAt) {
			t.Errorf("first audio waited for the rest of the reply")
		}
		if r.TTSFirstByte != engine.firstDelay {
			t.Errorf("TTSFirstByte = %v, want %v", r.TTSFirstByte, engine.firstDelay)
		}
		want := "Thanks for joining today. Let us begin with your background."
		if !r.Started || r.Interrupted || r.Err != nil || r.Text != want || r.PlayedText != want {
			t.Errorf("result = %+v", r)
		}
		// Done waits for the playout of the last frame.
		n, last := sink.playedOf(2)
		if wantN := int(durationToSamples(6*engine.perWord, testTTSRate)); n != wantN {
			t.Errorf("second sentence: %d samples played, want %d", n, wantN)
		}
		if doneAt.Before(last) {
			t.Errorf("Done at %v, before the last frame played at %v", doneAt.Sub(start), last.Sub(start))
		}
		checkMaxAhead(t, sink, DefaultMaxAhead)
	})
}

func TestSpeakerPipelining(t *testing.T) {
	for _, maxAhead := range []time.Duration{0, 100 * time.Millisecond, 500 * time.Millisecond} {
		t.Run(maxAhead.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				engine := newTestTTS()
				sink := newTestSink(t, testTTSRate)
				sp := newTestSpeaker(t, engine, sink, maxAhead)
				text := "This is the first sentence of the reply. Here comes the second one right after it. And a third to finish."
				r := wait(t, sp.SayText(t.Context(), text))
				if r.PlayedText != text || r.Interrupted {
					t.Fatalf("result = %+v", r)
				}
				// Sentence 2 is synthesised while sentence 1 plays.
				_, lastOf1 := sink.playedOf(1)
				if c := engine.call(t, 1); !c.start.Before(lastOf1) {
					t.Errorf("sentence 2 synthesis started at %v, after sentence 1 finished playing", c.start)
				}
				// …but never more than one sentence ahead: sentence 3 waits
				// until sentence 1 is entirely in the sink.
				if c := engine.call(t, 2); c.start.Before(sink.lastWriteOf(1)) {
					t.Errorf("sentence 3 synthesis started before sentence 1 was written")
				}
				// No gap in playout from the first frame to the last.
				sink.mu.Lock()
				for i := 1; i < len(sink.played); i++ {
					if gap := sink.played[i].at.Sub(sink.played[i-1].at); gap != SinkFrameDuration {
						t.Errorf("gap of %v in playout at frame %d", gap, i)
						break
					}
				}
				sink.mu.Unlock()
				checkMaxAhead(t, sink, orDefault(maxAhead, DefaultMaxAhead))
			})
		})
	}
}

func TestSpeakerInterrupt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := newTestTTS()
		sink := newTestSink(t, testTTSRate)
		sp := newTestSpeaker(t, engine, sink, 0)
		s1 := "Tell me about the hardest bug you have fixed."
		s2 := "Walk me through how you found it and what you changed afterwards."
		s3 := "Then we will move on."
		u := sp.SayText(t.Context(), s1+" "+s2+" "+s3)
		// Sentence 1 is 9 words (1.8 s); interrupt 1 s into sentence 2.
		time.Sleep(engine.firstDelay + 2800*time.Millisecond)
		interruptAt := time.Now()
		u.Interrupt()
		synctest.Wait() // no time passes
		select {
		case <-u.Done():
		default:
			t.Fatal("Done not closed at once after Interrupt")
		}
		time.Sleep(time.Second)
		r := u.Wait()

		sink.mu.Lock()
		if len(sink.clears) != 1 || !sink.clears[0].Equal(interruptAt) {
			t.Errorf("ClearQueue calls at %v, want one at the interruption", sink.clears)
		}
		for _, f := range sink.played {
			if f.at.After(interruptAt.Add(SinkFrameDuration)) {
				t.Errorf("audio played %v after the interruption", f.at.Sub(interruptAt))
				break
			}
		}
		for _, w := range sink.writes {
			if w.at.After(interruptAt) {
				t.Errorf("audio written after the interruption")
			}
		}
		sink.mu.Unlock()

		if !r.Interrupted || r.Err != nil || !r.Started {
			t.Fatalf("result = %+v", r)
		}
		if want := s1 + " " + s2 + " " + s3; r.Text != want {
			t.Errorf("Text = %q, want %q", r.Text, want)
		}
		// PlayedText: sentence 1 and the share of sentence 2 that played.
		played2, _ := sink.playedOf(2)
		words := strings.Fields(s2)
		total2 := durationToSamples(time.Duration(len(words))*engine.perWord, testTTSRate)
		k := int(int64(len(words)) * int64(played2) / total2)
		var ok []string
		for _, n := range []int{k - 1, k} { // the estimate errs on the unheard side
			if n > 0 {
				ok = append(ok, s1+" "+strings.Join(words[:n], " "))
			}
		}
		if !slices.Contains(ok, r.PlayedText) {
			t.Errorf("PlayedText = %q, want one of %q (%d of %d samples of sentence 2 played)", r.PlayedText, ok, played2, total2)
		}
		// Synthesis stopped: the third sentence was never synthesised or
		// its call was cancelled.
		engine.mu.Lock()
		for _, c := range engine.calls {
			if c.end.After(interruptAt) && !c.cancelled {
				t.Errorf("synthesis of %q went on after the interruption", c.text)
			}
		}
		engine.mu.Unlock()
		// A second Interrupt is harmless.
		u.Interrupt()
		if got := u.Wait(); got != r {
			t.Errorf("result changed after a second Interrupt")
		}
		checkMaxAhead(t, sink, DefaultMaxAhead)
	})
}

func TestSpeakerSayInterruptsPrevious(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := newTestTTS()
		sink := newTestSink(t, testTTSRate)
		sp := newTestSpeaker(t, engine, sink, 0)
		u1 := sp.SayText(t.Context(), "This is an old answer that is no longer wanted at all.")
		time.Sleep(time.Second)
		switchAt := time.Now()
		u2 := sp.SayText(t.Context(), "Here is the new answer.")
		r1 := wait(t, u1)
		r2 := wait(t, u2)
		if !r1.Interrupted || r2.Interrupted || r2.PlayedText != "Here is the new answer." {
			t.Fatalf("results: old %+v, new %+v", r1, r2)
		}
		// Never two voices: once the new audio plays, the old never does.
		sink.mu.Lock()
		defer sink.mu.Unlock()
		newStarted := false
		for _, f := range sink.played {
			for _, v := range f.samples {
				switch v {
				case 2:
					newStarted = true
				case 1:
					if newStarted || f.at.After(switchAt.Add(SinkFrameDuration)) {
						t.Fatalf("old utterance played at %v, after the new one started", f.at.Sub(switchAt))
					}
				}
			}
		}
		if !newStarted {
			t.Fatal("new utterance never played")
		}
		if len(sink.clears) != 1 || !sink.clears[0].Equal(switchAt) {
			t.Errorf("clears %v, want one at the switch", sink.clears)
		}
	})
}

func TestSpeakerContextCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := newTestTTS()
		sink := newTestSink(t, testTTSRate)
		sp := newTestSpeaker(t, engine, sink, 0)
		ctx, cancel := context.WithCancel(t.Context())
		deltas := make(chan string)
		u := sp.Say(ctx, deltas)
		deltas <- "One two three four five six. "
		time.Sleep(500 * time.Millisecond)
		cancel()
		r := wait(t, u)
		if !r.Interrupted || !errors.Is(r.Err, context.Canceled) {
			t.Fatalf("result = %+v", r)
		}
		sink.mu.Lock()
		defer sink.mu.Unlock()
		if len(sink.clears) != 1 {
			t.Errorf("queue not cleared on cancel")
		}
	})
}

func TestSpeakerSynthesisError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := newTestTTS()
		engine.failText = "This sentence fails halfway through."
		sink := newTestSink(t, testTTSRate)
		sp := newTestSpeaker(t, engine, sink, 0)
		u := sp.SayText(t.Context(), "The first one is fine. This sentence fails halfway through. Never spoken.")
		r := wait(t, u)
		if r.Err == nil || !strings.Contains(r.Err.Error(), "synthesis service unavailable") || r.Interrupted {
			t.Fatalf("result = %+v", r)
		}
		// Sentence 1 and the one chunk (100 ms of 1 s) of sentence 2 played:
		// PlayedText holds sentence 1 only.
		if r.PlayedText != "The first one is fine." {
			t.Errorf("PlayedText = %q", r.PlayedText)
		}
		if n, _ := sink.playedOf(2); n != int(durationToSamples(engine.chunkAudio, testTTSRate)) {
			t.Errorf("played %d samples of the failing sentence", n)
		}
		engine.mu.Lock()
		defer engine.mu.Unlock()
		if len(engine.calls) != 2 {
			t.Errorf("%d synthesis calls; the sentence after the failure must not be synthesised", len(engine.calls))
		}
	})
}

func TestSpeakerEmptyReply(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := newTestSink(t, testTTSRate)
		sp := newTestSpeaker(t, newTestTTS(), sink, 0)
		for _, text := range []string{"", "  **  "} {
			r := wait(t, sp.SayText(t.Context(), text))
			if r.Started || r.Interrupted || r.Err != nil || r.Text != "" {
				t.Errorf("%q: result %+v", text, r)
			}
		}
	})
}

func TestNewSpeakerOptions(t *testing.T) {
	sink := &testSink{}
	for _, tc := range []struct {
		name string
		opts SpeakerOptions
	}{
		{"no tts", SpeakerOptions{Sink: sink}},
		{"no sink", SpeakerOptions{TTS: newTestTTS()}},
		{"tiny MaxAhead", SpeakerOptions{TTS: newTestTTS(), Sink: sink, MaxAhead: 5 * time.Millisecond}},
	} {
		if _, err := NewSpeaker(tc.opts); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
