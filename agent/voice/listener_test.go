package voice

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/config"
)

func newTestListener(t *testing.T, engine *testSTT, opts ListenerOptions) *Listener {
	t.Helper()
	opts.STT = engine
	l, err := NewListener(t.Context(), opts)
	if err != nil {
		t.Fatalf("NewListener: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestListenerVADOnFliteSpeech(t *testing.T) {
	texts := []string{
		"I have been working as a backend engineer for five years.",
		"Yes.",
		"Okay, sounds good. Tell me more about the team.",
	}
	var utts [][]int16
	for _, text := range texts {
		utts = append(utts, flite(t, text))
	}
	const noiseRMS = 100 // about -50 dBFS: a quiet room
	rng := rand.New(rand.NewPCG(7, 11))
	var signal []int16
	type span struct{ onset, end int } // samples
	var truth []span
	signal = append(signal, make([]int16, InputSampleRate)...)
	for _, u := range utts {
		a, b := speechBounds(u)
		truth = append(truth, span{len(signal) + a, len(signal) + b})
		signal = append(signal, u...)
		signal = append(signal, make([]int16, InputSampleRate*3/2)...)
	}
	mixNoise(signal, noiseRMS, rng)

	for _, tc := range []struct {
		mode  int
		chunk int // samples per WriteSample
	}{
		{mode: 0, chunk: 320},
		{mode: 0, chunk: 113},
		{mode: 0, chunk: 960},
		{mode: 2, chunk: 320},
		{mode: 3, chunk: 320},
	} {
		t.Run(fmt.Sprintf("mode%d/chunk%d", tc.mode, tc.chunk), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				engine := &testSTT{keepAudio: true}
				l := newTestListener(t, engine, ListenerOptions{VADMode: tc.mode})
				start := time.Now()
				at := func(sample int) time.Time {
					return start.Add(samplesToDuration(int64(sample), InputSampleRate))
				}
				feed(t, l, signal, tc.chunk)
				synctest.Wait()
				evs := drain(l)

				var kinds []string
				for _, ev := range evs {
					kinds = append(kinds, fmt.Sprintf("%T", ev))
				}
				want := slices.Repeat([]string{"voice.SpeechStarted", "voice.SpeechEnded"}, len(utts))
				if !slices.Equal(kinds, want) {
					t.Fatalf("events = %v, want %v", kinds, want)
				}
				for i, tr := range truth {
					onset := evs[2*i].(SpeechStarted).At
					end := evs[2*i+1].(SpeechEnded).At
					if d := onset.Sub(at(tr.onset)); d < -100*time.Millisecond || d > 100*time.Millisecond {
						t.Errorf("utterance %d: onset off by %v, want within 100ms", i, d)
					}
					// The detector's own overhang may extend the end a little;
					// a soft final fricative ("yes") may be cut.
					if d := end.Sub(at(tr.end)); d < -150*time.Millisecond || d > 200*time.Millisecond {
						t.Errorf("utterance %d: end off by %v, want within [-150ms, 200ms]", i, d)
					}
				}

				s := engine.stream(t)
				s.mu.Lock()
				defer s.mu.Unlock()
				// Every frame reached the stream exactly once and in order;
				// only the pre-roll delay line (and a partial frame) is
				// still held back.
				if len(s.audio) < len(signal)-16*vadFrameSamples16kHz || !slices.Equal(s.audio, signal[:len(s.audio)]) {
					t.Fatalf("stream got %d samples that are not the first %d of the input", len(s.audio), len(s.audio))
				}
				if s.endOfSpeech != len(utts) {
					t.Errorf("EndOfSpeech called %d times, want %d", s.endOfSpeech, len(utts))
				}
				// Each utterance is marked from at least 150 ms before its
				// true onset (the pre-roll) to its end.
				for i, tr := range truth {
					first := (tr.onset - 150*InputSampleRate/1000) / vadFrameSamples16kHz
					last := tr.end / vadFrameSamples16kHz
					for f := first; f <= last; f++ {
						if !s.flags[f] {
							t.Errorf("utterance %d: frame %d (%v) not marked inUtterance", i, f, time.Duration(f)*VADFrameDuration)
							break
						}
					}
				}
				if s.flags[0] || s.flags[len(s.flags)-1] {
					t.Errorf("silence at the start or end marked inUtterance")
				}
			})
		})
	}
}

// TestListenerNoiseOnly checks that background noise never starts an
// utterance or interrupts the agent, including the detector's start-up
// transient. It also records why the default mode is 3: typing near the
// microphone starts false utterances in mode 2 but not in mode 3.
func TestListenerNoiseOnly(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name       string
		pcm        []int16
		mode       int
		wantStarts bool
	}{
		{"white 30", noise(20*time.Second, 30, rng), 0, false},
		{"white 100", noise(20*time.Second, 100, rng), 0, false},
		{"white 300", noise(20*time.Second, 300, rng), 0, false},
		{"white 1000", noise(20*time.Second, 1000, rng), 0, false},
		{"keyboard 300", keyboardClicks(60*time.Second, 300, rng), 0, false},
		{"keyboard 300 mode 2", keyboardClicks(60*time.Second, 300, rng), 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := newTestListener(t, &testSTT{}, ListenerOptions{VADMode: tc.mode})
				l.SetAgentSpeaking(true)
				feed(t, l, tc.pcm, 320)
				synctest.Wait()
				evs := drain(l)
				if n := len(ofType[Interruption](evs)); n != 0 {
					t.Errorf("%d interruptions on noise", n)
				}
				if starts := len(ofType[SpeechStarted](evs)); (starts > 0) != tc.wantStarts {
					t.Errorf("%d utterances started on noise; want some: %v", starts, tc.wantStarts)
				}
			})
		})
	}
}

// TestListenerBargeInFliteSpeech: real speech over the agent interrupts it
// once; a short acknowledgement does not.
func TestListenerBargeInFliteSpeech(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"Uh.", 0},
		{"Right.", 0},
		{"Yes.", 0},
		{"Sorry, I have a question about that.", 1},
	} {
		t.Run(tc.text, func(t *testing.T) {
			pcm := append(noise(time.Second, 100, rand.New(rand.NewPCG(1, 1))), flite(t, tc.text)...)
			pcm = append(pcm, noise(time.Second, 100, rand.New(rand.NewPCG(2, 2)))...)
			synctest.Test(t, func(t *testing.T) {
				l := newTestListener(t, &testSTT{}, ListenerOptions{})
				l.SetAgentSpeaking(true)
				feed(t, l, pcm, 320)
				synctest.Wait()
				evs := drain(l)
				if n := len(ofType[Interruption](evs)); n != tc.want {
					t.Fatalf("interruptions = %d, want %d (events %v)", n, tc.want, evs)
				}
				if len(ofType[SpeechStarted](evs)) != 1 {
					t.Errorf("want one utterance, got %v", evs)
				}
			})
		})
	}
}

func TestVoicedSignalIsSpeech(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newTestListener(t, &testSTT{}, ListenerOptions{})
		var ph float64
		pcm := append(make([]int16, 8000), voicedSignal(2*time.Second, &ph)...)
		start := time.Now()
		feed(t, l, pcm, 320)
		synctest.Wait()
		evs := drain(l)
		if len(evs) != 1 {
			t.Fatalf("events = %v, want one SpeechStarted", evs)
		}
		// The speech starts 500 ms in; the detector needs 60 ms of it.
		if got := evs[0].(SpeechStarted).At.Sub(start); got < 480*time.Millisecond || got > 540*time.Millisecond {
			t.Errorf("onset at %v, want about 500ms", got)
		}
	})
}

// script drives a Listener with a timeline of synthetic speech, silence
// and STT results. Each step happens at its offset from the start.
type step struct {
	speech  time.Duration // voiced audio of this length
	silence time.Duration // quiet audio of this length
	final   string        // an STT final pushed at this point
	interim string        // an STT interim pushed at this point
	agent   *bool         // SetAgentSpeaking
}

func runScript(t *testing.T, l *Listener, engine *testSTT, steps []step) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	var ph float64
	s := engine.stream(t)
	for _, st := range steps {
		switch {
		case st.speech > 0:
			feed(t, l, voicedSignal(st.speech, &ph), 320)
		case st.silence > 0:
			feed(t, l, noise(st.silence, 30, rng), 320)
		case st.final != "":
			s.result(stt.Final, st.final)
		case st.interim != "":
			s.result(stt.Interim, st.interim)
		case st.agent != nil:
			l.SetAgentSpeaking(*st.agent)
		}
		synctest.Wait()
	}
}

func ptr[T any](v T) *T { return &v }

func TestListenerEndpointing(t *testing.T) {
	lead := step{silence: 500 * time.Millisecond}
	for _, tc := range []struct {
		name  string
		steps []step
		// want: texts of the EndOfTurn events and, for each, the delay
		// from the end of speech to the commit.
		turns  []string
		delays []time.Duration // 0: committed at once when the final arrived
	}{
		{
			name:   "final then silence",
			steps:  []step{lead, {speech: time.Second}, {silence: 100 * time.Millisecond}, {final: "I worked on payments"}, {silence: 2 * time.Second}},
			turns:  []string{"I worked on payments"},
			delays: []time.Duration{500 * time.Millisecond},
		},
		{
			name: "speech resumes at 300ms: one turn",
			steps: []step{lead, {speech: time.Second}, {silence: 100 * time.Millisecond}, {final: "I worked on"},
				{silence: 200 * time.Millisecond}, {speech: 800 * time.Millisecond}, {silence: 100 * time.Millisecond},
				{final: "the payments team"}, {silence: 2 * time.Second}},
			turns:  []string{"I worked on the payments team"},
			delays: []time.Duration{500 * time.Millisecond},
		},
		{
			name:  "no final, no turn",
			steps: []step{lead, {speech: time.Second}, {silence: 5 * time.Second}},
		},
		{
			name:  "empty final, no turn",
			steps: []step{lead, {speech: time.Second}, {silence: 100 * time.Millisecond}, {final: "  "}, {silence: 5 * time.Second}},
		},
		{
			name:   "finals during speech accumulate",
			steps:  []step{lead, {speech: time.Second}, {final: "I led"}, {speech: time.Second}, {final: "a team of five."}, {silence: 2 * time.Second}},
			turns:  []string{"I led a team of five."},
			delays: []time.Duration{300 * time.Millisecond},
		},
		{
			name:   "trailing and waits longer",
			steps:  []step{lead, {speech: time.Second}, {silence: 100 * time.Millisecond}, {final: "I built the API and"}, {silence: 3 * time.Second}},
			turns:  []string{"I built the API and"},
			delays: []time.Duration{config.DefaultThinkingPause},
		},
		{
			name: "a thinking pause is one turn",
			steps: []step{lead, {speech: time.Second}, {silence: 100 * time.Millisecond}, {final: "and the main reason was"},
				{silence: 1500 * time.Millisecond}, {speech: time.Second}, {final: "latency."}, {silence: 3 * time.Second}},
			turns:  []string{"and the main reason was latency."},
			delays: []time.Duration{300 * time.Millisecond},
		},
		{
			// pocketsphinx writes "and um" as "and m.": the full stop does
			// not make it finished.
			name:   "a hesitation after a conjunction is a thinking pause, full stop or not",
			steps:  []step{lead, {speech: time.Second}, {silence: 100 * time.Millisecond}, {final: "a ledger service and m."}, {silence: 3 * time.Second}},
			turns:  []string{"a ledger service and m."},
			delays: []time.Duration{config.DefaultThinkingPause},
		},
		{
			name: "the candidate goes on after \"and m.\": one turn",
			steps: []step{lead, {speech: time.Second}, {silence: 100 * time.Millisecond}, {final: "a ledger service and m."},
				{silence: 2 * time.Second}, {speech: time.Second}, {final: "double entry bookkeeping."}, {silence: 3 * time.Second}},
			turns:  []string{"a ledger service and m. double entry bookkeeping."},
			delays: []time.Duration{300 * time.Millisecond},
		},
		{
			name:   "question waits less",
			steps:  []step{lead, {speech: time.Second}, {silence: 100 * time.Millisecond}, {final: "What does the team use?"}, {silence: 3 * time.Second}},
			turns:  []string{"What does the team use?"},
			delays: []time.Duration{300 * time.Millisecond},
		},
		{
			name: "late final commits at once",
			steps: []step{lead, {speech: time.Second}, {silence: time.Second},
				{final: "Sure"}, {silence: time.Second}},
			turns: []string{"Sure"},
			// The final arrived 1 s after the end of speech, past the
			// 500 ms delay: the commit is immediate.
			delays: []time.Duration{0},
		},
		{
			name: "two turns",
			steps: []step{lead, {speech: time.Second}, {final: "Hello."}, {silence: time.Second},
				{speech: time.Second}, {final: "Second answer."}, {silence: time.Second}},
			turns:  []string{"Hello.", "Second answer."},
			delays: []time.Duration{300 * time.Millisecond, 300 * time.Millisecond},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				engine := &testSTT{}
				l := newTestListener(t, engine, ListenerOptions{})
				runScript(t, l, engine, tc.steps)
				evs := drain(l)
				turns := ofType[EndOfTurn](evs)
				var texts []string
				for _, e := range turns {
					texts = append(texts, e.Text)
				}
				if !slices.Equal(texts, tc.turns) {
					t.Fatalf("turns = %q, want %q (events %v)", texts, tc.turns, evs)
				}
				for i, e := range turns {
					if e.SpeechEndedAt.IsZero() {
						t.Fatalf("turn %d: no SpeechEndedAt", i)
					}
					got := e.CommittedAt.Sub(e.SpeechEndedAt)
					want := tc.delays[i]
					if want == 0 {
						want = e.FinalAt.Sub(e.SpeechEndedAt)
						if want < 500*time.Millisecond {
							t.Errorf("turn %d: final came %v after the speech end; the case needs a late final", i, want)
						}
					}
					if got != want || e.Metrics.EndOfUtterance != got {
						t.Errorf("turn %d: committed %v after speech end (metric %v), want %v", i, got, e.Metrics.EndOfUtterance, want)
					}
					if want := max(0, e.FinalAt.Sub(e.SpeechEndedAt)); e.Metrics.STTFinal != want {
						t.Errorf("turn %d: STTFinal %v, want %v", i, e.Metrics.STTFinal, want)
					}
				}
				// The turn comes after the SpeechEnded it belongs to, and
				// a SpeechEnded precedes every EndOfTurn.
				lastEnded := -1
				for i, ev := range evs {
					switch ev.(type) {
					case SpeechEnded:
						lastEnded = i
					case SpeechStarted:
						lastEnded = -1
					case EndOfTurn:
						if lastEnded < 0 {
							t.Errorf("EndOfTurn at %d while speech was active: %v", i, evs)
						}
					}
				}
			})
		})
	}
}

func TestListenerBargeIn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []step
		want  int // Interruption events
	}{
		{"600ms over the agent", []step{{agent: ptr(true)}, {silence: 500 * time.Millisecond}, {speech: 600 * time.Millisecond}, {silence: time.Second}}, 1},
		{"200ms over the agent", []step{{agent: ptr(true)}, {silence: 500 * time.Millisecond}, {speech: 200 * time.Millisecond}, {silence: time.Second}}, 0},
		{"short sounds in separate utterances", []step{{agent: ptr(true)}, {silence: 500 * time.Millisecond}, {speech: 300 * time.Millisecond}, {silence: 600 * time.Millisecond}, {speech: 300 * time.Millisecond}, {silence: time.Second}}, 0},
		{"agent not speaking", []step{{silence: 500 * time.Millisecond}, {speech: 600 * time.Millisecond}, {silence: time.Second}}, 0},
		{"agent stopped", []step{{agent: ptr(true)}, {agent: ptr(false)}, {silence: 500 * time.Millisecond}, {speech: 600 * time.Millisecond}, {silence: time.Second}}, 0},
		{"once per agent utterance", []step{{agent: ptr(true)}, {silence: 500 * time.Millisecond}, {speech: 2 * time.Second}, {silence: time.Second}, {speech: time.Second}, {silence: time.Second}}, 1},
		{"again in the next agent utterance", []step{{agent: ptr(true)}, {silence: 500 * time.Millisecond}, {speech: time.Second}, {silence: time.Second},
			{agent: ptr(false)}, {agent: ptr(true)}, {speech: time.Second}, {silence: time.Second}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				engine := &testSTT{}
				l := newTestListener(t, engine, ListenerOptions{})
				var starts []time.Time
				var got []Interruption
				done := make(chan struct{})
				go func() {
					defer close(done)
					for ev := range l.Events() {
						switch e := ev.(type) {
						case SpeechStarted:
							starts = append(starts, e.At)
						case Interruption:
							got = append(got, e)
						}
					}
				}()
				runScript(t, l, engine, tc.steps)
				l.Close()
				<-done
				if len(got) != tc.want {
					t.Fatalf("interruptions = %d (%v), want %d", len(got), got, tc.want)
				}
				for _, e := range got {
					// Decided as soon as 500 ms of speech were heard, not at
					// its end; the speech started at the last onset before.
					var onset time.Time
					for _, s := range starts {
						if !s.After(e.At) {
							onset = s
						}
					}
					if d := e.At.Sub(onset); d < 500*time.Millisecond || d > 560*time.Millisecond {
						t.Errorf("interruption %v after the onset, want 500-560ms", d)
					}
					if e.Speech < 500*time.Millisecond {
						t.Errorf("Speech = %v, want >= 500ms", e.Speech)
					}
				}
			})
		})
	}
}

func TestListenerTranscripts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := &testSTT{}
		l := newTestListener(t, engine, ListenerOptions{})
		runScript(t, l, engine, []step{
			{silence: 500 * time.Millisecond}, {speech: 300 * time.Millisecond},
			{interim: "I"}, {interim: "I worked"}, {final: "I worked there."},
			{interim: "for"}, {final: ""}, // settles on nothing: clears the caption
			{final: "  "}, // nothing shown, nothing said: no event
			{interim: "two"}, {final: "Two years."},
		})
		var got []string
		ids := map[string]bool{}
		for _, tr := range ofType[Transcript](drain(l)) {
			got = append(got, fmt.Sprintf("%s %q %v", tr.SegmentID[len(tr.SegmentID)-1:], tr.Text, tr.Final))
			ids[tr.SegmentID] = true
			if !strings.HasPrefix(tr.SegmentID, "SG_") {
				t.Errorf("segment id %q", tr.SegmentID)
			}
		}
		want := []string{
			`0 "I" false`, `0 "I worked" false`, `0 "I worked there." true`,
			`1 "for" false`, `1 "" true`,
			`2 "two" false`, `2 "Two years." true`,
		}
		if !slices.Equal(got, want) {
			t.Fatalf("transcripts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if len(ids) != 3 {
			t.Errorf("segment ids = %v, want 3 distinct", ids)
		}
	})
}

// TestListenerSlowReader checks that a reader that does not read never
// blocks the audio path, loses only interim transcripts, and gets every
// other event in order once it reads.
func TestListenerSlowReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := &testSTT{}
		l := newTestListener(t, engine, ListenerOptions{})
		s := engine.stream(t)
		var ph float64
		rng := rand.New(rand.NewPCG(5, 6))
		var wantTurns []string
		for i := range 60 {
			feed(t, l, noise(300*time.Millisecond, 30, rng), 320)
			feed(t, l, voicedSignal(300*time.Millisecond, &ph), 320)
			for j := range 5 {
				s.result(stt.Interim, fmt.Sprintf("interim %d.%d", i, j))
			}
			text := fmt.Sprintf("answer %d", i)
			s.result(stt.Final, text)
			wantTurns = append(wantTurns, text)
			feed(t, l, noise(time.Second, 30, rng), 320)
			synctest.Wait()
		}
		evs := drain(l)
		for len(evs) > 0 && len(ofType[EndOfTurn](evs)) < len(wantTurns) {
			synctest.Wait()
			more := drain(l)
			if len(more) == 0 {
				break
			}
			evs = append(evs, more...)
		}
		var turns []string
		for _, e := range ofType[EndOfTurn](evs) {
			turns = append(turns, e.Text)
		}
		if !slices.Equal(turns, wantTurns) {
			t.Fatalf("turns = %q, want %q", turns, wantTurns)
		}
		if n := len(ofType[Transcript](evs)); n >= 60*6 {
			t.Errorf("all %d transcripts delivered; expected interims to be dropped", n)
		}
		finals := 0
		for _, tr := range ofType[Transcript](evs) {
			if tr.Final {
				finals++
			}
		}
		if finals != 60 || len(ofType[SpeechStarted](evs)) != 60 || len(ofType[SpeechEnded](evs)) != 60 {
			t.Errorf("finals %d, starts %d, ends %d, want 60 each", finals, len(ofType[SpeechStarted](evs)), len(ofType[SpeechEnded](evs)))
		}
		// Order: per utterance, started < ended < final transcript < turn.
		var last time.Time
		for _, ev := range evs {
			if _, ok := ev.(Transcript); ok {
				continue
			}
			if ev.EventTime().Before(last) {
				t.Fatalf("events out of order at %v", ev)
			}
			last = ev.EventTime()
		}
	})
}

func TestListenerClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := &testSTT{}
		l := newTestListener(t, engine, ListenerOptions{})
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if _, ok := <-l.Events(); ok {
			t.Fatal("Events not closed after Close")
		}
		if err := l.WriteSample(make([]int16, 320)); err != ErrClosed {
			t.Fatalf("WriteSample after Close = %v, want ErrClosed", err)
		}
		if !engine.stream(t).closed {
			t.Fatal("STT stream not closed")
		}
		if err := l.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		l, err := NewListener(ctx, ListenerOptions{STT: &testSTT{}})
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		if _, ok := <-l.Events(); ok {
			t.Fatal("Events not closed after the context ended")
		}
		l.Close()
	})
}

func TestNewListenerOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts ListenerOptions
	}{
		{"no engine", ListenerOptions{}},
		{"bad mode", ListenerOptions{STT: &testSTT{}, VADMode: 4}},
		{"negative mode", ListenerOptions{STT: &testSTT{}, VADMode: -1}},
		{"inverted bounds", ListenerOptions{STT: &testSTT{}, EndpointingMin: 2 * time.Second, EndpointingMax: time.Second}},
		{"min speech too long", ListenerOptions{STT: &testSTT{}, MinSpeech: 2 * time.Second}},
	} {
		if _, err := NewListener(t.Context(), tc.opts); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// TestListenerThinkingPauseEvent: a turn that stops mid-clause announces
// the thinking pause once, before the turn; a finished one does not.
func TestListenerThinkingPauseEvent(t *testing.T) {
	lead := step{silence: 500 * time.Millisecond}
	for _, tc := range []struct {
		final string
		want  int
	}{{"and the main reason was", 1}, {"a ledger service and m.", 1}, {"It was latency.", 0}} {
		synctest.Test(t, func(t *testing.T) {
			engine := &testSTT{}
			l := newTestListener(t, engine, ListenerOptions{})
			runScript(t, l, engine, []step{lead, {speech: time.Second}, {silence: 100 * time.Millisecond}, {final: tc.final}, {silence: 4 * time.Second}})
			evs := drain(l)
			if got := len(ofType[ThinkingPause](evs)); got != tc.want {
				t.Errorf("%q: %d ThinkingPause events, want %d (events %v)", tc.final, got, tc.want, evs)
			}
			if turns := ofType[EndOfTurn](evs); len(turns) != 1 {
				t.Errorf("%q: turns %v", tc.final, turns)
			}
		})
	}
}

// TestListenerLikelyEndOfTurn: a finished answer announces its likely
// turn once, with the turn's text, before the EndOfTurn; an unfinished
// clause (the candidate is thinking) announces none.
func TestListenerLikelyEndOfTurn(t *testing.T) {
	lead := step{silence: 500 * time.Millisecond}
	for _, tc := range []struct {
		final string
		want  int
	}{{"It was latency.", 1}, {"and the main reason was", 0}, {"a ledger service and m.", 0}} {
		synctest.Test(t, func(t *testing.T) {
			engine := &testSTT{}
			l := newTestListener(t, engine, ListenerOptions{})
			runScript(t, l, engine, []step{lead, {speech: time.Second}, {silence: 100 * time.Millisecond}, {final: tc.final}, {silence: 4 * time.Second}})
			evs := drain(l)
			likely := ofType[LikelyEndOfTurn](evs)
			if len(likely) != tc.want {
				t.Fatalf("%q: %d LikelyEndOfTurn events, want %d (events %v)", tc.final, len(likely), tc.want, evs)
			}
			turns := ofType[EndOfTurn](evs)
			if len(turns) != 1 {
				t.Fatalf("%q: turns %v", tc.final, turns)
			}
			if tc.want == 1 && (likely[0].Text != turns[0].Text || likely[0].At.After(turns[0].CommittedAt)) {
				t.Errorf("likely %+v before turn %+v: want the same text, earlier", likely[0], turns[0])
			}
		})
	}
}
