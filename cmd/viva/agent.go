package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/viva-interviews/viva/agent/llm/openai"
	"github.com/viva-interviews/viva/agent/stt"
	dgstt "github.com/viva-interviews/viva/agent/stt/deepgram"
	oaistt "github.com/viva-interviews/viva/agent/stt/openai"
	"github.com/viva-interviews/viva/agent/stt/sphinx"
	"github.com/viva-interviews/viva/agent/tts"
	"github.com/viva-interviews/viva/agent/tts/flite"
	oaitts "github.com/viva-interviews/viva/agent/tts/openai"
	"github.com/viva-interviews/viva/agent/voice"
	"github.com/viva-interviews/viva/agent/worker"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/internal/metrics"
	"github.com/viva-interviews/viva/internal/procload"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/recordings"
	"github.com/viva-interviews/viva/lkagent"
)

// runAgent registers a worker with LiveKit and holds the interviews it is
// dispatched to, until SIGINT/SIGTERM (then it drains).
func runAgent(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := loadConfig("agent", args, stderr, nil)
	if err != nil {
		return err
	}
	if err := cfg.RequireLiveKit(); err != nil {
		return usageError("%v", err)
	}
	log := newLogger(stderr, cfg.LogLevel)
	w, side, _, err := startWorker(ctx, cfg, log, metrics.NewRegistry())
	if err != nil {
		return err
	}
	defer side.stop()
	return runWorker(ctx, w, cfg, log)
}

// startWorker makes the worker, its metrics in reg, and starts its side
// listeners (profiler, health); it returns the health address ("" when
// off). The caller stops side when the worker is done.
func startWorker(ctx context.Context, cfg *config.Config, log *slog.Logger, reg *prometheus.Registry) (w *lkagent.Worker, side *sideServers, healthAddr string, err error) {
	w, err = newWorker(ctx, cfg, log, metrics.NewWorker(reg))
	if err != nil {
		return nil, nil, "", err
	}
	side = &sideServers{log: log}
	if _, err = side.startPprof(cfg); err == nil {
		healthAddr, err = side.startHealth(cfg, w, reg)
	}
	if err != nil {
		side.stop()
		return nil, nil, "", err
	}
	return w, side, healthAddr, nil
}

// runWorker runs w until ctx ends, then drains it.
func runWorker(ctx context.Context, w *lkagent.Worker, cfg *config.Config, log *slog.Logger) error {
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	done := make(chan error, 1)
	go func() { done <- w.Run(runCtx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	log.Info("stopping: no new interviews; waiting for running ones", "active", w.Active(), "drain_timeout", cfg.DrainTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), cfg.DrainTimeout+10*time.Second)
	defer cancel()
	if err := w.Shutdown(sctx); err != nil {
		log.Warn("drain ended early", "err", err)
	}
	stop()
	return <-done
}

// newWorker builds the worker and its sessions from the configuration;
// m counts what they do.
func newWorker(ctx context.Context, cfg *config.Config, log *slog.Logger, m *metrics.Worker) (*lkagent.Worker, error) {
	lksdk.SetLogger(worker.SDKLogger(log, ""))
	store, err := openStore(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	recogniser, err := newSTT(cfg, log)
	if err != nil {
		return nil, err
	}
	synth, err := newTTS(cfg, log)
	if err != nil {
		return nil, err
	}
	newLLM, llmName, err := llmFactory(cfg, log)
	if err != nil {
		return nil, err
	}
	analyzer, err := analyzerFor(cfg, log)
	if err != nil {
		return nil, err
	}
	if err := checkKeys(context.Background(), cfg, recogniser); err != nil {
		return nil, err
	}
	log.Info("engines", "llm", llmName, "stt", recogniser.Name(), "tts", synth.Name(), "agent_name", cfg.AgentName, "max_sessions", cfg.MaxSessions)
	sessions := &worker.Sessions{
		Store: store, NewLLM: newLLM, Analyzer: analyzer, Preemptive: cfg.ResolvedLLM() == config.EngineOpenAI, STT: recogniser, TTS: synth, TimeScale: cfg.TimeScale,
		Engines: interviews.Engines{LLM: llmName, STT: recogniser.Name(), TTS: synth.Name()},
		Listener: voice.ListenerOptions{EndpointingDelay: cfg.EndpointingDelay, EndpointingMin: cfg.EndpointingMin,
			EndpointingMax: cfg.EndpointingMax, InterruptThreshold: cfg.InterruptThreshold, ThinkingPause: cfg.ThinkingPause},
		FalseInterruptionTimeout: offWhenZero(cfg.FalseInterruptionTimeout), AwayAfter: offWhenZero(cfg.AwayAfter),
		HearingTimeout: offWhenZero(cfg.HearingTimeout),
		Rooms:          lksdk.NewRoomServiceClient(httpURL(cfg.LiveKitURL), cfg.LiveKitAPIKey, cfg.LiveKitAPISecret),
		EnginesFor:     enginesFor(cfg, log),
		RejoinGrace:    cfg.RejoinGrace,
		Logger:         log,
		Metrics:        m,
	}
	if sessions.Recordings, err = recordingsDir(cfg); err != nil {
		return nil, err
	}
	// The worker's load is the larger of its own process's CPU share and
	// its interviews over the most it holds; above the threshold it
	// declines, and LiveKit offers the interview to another worker.
	var w *lkagent.Worker
	meter, err := procload.New(procload.Options{Sessions: func() int { return w.Active() }, MaxSessions: cfg.MaxSessions})
	if err != nil {
		return nil, err
	}
	w, err = lkagent.New(lkagent.Options{URL: cfg.LiveKitURL, APIKey: cfg.LiveKitAPIKey, APISecret: cfg.LiveKitAPISecret,
		AgentName: cfg.AgentName, MaxSessions: cfg.MaxSessions, DrainTimeout: cfg.DrainTimeout, Logger: log, Version: version,
		Load: meter.Load, LoadThreshold: float32(cfg.LoadThreshold), OnAvailability: m.Dispatch, Admit: sessions.Admit}, sessions)
	if err != nil {
		return nil, err
	}
	m.WatchLoad(func() float64 { return float64(meter.Load()) }, meter.CPUShare)
	m.WatchRegistered(func() bool { return w.Status() == lkagent.StatusRegistered })
	return w, nil
}

// recordingsDir is where the worker records the interviews' audio: nil,
// and no directory made, when --record-audio=false.
func recordingsDir(cfg *config.Config) (*recordings.Dir, error) {
	if !cfg.RecordAudio {
		return nil, nil
	}
	return recordings.Open(cfg.ResolvedRecordingsDir())
}

// offWhenZero maps a setting where 0 means "off" to the worker's
// convention, where 0 means the default and a negative value off.
func offWhenZero(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// version is reported to LiveKit when the worker registers.
var version = "dev"

// httpURL turns a LiveKit ws(s) URL into the http(s) URL of its API.
func httpURL(u string) string {
	switch {
	case strings.HasPrefix(u, "ws://"):
		return "http://" + strings.TrimPrefix(u, "ws://")
	case strings.HasPrefix(u, "wss://"):
		return "https://" + strings.TrimPrefix(u, "wss://")
	}
	return u
}

// enginesFor returns how to make the engines of an interview that brings
// its own provider keys: the configured engines with those keys in place of
// the worker's (an OpenAI key also moves the model and speech off the
// offline engines; a Deepgram key picks Deepgram recognition), built the
// same way as the worker's own, the scripted fallback included. Every
// given key is checked with its provider before the engines are returned.
func enginesFor(cfg *config.Config, log *slog.Logger) func(context.Context, interviews.Keys) (worker.Engines, error) {
	return func(ctx context.Context, keys interviews.Keys) (worker.Engines, error) {
		c := ownKeysConfig(cfg, keys)
		recogniser, err := newSTT(c, log)
		if err != nil {
			return worker.Engines{}, err
		}
		synth, err := newTTS(c, log)
		if err != nil {
			return worker.Engines{}, err
		}
		newLLM, llmName, err := llmFactory(c, log)
		if err != nil {
			return worker.Engines{}, err
		}
		analyzer, err := analyzerFor(c, log)
		if err != nil {
			return worker.Engines{}, err
		}
		if err := checkOwnKeys(ctx, c, keys, recogniser); err != nil {
			return worker.Engines{}, err
		}
		return worker.Engines{NewLLM: newLLM, Analyzer: analyzer, Preemptive: c.ResolvedLLM() == config.EngineOpenAI, STT: recogniser, TTS: synth,
			Names: interviews.Engines{LLM: llmName, STT: recogniser.Name(), TTS: synth.Name()}}, nil
	}
}

// ownKeysConfig is cfg with an interview's own keys in place of the
// worker's, and the engines those keys enable chosen.
func ownKeysConfig(cfg *config.Config, keys interviews.Keys) *config.Config {
	c := *cfg
	if keys.OpenAI != "" {
		c.OpenAIAPIKey = keys.OpenAI
		c.LLM, c.TTS = config.EngineOpenAI, config.EngineOpenAI
		if c.ResolvedSTT() == config.EngineSphinx {
			c.STT = config.EngineOpenAI
		}
	}
	if keys.Deepgram != "" {
		c.DeepgramAPIKey = keys.Deepgram
		c.STT = config.EngineDeepgram
	}
	return &c
}

// checkOwnKeys checks with each provider that the interview's own keys are
// accepted (recogniser is the engine made with them), so that a refused key
// is told to the candidate before the greeting instead of failing mid-way.
func checkOwnKeys(ctx context.Context, c *config.Config, keys interviews.Keys, recogniser stt.Engine) error {
	ctx, cancel := context.WithTimeout(ctx, keyCheckTimeout)
	defer cancel()
	if keys.OpenAI != "" {
		client, err := openai.New(openai.Options{APIKey: keys.OpenAI, BaseURL: c.OpenAIBaseURL, MaxRetries: -1})
		if err != nil {
			return fmt.Errorf("the OpenAI key: %w", err)
		}
		if err := client.Check(ctx); err != nil {
			return fmt.Errorf("the OpenAI key: %w", err)
		}
	}
	if keys.Deepgram != "" {
		if ch, ok := recogniser.(interface{ Check(context.Context) error }); ok {
			if err := ch.Check(ctx); err != nil {
				return fmt.Errorf("the Deepgram key: %w", err)
			}
		}
	}
	return nil
}

// newSTT makes the speech recogniser the configuration asks for.
func newSTT(cfg *config.Config, log *slog.Logger) (stt.Engine, error) {
	switch cfg.ResolvedSTT() {
	case config.EngineDeepgram:
		return dgstt.New(dgstt.Options{APIKey: cfg.DeepgramAPIKey, Model: cfg.DeepgramModel, Logger: log})
	case config.EngineOpenAI:
		return oaistt.New(oaistt.Options{APIKey: openAIKey(cfg), BaseURL: cfg.OpenAIBaseURL, Model: cfg.OpenAISTTModel, Logger: log})
	default:
		return sphinx.New(sphinx.Options{Logger: log})
	}
}

// newTTS makes the speech synthesiser the configuration asks for. A speech
// service is backed by flite: an utterance the service fails to start is
// spoken offline rather than not at all.
func newTTS(cfg *config.Config, log *slog.Logger) (tts.Engine, error) {
	switch cfg.ResolvedTTS() {
	case config.EngineOpenAI:
		primary, err := oaitts.New(oaitts.Options{APIKey: openAIKey(cfg), BaseURL: cfg.OpenAIBaseURL, Model: cfg.OpenAITTSModel, Voice: cfg.OpenAITTSVoice, Logger: log})
		if err != nil {
			return nil, err
		}
		backup, err := flite.New(flite.Options{Logger: log})
		if err != nil {
			return nil, fmt.Errorf("the offline voice that backs OpenAI speech: %w", err)
		}
		return tts.WithFallback(primary, backup, log), nil
	default:
		return flite.New(flite.Options{Logger: log})
	}
}
