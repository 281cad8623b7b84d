package bench

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"time"

	"gopkg.in/hraban/opus.v2"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/agent/llm/scripted"
	"github.com/viva-interviews/viva/agent/spoken"
	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/agent/tts/flite"
	"github.com/viva-interviews/viva/agent/voice"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/stages"
)

// Defaults of InProcessOptions.
const (
	// DefaultInProcessWindow is how long the measured window lasts.
	DefaultInProcessWindow = 20 * time.Second
	// DefaultInProcessWarmup runs before the window: the sessions start,
	// greet and settle into their turns.
	DefaultInProcessWarmup = 6 * time.Second
	// CandidateSilence is the pause after each of the candidate's
	// answers, as the end-to-end candidate bots pause.
	CandidateSilence = 3 * time.Second
	// answerWithin is how soon after the candidate's last word the agent
	// must start speaking for the turn to count as answered: the VAD's
	// hangover and the longest endpointing delay, with room to spare.
	answerWithin = 2500 * time.Millisecond
	// dtxInterval is how often a DTX sender sends its silence marker.
	dtxInterval = 400 * time.Millisecond
)

// What the benchmark's candidate says and hears.
const (
	spokenAnswer  = "I have been working as a backend engineer for five years, mostly on payment systems."
	agentSentence = "Thank you, that is helpful."
)

// InProcessOptions configure RunInProcess.
type InProcessOptions struct {
	// Sessions is how many interviews run at once. Required.
	Sessions int
	// Window is the measured time (default DefaultInProcessWindow);
	// Warmup runs before it (default DefaultInProcessWarmup).
	Window, Warmup time.Duration
	// CodedSilence sends the candidate's pauses as coded silence every
	// 20 ms, as a sender without discontinuous transmission does. By
	// default they are sent as a browser sends them (livekit-client
	// publishes with DTX): a silence marker every 400 ms and nothing in
	// between, the worker's silence clock writing the pause as it passes.
	CodedSilence bool
	// Listener is the template of each session's listener options.
	Listener voice.ListenerOptions
	// Logger receives the sessions' logs (default: discarded below
	// errors).
	Logger *slog.Logger
}

// InProcess is RunInProcess as the density benchmark calls it (an
// InProcessFunc): sessions interviews measured over window.
func InProcess(ctx context.Context, sessions int, window time.Duration) (DensityRun, error) {
	return RunInProcess(ctx, InProcessOptions{Sessions: sessions, Window: window})
}

// RunInProcess runs opts.Sessions spoken interviews in this process, the
// worker's whole session pipeline minus WebRTC, and measures what they
// cost: each candidate's recorded answer, Opus-coded once and replayed as
// 20 ms packets (and its pauses as a browser with discontinuous
// transmission sends them, see CodedSilence), goes through the decoder the worker uses, the VAD and
// endpointing, to the conversation loop and the scripted interviewer,
// whose replies go through the speaker, the Opus encoder and the shared
// pacing clock into a packet counter. The speech engines are stand-ins
// that cost nothing (a recogniser that hears the answer at each end of
// speech, a voice that replays one recorded sentence), as remote engines
// cost the worker nothing but the wire.
//
// The process's own CPU time (/proc/self/stat) is measured over the window, so
// the harness is in it too: its feeding is kept cheap (one goroutine per
// CPU hands pre-encoded packets to every session in turn) and is a small
// share of the figure. RSS growth is measured from before the sessions
// start. Nothing else should run in the process meanwhile.
func RunInProcess(ctx context.Context, opts InProcessOptions) (DensityRun, error) {
	if opts.Sessions <= 0 {
		return DensityRun{}, errors.New("bench: in process: Sessions must be positive")
	}
	windowLen := cmpOr(opts.Window, DefaultInProcessWindow)
	warmup := cmpOr(opts.Warmup, DefaultInProcessWarmup)
	log := opts.logger()
	media, err := prepareMedia(!opts.CodedSilence)
	if err != nil {
		return DensityRun{}, err
	}
	bp, err := stages.Builtin(stages.DefaultName)
	if err != nil {
		return DensityRun{}, fmt.Errorf("bench: in process: %w", err)
	}
	store, remove, err := tempStore()
	if err != nil {
		return DensityRun{}, fmt.Errorf("bench: in process: %w", err)
	}
	defer remove()

	runtime.GC()
	debug.FreeOSMemory()
	rssBefore, err := processRSSBytes(os.Getpid())
	if err != nil {
		return DensityRun{}, fmt.Errorf("bench: in process: %w", err)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pacer := voice.NewPacer(nil)
	silence := voice.NewSilenceClock(nil)
	sessions := make([]*benchSession, opts.Sessions)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	start := time.Now()
	for i := range sessions {
		s, err := startSession(ctx, i, opts, bp, store, pacer, silence, media, log)
		if err != nil {
			return DensityRun{}, err
		}
		sessions[i] = s
		wg.Go(func() { s.run(ctx) })
	}
	defer func() {
		for _, s := range sessions {
			_ = s.voice.Close()
		}
	}()

	// Feeders: one per CPU, each owning every k-th session.
	feeders := runtime.GOMAXPROCS(0)
	for f := range feeders {
		wg.Go(func() { feed(ctx, start, sessions, f, feeders, media) })
	}

	if !sleep(ctx, warmup) {
		return DensityRun{}, ctx.Err()
	}
	win, err := measure(ctx, os.Getpid(), windowLen, pacer.LateFrames)
	if err != nil {
		return DensityRun{}, fmt.Errorf("bench: in process: %w", err)
	}
	cancel()

	secs := win.seconds()
	run := DensityRun{
		Mode:             ModeInProcess,
		Sessions:         opts.Sessions,
		Seconds:          secs,
		CPUMSPerSessionS: ms(win.cpu) / secs / float64(opts.Sessions),
		RSSMB:            float64(win.rssBytes) / bytesPerMB,
		RSSMBPerSession:  float64(max(0, win.rssBytes-rssBefore)) / bytesPerMB / float64(opts.Sessions),
		LateFrames:       int(win.lateFrames),
		MachineCPU:       win.machineCPU,
	}
	countSessionTurns(&run, sessions, win)
	return run, nil
}

// tempStore opens a file store in a new temporary directory; remove
// deletes the directory.
func tempStore() (store interviews.Store, remove func(), err error) {
	dir, err := os.MkdirTemp("", "viva-bench-")
	if err != nil {
		return nil, nil, err
	}
	store, err = filestore.Open(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return store, func() { os.RemoveAll(dir) }, nil
}

// countSessionTurns puts the sessions' turns that ended within win into
// run.
func countSessionTurns(run *DensityRun, sessions []*benchSession, win window) {
	var response []float64
	for _, s := range sessions {
		turns, unanswered, ms := s.turns(win.from, win.to)
		run.Turns += turns
		run.UnansweredTurns += unanswered
		response = append(response, ms...)
	}
	if len(response) > 0 {
		p := Summarize(response)
		run.ResponseMS = &p
	}
}

// logger is o.Logger, or one that logs only errors to stderr.
func (o InProcessOptions) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// benchMedia is the audio every session shares, prepared once.
type benchMedia struct {
	// cycle is one answer and the pause after it, as 20 ms packets; nil
	// entries are sent as nothing (DTX), speechFrames of them are speech.
	cycle        [][]byte
	speechFrames int
	// agentPCM is the voice's one sentence at agentRateHz.
	agentPCM    []int16
	agentRateHz int
}

// prepareMedia synthesises the answer and the agent's sentence with flite
// and codes the answer as the candidate's browser would.
func prepareMedia(dtx bool) (*benchMedia, error) {
	eng, err := flite.New(flite.Options{})
	if err != nil {
		return nil, fmt.Errorf("bench: in process: flite: %w", err)
	}
	synth := func(text string) ([]int16, error) {
		var pcm []int16
		err := eng.Synthesize(context.Background(), text, func(p []int16) error { pcm = append(pcm, p...); return nil })
		return pcm, err
	}
	answer, err := synth(spokenAnswer)
	if err != nil {
		return nil, fmt.Errorf("bench: in process: synthesising the answer: %w", err)
	}
	said, err := synth(agentSentence)
	if err != nil {
		return nil, fmt.Errorf("bench: in process: synthesising the agent's sentence: %w", err)
	}
	if eng.SampleRate() != stt.SampleRate {
		return nil, fmt.Errorf("bench: in process: flite speaks at %d Hz, want %d", eng.SampleRate(), stt.SampleRate)
	}
	enc, err := opus.NewEncoder(stt.SampleRate, 1, opus.AppVoIP)
	if err != nil {
		return nil, fmt.Errorf("bench: in process: opus encoder: %w", err)
	}
	frame := stt.SampleRate * int(voice.OpusFrameDuration/time.Millisecond) / 1000
	encode := func(pcm []int16) ([]byte, error) {
		buf := make([]byte, 400)
		n, err := enc.Encode(pcm, buf)
		return buf[:n], err
	}
	m := &benchMedia{agentPCM: said, agentRateHz: eng.SampleRate()}
	for off := 0; off+frame <= len(answer); off += frame {
		p, err := encode(answer[off : off+frame])
		if err != nil {
			return nil, fmt.Errorf("bench: in process: opus encode: %w", err)
		}
		m.cycle = append(m.cycle, p)
	}
	m.speechFrames = len(m.cycle)
	silence := make([]int16, frame)
	pause := int(CandidateSilence / voice.OpusFrameDuration)
	every := int(dtxInterval / voice.OpusFrameDuration)
	for k := range pause {
		switch {
		case !dtx:
			p, err := encode(silence)
			if err != nil {
				return nil, fmt.Errorf("bench: in process: opus encode: %w", err)
			}
			m.cycle = append(m.cycle, p)
		case k%every == every-1:
			// A silence marker: one byte, a 20 ms SILK frame's TOC.
			m.cycle = append(m.cycle, []byte{0x08})
		default:
			m.cycle = append(m.cycle, nil)
		}
	}
	return m, nil
}

// benchSession is one interview of the run.
type benchSession struct {
	loop  *agent.Loop
	voice *spoken.Session
	input *voice.OpusInput
	phase int // the session's offset into the media cycle, in frames
	log   *slog.Logger

	mu         sync.Mutex
	speechEnds []time.Time // when each answer's last packet was sent
	spoke      []time.Time // when each reply started playing
}

func startSession(ctx context.Context, i int, opts InProcessOptions, bp *stages.Blueprint, store interviews.Store,
	pacer *voice.Pacer, silence *voice.SilenceClock, m *benchMedia, log *slog.Logger) (*benchSession, error) {
	rec := &interviews.Record{
		Candidate: interviews.Candidate{Name: "Bench Candidate " + strconv.Itoa(i), Email: fmt.Sprintf("bench%d@example.com", i), Role: "Backend engineer"},
		Blueprint: bp.Name,
	}
	rec.Candidate.Normalize()
	if err := store.Create(ctx, rec); err != nil {
		return nil, fmt.Errorf("bench: in process: creating a record: %w", err)
	}
	log = log.With("interview_id", rec.ID)
	loop, err := agent.NewLoop(agent.Setup{Blueprint: bp, Record: rec, Store: store, TimeScale: 10,
		Models: agent.Models{NewLLM: func(m *fsm.Machine, bp *stages.Blueprint, p stages.Profile) llm.Client { return scripted.New(m, bp, p) }},
		Logger: log},
		agent.LoopOptions{})
	if err != nil {
		return nil, fmt.Errorf("bench: in process: %w", err)
	}
	s := &benchSession{loop: loop, phase: i * len(m.cycle) / opts.Sessions, log: log}
	s.voice, err = spoken.New(ctx, spoken.Options{
		STT: answerSTT{}, TTS: &replayTTS{pcm: m.agentPCM, rateHz: m.agentRateHz},
		Listener: opts.Listener, Pacer: pacer, Silence: silence, Out: discard{}, Display: (*benchDisplay)(s),
		Segment: rec.ID, Logger: log,
	})
	if err != nil {
		return nil, fmt.Errorf("bench: in process: %w", err)
	}
	if s.input, err = s.voice.NewCandidateInput(); err != nil {
		return nil, fmt.Errorf("bench: in process: %w", err)
	}
	return s, nil
}

// run holds the interview until ctx ends.
func (s *benchSession) run(ctx context.Context) {
	go func() {
		s.voice.Post(agent.Joined{})
		s.voice.Post(agent.Hearing{})
	}()
	if err := s.loop.Run(ctx, s.voice); err != nil && ctx.Err() == nil {
		s.log.Error("bench interview failed", "err", err)
	}
	_ = s.loop.Conductor().Recorder().Close()
}

// turns counts the answers that ended in [from, to-answerWithin], those
// with no reply starting within answerWithin, and the replies' delays.
func (s *benchSession) turns(from, to time.Time) (turns, unanswered int, responseMS []float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, end := range s.speechEnds {
		if end.Before(from) || end.After(to.Add(-answerWithin)) {
			continue
		}
		turns++
		k, _ := slices.BinarySearchFunc(s.spoke, end, func(a, b time.Time) int { return a.Compare(b) })
		if k == len(s.spoke) || s.spoke[k].Sub(end) > answerWithin {
			unanswered++
			continue
		}
		responseMS = append(responseMS, float64(s.spoke[k].Sub(end))/float64(time.Millisecond))
	}
	return turns, unanswered, responseMS
}

// feed sends every k-th session (from first) its next packet every 20 ms.
func feed(ctx context.Context, start time.Time, sessions []*benchSession, first, k int, m *benchMedia) {
	tick := time.NewTicker(voice.OpusFrameDuration)
	defer tick.Stop()
	n := len(m.cycle)
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			slot := int64(now.Sub(start) / voice.OpusFrameDuration)
			for i := first; i < len(sessions); i += k {
				s := sessions[i]
				f := (int(slot) + s.phase) % n
				if f == m.speechFrames-1 {
					s.mu.Lock()
					s.speechEnds = append(s.speechEnds, now)
					s.mu.Unlock()
				}
				if p := m.cycle[f]; p != nil {
					_ = s.input.WritePacket(p, uint32(slot)*uint32(voice.OpusRTPClockHz/50))
				}
			}
		}
	}
}

// benchDisplay notes when the agent starts speaking.
type benchDisplay benchSession

func (d *benchDisplay) Caption(voice.Transcript)                {}
func (d *benchDisplay) AgentCaption(string, string, bool, bool) {}
func (d *benchDisplay) Thinking(bool)                           {}
func (d *benchDisplay) StageEntered(agent.StageChange)          {}
func (d *benchDisplay) State(state spoken.State) {
	if state != spoken.StateSpeaking {
		return
	}
	d.mu.Lock()
	d.spoke = append(d.spoke, time.Now())
	d.mu.Unlock()
}

// discard is the network: it only counts.
type discard struct{}

func (discard) WritePacket([]byte, int64, int) error { return nil }

// answerSTT hears the candidate's answer at each end of speech, at once.
type answerSTT struct{}

func (answerSTT) Name() string { return "bench" }

func (answerSTT) NewStream(context.Context) (stt.Stream, error) {
	return &answerStream{events: make(chan stt.Event, 16)}, nil
}

// answerStream's Write, EndOfSpeech and Close run on the listener's audio
// path, one at a time.
type answerStream struct {
	closed bool
	events chan stt.Event
}

func (s *answerStream) Write([]int16, bool) error { return nil }

func (s *answerStream) EndOfSpeech() error {
	if s.closed {
		return nil
	}
	select {
	case s.events <- stt.Event{Type: stt.Final, Text: spokenAnswer, At: time.Now()}:
	default:
	}
	return nil
}

func (s *answerStream) Events() <-chan stt.Event { return s.events }

func (s *answerStream) Close() error {
	if !s.closed {
		s.closed = true
		close(s.events)
	}
	return nil
}

// replayTTS speaks every sentence as the one recorded sentence, in 100 ms
// chunks, at once.
type replayTTS struct {
	pcm    []int16
	rateHz int
}

func (t *replayTTS) Name() string    { return "bench" }
func (t *replayTTS) SampleRate() int { return t.rateHz }

func (t *replayTTS) Synthesize(ctx context.Context, _ string, out func([]int16) error) error {
	chunk := t.rateHz / 10
	for off := 0; off < len(t.pcm); off += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := out(t.pcm[off:min(off+chunk, len(t.pcm))]); err != nil {
			return err
		}
	}
	return nil
}
