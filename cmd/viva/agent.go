package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/agent/engines"
	"github.com/viva-interviews/viva/agent/voice"
	"github.com/viva-interviews/viva/agent/worker"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/internal/cli"
	"github.com/viva-interviews/viva/internal/metrics"
	"github.com/viva-interviews/viva/internal/procload"
	"github.com/viva-interviews/viva/internal/sidehttp"
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
		return cli.UsageError("%v", err)
	}
	log := newLogger(stderr, cfg.LogLevel)
	w, side, _, err := startWorker(ctx, cfg, log, metrics.NewRegistry())
	if err != nil {
		return err
	}
	defer side.Stop()
	return runWorker(ctx, w, cfg, log)
}

// startWorker makes the worker, its metrics in reg, and starts its side
// listeners (profiler, health); it returns the health address ("" when
// off). The caller stops side when the worker is done.
func startWorker(ctx context.Context, cfg *config.Config, log *slog.Logger, reg *prometheus.Registry) (w *lkagent.Worker, side *sidehttp.Servers, healthAddr string, err error) {
	w, err = newWorker(ctx, cfg, log, metrics.NewWorker(reg))
	if err != nil {
		return nil, nil, "", err
	}
	side = &sidehttp.Servers{Logger: log}
	if _, err = startPprof(side, cfg); err == nil {
		healthAddr, err = startHealth(side, cfg, w, reg)
	}
	if err != nil {
		side.Stop()
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
	recogniser, err := engines.STT(cfg, log)
	if err != nil {
		return nil, err
	}
	synth, err := engines.TTS(cfg, log)
	if err != nil {
		return nil, err
	}
	newLLM, llmName, err := engines.LLM(cfg, log)
	if err != nil {
		return nil, err
	}
	analyzer, err := engines.Analyzer(cfg, log)
	if err != nil {
		return nil, err
	}
	if err := engines.CheckKeys(context.Background(), cfg, recogniser); err != nil {
		return nil, err
	}
	log.Info("engines", "llm", llmName, "stt", recogniser.Name(), "tts", synth.Name(), "agent_name", cfg.AgentName, "max_sessions", cfg.MaxSessions)
	sessions := &worker.Sessions{
		Store: store, TimeScale: cfg.TimeScale,
		Engines: worker.Engines{Models: agent.Models{NewLLM: newLLM, Analyzer: analyzer, Preemptive: cfg.ResolvedLLM() == config.EngineOpenAI},
			STT: recogniser, TTS: synth, Names: interviews.Engines{LLM: llmName, STT: recogniser.Name(), TTS: synth.Name()}},
		Listener: voice.ListenerOptions{EndpointingDelay: cfg.EndpointingDelay, EndpointingMin: cfg.EndpointingMin,
			EndpointingMax: cfg.EndpointingMax, InterruptThreshold: cfg.InterruptThreshold, ThinkingPause: cfg.ThinkingPause},
		FalseInterruptionTimeout: offWhenZero(cfg.FalseInterruptionTimeout), AwayAfter: offWhenZero(cfg.AwayAfter),
		HearingTimeout: offWhenZero(cfg.HearingTimeout),
		Rooms:          lksdk.NewRoomServiceClient(httpURL(cfg.LiveKitURL), cfg.LiveKitAPIKey, cfg.LiveKitAPISecret),
		EnginesFor:     engines.ForOwnKeys(cfg, log),
		RejoinGrace:    cfg.RejoinGrace,
		Logger:         log,
		Metrics:        m,
	}
	if sessions.Recordings, err = recordingsDir(ctx, cfg); err != nil {
		return nil, err
	}
	if dir := sessions.Recordings; dir != nil && dir.Objects() != nil {
		// Recordings whose upload failed, or that a stopped worker left,
		// go to the object store at start, whenever an upload fails and
		// every few minutes, until the process stops.
		up := &recordings.Uploader{Dir: dir, Logger: log}
		go up.Run(ctx, recordings.DefaultUploadInterval)
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

// recordingsDir is where the worker records the interviews' audio (and
// the object store it uploads them to): nil, and no directory made, when
// --record-audio=false.
func recordingsDir(ctx context.Context, cfg *config.Config) (*recordings.Dir, error) {
	if !cfg.RecordAudio {
		return nil, nil
	}
	return openRecordings(ctx, cfg, true)
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
