package sphinx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/agent/tts/flite"
)

// frameSamples is one 20 ms frame at 16 kHz.
const frameSamples = stt.SampleRate * 20 / 1000

var speech sync.Map // text → []int16

// speak returns flite's rendering of text at 16 kHz, the recogniser's input.
func speak(t testing.TB, text string) []int16 {
	t.Helper()
	if pcm, ok := speech.Load(text); ok {
		return pcm.([]int16)
	}
	e, err := flite.New(flite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e.SampleRate() != stt.SampleRate {
		t.Fatalf("flite speaks at %d Hz, recogniser wants %d Hz", e.SampleRate(), stt.SampleRate)
	}
	var pcm []int16
	if err := e.Synthesize(context.Background(), text, func(c []int16) error {
		pcm = append(pcm, c...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	speech.Store(text, pcm)
	return pcm
}

func engine(t testing.TB) *Engine {
	t.Helper()
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// feed writes pcm in 20 ms frames, copying each frame into a reused buffer
// that is scribbled over afterwards, as a real audio source would.
func feed(t testing.TB, s stt.Stream, pcm []int16, inUtterance bool) {
	t.Helper()
	frame := make([]int16, frameSamples)
	for len(pcm) > 0 {
		n := copy(frame, pcm)
		if err := s.Write(frame[:n], inUtterance); err != nil {
			t.Fatal(err)
		}
		clear(frame)
		pcm = pcm[n:]
	}
}

// untilUtteranceEnd collects events up to and including UtteranceEnd.
func untilUtteranceEnd(t testing.TB, s stt.Stream) []stt.Event {
	t.Helper()
	var evs []stt.Event
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-s.Events():
			if !ok {
				t.Fatalf("events closed before UtteranceEnd; got %v", evs)
			}
			evs = append(evs, ev)
			if ev.Type == stt.UtteranceEnd {
				return evs
			}
		case <-timeout:
			t.Fatalf("no UtteranceEnd; got %v", evs)
		}
	}
}

func finals(evs []stt.Event) []string {
	var out []string
	for _, ev := range evs {
		if ev.Type == stt.Final {
			out = append(out, ev.Text)
		}
	}
	return out
}

func hasWords(text string, words ...string) bool {
	fields := strings.Fields(text)
	for _, w := range words {
		if !slices.Contains(fields, w) {
			return false
		}
	}
	return true
}

// silence is quiet room noise: what arrives around speech.
func silence(ms int) []int16 {
	pcm := make([]int16, stt.SampleRate*ms/1000)
	for i := range pcm {
		pcm[i] = int16((i*7919)%61 - 30)
	}
	return pcm
}

var sentences = []struct {
	text     string
	keywords []string
}{
	{"I worked on a distributed database for five years.", []string{"database", "five", "years"}},
	{"My favourite project was a payment system.", []string{"project", "payment", "system"}},
	{"I led a team of four engineers building the search service.", []string{"team", "engineers", "search", "service"}},
}

func TestStreamRecognisesSpeech(t *testing.T) {
	e := engine(t)
	for _, tt := range sentences {
		t.Run(tt.text, func(t *testing.T) {
			pcm := speak(t, tt.text)
			s, err := e.NewStream(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			feed(t, s, silence(300), false)
			feed(t, s, pcm, true)
			feed(t, s, silence(300), false)
			if err := s.EndOfSpeech(); err != nil {
				t.Fatal(err)
			}
			evs := untilUtteranceEnd(t, s)
			got := finals(evs)
			if len(got) != 1 || !hasWords(got[0], tt.keywords...) {
				t.Fatalf("finals %q, want one holding %v", got, tt.keywords)
			}
			if last := evs[len(evs)-2]; last.Type != stt.Final {
				t.Errorf("event before UtteranceEnd is %v, want the Final", last.Type)
			}
			for _, ev := range evs {
				if ev.At.IsZero() {
					t.Errorf("%v event without a time", ev.Type)
				}
			}
			// Streaming in frames recognises exactly what one batch does.
			batch, err := e.DecodeAll(pcm)
			if err != nil {
				t.Fatal(err)
			}
			if batch != got[0] {
				t.Errorf("streamed %q, batch decoded %q", got[0], batch)
			}
		})
	}
}

func TestFramesOutsideUtterancesAreIgnored(t *testing.T) {
	e := engine(t)
	db, pay := speak(t, sentences[0].text), speak(t, sentences[1].text)
	tests := []struct {
		name      string
		write     func(s stt.Stream)
		wantFinal []string // keywords of the one Final; nil: no Final
		notWords  []string
	}{
		{"speech outside an utterance", func(s stt.Stream) { feed(t, s, db, false) }, nil, nil},
		{"only the utterance is decoded", func(s stt.Stream) {
			feed(t, s, db, false)
			feed(t, s, pay, true)
			feed(t, s, db, false)
		}, []string{"payment", "system"}, []string{"database", "years"}},
		{"no audio at all", func(stt.Stream) {}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := e.NewStream(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			tt.write(s)
			if err := s.EndOfSpeech(); err != nil {
				t.Fatal(err)
			}
			evs := untilUtteranceEnd(t, s)
			got := finals(evs)
			if tt.wantFinal == nil {
				if len(evs) != 1 {
					t.Fatalf("events %v, want only UtteranceEnd", evs)
				}
				return
			}
			if len(got) != 1 || !hasWords(got[0], tt.wantFinal...) {
				t.Fatalf("finals %q, want one holding %v", got, tt.wantFinal)
			}
			for _, w := range tt.notWords {
				if hasWords(got[0], w) {
					t.Errorf("final %q holds %q from audio outside the utterance", got[0], w)
				}
			}
		})
	}
}

func TestConcurrentStreamsDecodeTheirOwnAudio(t *testing.T) {
	e := engine(t)
	var wg sync.WaitGroup
	results := make([][]string, len(sentences))
	errs := make([]error, len(sentences))
	for i, tt := range sentences {
		pcm := speak(t, tt.text)
		wg.Go(func() {
			results[i], errs[i] = twoUtterances(e, pcm)
		})
	}
	wg.Wait()
	for i, tt := range sentences {
		if errs[i] != nil {
			t.Fatalf("stream %d: %v", i, errs[i])
		}
		if len(results[i]) != 2 {
			t.Fatalf("stream %d finals %q, want two", i, results[i])
		}
		for _, final := range results[i] {
			if !hasWords(final, tt.keywords...) {
				t.Errorf("stream %d final %q, want %v", i, final, tt.keywords)
			}
			for j, other := range sentences {
				for _, w := range other.keywords {
					if j != i && hasWords(final, w) && !strings.Contains(strings.ToLower(tt.text), w) {
						t.Errorf("stream %d final %q holds %q from stream %d", i, final, w, j)
					}
				}
			}
		}
	}
}

// twoUtterances speaks pcm twice on one stream, so concurrent streams hand
// decoders back and forth between utterances, and returns the finals.
func twoUtterances(e *Engine, pcm []int16) ([]string, error) {
	s, err := e.NewStream(context.Background())
	if err != nil {
		return nil, err
	}
	defer s.Close()
	for range 2 {
		for f := range slices.Chunk(pcm, frameSamples) {
			if err := s.Write(f, true); err != nil {
				return nil, err
			}
		}
		if err := s.EndOfSpeech(); err != nil {
			return nil, err
		}
	}
	var got []string
	ends := 0
	timeout := time.After(60 * time.Second)
	for ends < 2 {
		select {
		case ev := <-s.Events():
			switch ev.Type {
			case stt.Final:
				got = append(got, ev.Text)
			case stt.UtteranceEnd:
				ends++
			}
		case <-timeout:
			return got, errors.New("no UtteranceEnd within 60 s")
		}
	}
	return got, nil
}

// TestInterimCadence checks partial transcripts arrive during the utterance
// and at most once per 300 ms of audio. The bubble lets the test wait until
// the reader has taken every event after each frame, so none are merged.
func TestInterimCadence(t *testing.T) {
	e := engine(t)
	pcm := speak(t, sentences[0].text)
	synctest.Test(t, func(t *testing.T) {
		s, err := e.NewStream(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var evs []stt.Event
		done := make(chan struct{})
		go func() {
			defer close(done)
			for ev := range s.Events() {
				mu.Lock()
				evs = append(evs, ev)
				mu.Unlock()
			}
		}()
		for f := range slices.Chunk(pcm, frameSamples) {
			if err := s.Write(f, true); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
		}
		if err := s.EndOfSpeech(); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		s.Close()
		<-done

		var interims []string
		for _, ev := range evs {
			if ev.Type == stt.Interim {
				interims = append(interims, ev.Text)
			}
		}
		maxInterims := len(pcm) / interimEverySamples
		if len(interims) < 2 || len(interims) > maxInterims {
			t.Fatalf("%d interims %q for %d ms of speech, want 2..%d", len(interims), interims, len(pcm)/16, maxInterims)
		}
		for i := 1; i < len(interims); i++ {
			if interims[i] == interims[i-1] {
				t.Errorf("interim %d repeats %q", i, interims[i])
			}
		}
		if got := finals(evs); len(got) != 1 {
			t.Errorf("finals %q, want one", got)
		}
	})
}

// TestWriteDoesNotAllocate checks frames reach pocketsphinx without copies:
// only the partial transcript, every 300 ms of audio, allocates.
func TestWriteDoesNotAllocate(t *testing.T) {
	e := engine(t)
	pcm := speak(t, sentences[0].text)
	s, err := e.NewStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	go func() {
		for range s.Events() {
		}
	}()
	frames := slices.Collect(slices.Chunk(pcm, frameSamples))
	i := 0
	allocs := testing.AllocsPerRun(len(frames)-1, func() {
		if err := s.Write(frames[i], true); err != nil {
			t.Fatal(err)
		}
		i++
	})
	if allocs > 0.5 {
		t.Fatalf("%.2f allocations per 20 ms frame, want under 0.5", allocs)
	}
}

func TestSlowReaderNeverBlocksWriterOrLosesFinals(t *testing.T) {
	e := engine(t)
	s, err := e.NewStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Nobody reads while three utterances are written.
	for _, tt := range sentences {
		feed(t, s, speak(t, tt.text), true)
		if err := s.EndOfSpeech(); err != nil {
			t.Fatal(err)
		}
	}
	var evs []stt.Event
	for range sentences {
		evs = append(evs, untilUtteranceEnd(t, s)...)
	}
	got := finals(evs)
	if len(got) != len(sentences) {
		t.Fatalf("finals %q, want %d", got, len(sentences))
	}
	for i, tt := range sentences {
		if !hasWords(got[i], tt.keywords...) {
			t.Errorf("final %d %q, want %v", i, got[i], tt.keywords)
		}
	}
	// Every Interim was dropped for the newer events behind it.
	var types []stt.EventType
	for _, ev := range evs {
		types = append(types, ev.Type)
	}
	want := []stt.EventType{stt.Final, stt.UtteranceEnd, stt.Final, stt.UtteranceEnd, stt.Final, stt.UtteranceEnd}
	if !slices.Equal(types, want) {
		t.Fatalf("event types %v, want %v", types, want)
	}
}

func TestCloseAndCancel(t *testing.T) {
	e := engine(t)
	pcm := speak(t, sentences[1].text)
	tests := []struct {
		name  string
		close func(s stt.Stream, cancel context.CancelFunc)
	}{
		{"Close", func(s stt.Stream, _ context.CancelFunc) { s.Close() }},
		{"context cancelled", func(_ stt.Stream, cancel context.CancelFunc) { cancel() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s, err := e.NewStream(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// Close races the writer mid-utterance.
			writing := make(chan error, 1)
			started := make(chan struct{})
			go func() {
				for i := 0; ; i++ {
					for f := range slices.Chunk(pcm, frameSamples) {
						if err := s.Write(f, true); err != nil {
							writing <- err
							return
						}
					}
					if i == 0 {
						close(started) // a whole sentence is in
					}
				}
			}()
			<-started
			tt.close(s, cancel)
			if err := <-writing; !errors.Is(err, ErrClosed) {
				t.Fatalf("Write after close: %v, want ErrClosed", err)
			}
			for range s.Events() {
			}
			if err := s.EndOfSpeech(); !errors.Is(err, ErrClosed) {
				t.Errorf("EndOfSpeech after close: %v, want ErrClosed", err)
			}
			if err := s.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			if total, idle := e.Decoders(); total != idle {
				t.Errorf("%d of %d decoders still borrowed after Close", total-idle, total)
			}
		})
	}
}

func TestDecodersAreReusedAcrossStreams(t *testing.T) {
	e := engine(t)
	pcm := speak(t, sentences[0].text)
	before, _ := e.Decoders()
	for range 4 {
		s, err := e.NewStream(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		feed(t, s, pcm[:len(pcm)/4], true)
		if err := s.EndOfSpeech(); err != nil {
			t.Fatal(err)
		}
		untilUtteranceEnd(t, s)
		s.Close()
	}
	// One in use at a time plus at most one spare loading: sequential
	// streams never need more than two decoders.
	if total, _ := e.Decoders(); total > max(before, 2) {
		t.Fatalf("%d decoders after four sequential streams (%d before), want at most 2", total, before)
	}
}

// TestSpeakerNormalisationFollowsTheStream checks each stream keeps its own
// cepstral mean whichever decoder it borrows, and a new stream starts from
// the model's prior.
func TestSpeakerNormalisationFollowsTheStream(t *testing.T) {
	e := engine(t)
	quiet := slices.Clone(speak(t, sentences[2].text))
	for i := range quiet {
		quiet[i] /= 8
	}
	a, err := e.NewStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	feed(t, a, quiet, true)
	if err := a.EndOfSpeech(); err != nil {
		t.Fatal(err)
	}
	untilUtteranceEnd(t, a)
	sa := a.(*stream)
	if slices.Equal(sa.cmn, e.pool.prior) {
		t.Fatal("speaker estimate did not move from the prior after an utterance")
	}

	b, err := e.NewStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	sb := b.(*stream)
	for _, c := range []struct {
		s    *stream
		want []any
		name string
	}{{sb, toAny(e.pool.prior), "new stream"}, {sa, toAny(sa.cmn), "returning stream"}} {
		c.s.mu.Lock()
		if err := c.s.startLocked(); err != nil {
			t.Fatal(err)
		}
		got := toAny(c.s.dec.cmnVec())
		c.s.endLocked()
		c.s.mu.Unlock()
		if !slices.Equal(got, c.want) {
			t.Errorf("%s starts with mean %v, want %v", c.name, got, c.want)
		}
	}
}

func toAny[T any](v []T) []any {
	out := make([]any, len(v))
	for i := range v {
		out[i] = v[i]
	}
	return out
}

func TestMissingModel(t *testing.T) {
	real := DefaultModelDir
	tests := []struct {
		name    string
		link    []string // files of the real model to link in
		missing string
	}{
		{"empty directory", nil, "en-us.lm.bin"},
		{"no dictionary", []string{"en-us.lm.bin", "en-us"}, "cmudict-en-us.dict"},
		{"no acoustic model", []string{"en-us.lm.bin", "cmudict-en-us.dict"}, "en-us/mdef"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.link {
				if err := os.Symlink(filepath.Join(real, f), filepath.Join(dir, f)); err != nil {
					t.Fatal(err)
				}
			}
			_, err := New(Options{ModelDir: dir})
			if !errors.Is(err, ErrModelNotFound) {
				t.Fatalf("error %v, want ErrModelNotFound", err)
			}
			for _, want := range []string{dir, tt.missing, "apt-get install pocketsphinx-en-us"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

func TestCorruptModelIsAnErrorNotACrash(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"en-us", "cmudict-en-us.dict"} {
		if err := os.Symlink(filepath.Join(DefaultModelDir, f), filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "en-us.lm.bin"), []byte("not a language model"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := New(Options{ModelDir: dir})
	if err == nil || !strings.Contains(err.Error(), "reinstall pocketsphinx-en-us") {
		t.Fatalf("error %v, want a load error saying to reinstall", err)
	}
}

func TestPackageDecodeAll(t *testing.T) {
	text, err := DecodeAll(speak(t, sentences[1].text))
	if err != nil {
		t.Fatal(err)
	}
	if !hasWords(text, sentences[1].keywords...) {
		t.Fatalf("decoded %q, want %v", text, sentences[1].keywords)
	}
	if text, err := DecodeAll(nil); err != nil || text != "" {
		t.Fatalf("empty audio decoded to %q, %v", text, err)
	}
}
