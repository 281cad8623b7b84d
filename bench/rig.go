package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/livekit/protocol/auth"
	"github.com/livekit/protocol/livekit"

	"github.com/viva-interviews/viva/agent/voice"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/internal/linelog"
	"github.com/viva-interviews/viva/internal/lklocal"
	"github.com/viva-interviews/viva/testrig/candidatebot"
	"github.com/viva-interviews/viva/testrig/fakeopenai"
)

// WorkerEnv is set (to "1") in the environment of the worker process a
// benchmark starts: a test binary standing in for viva runs viva's main
// when it sees it.
const WorkerEnv = "VIVA_BENCH_WORKER"

const (
	// workerRegisterTimeout bounds how long a worker may take to start and
	// register with LiveKit.
	workerRegisterTimeout = 60 * time.Second
	// workerTimeScale stretches the interview's stage limits tenfold (the
	// most allowed), so no stage ends during a benchmark.
	workerTimeScale = "10"
	// tokenValidity is the lifetime of the bots' join tokens.
	tokenValidity = 2 * time.Hour
)

// Endpointing is the worker's end-of-turn setting the benchmarks run with
// (the product's defaults).
var Endpointing = struct{ Delay, Min, Max time.Duration }{
	config.DefaultEndpointingDelay, config.DefaultEndpointingMin, config.DefaultEndpointingMax,
}

// FinishedEndpointing is the wait after a finished sentence, the kind the
// benchmark's candidate says: voice.FinishedFactor × the delay, clamped.
func FinishedEndpointing() time.Duration {
	d := time.Duration(float64(Endpointing.Delay) * voice.FinishedFactor)
	return min(max(d, Endpointing.Min), Endpointing.Max)
}

// RigOptions say how to start the processes a benchmark measures.
type RigOptions struct {
	// LiveKitBinary is the livekit-server executable.
	LiveKitBinary string
	// Worker is the command line that runs viva, whose "agent" command is
	// the worker (usually os.Executable()).
	Worker string
	// ProviderLatency is held before every provider request (recognition,
	// model, speech) is answered.
	ProviderLatency time.Duration
	// Dir holds logs and the worker's records; it must exist.
	Dir string
	// Logger receives progress; nil discards it.
	Logger *slog.Logger
	// AgentsJS, when set, is the directory of bench/agentsjs (agent.mjs
	// and its installed node_modules): the measured worker is then LiveKit's
	// agents-js pipeline rather than viva's, with the same bots and fakes.
	AgentsJS string
}

// rig is a livekit-server, the fake providers, and at most one worker
// process at a time.
type rig struct {
	opts RigOptions
	log  *slog.Logger
	lk   *liveKit
	prov *providers
	// workers counts the workers started, for unique names and logs.
	workers int

	uttMu sync.Mutex
	utt   utterance // the candidate's answer, made by the first bot
}

// startRig starts the server and the providers.
func startRig(ctx context.Context, opts RigOptions) (*rig, error) {
	if opts.LiveKitBinary == "" || opts.Worker == "" || opts.Dir == "" {
		return nil, errors.New("bench: LiveKitBinary, Worker and Dir are required")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	lk, err := startLiveKit(ctx, opts.LiveKitBinary, filepath.Join(opts.Dir, "livekit-server.log"))
	if err != nil {
		return nil, err
	}
	prov, err := startProviders(opts.ProviderLatency)
	if err != nil {
		lk.stop()
		return nil, fmt.Errorf("bench: start the fake providers: %w", err)
	}
	log.Info("livekit-server and fake providers running", "url", lk.url, "provider_latency", opts.ProviderLatency)
	return &rig{opts: opts, log: log, lk: lk, prov: prov}, nil
}

// close stops everything the rig started.
func (r *rig) close() {
	r.prov.close()
	r.lk.stop()
}

// worker is one `viva agent` process registered with the rig's server.
type worker struct {
	*child
	// name is the agent name it registered, which bots dispatch to.
	name string
}

// startWorker runs a new worker process and returns once LiveKit has
// registered it. Each worker has its own agent name, so bots reach only it.
func (r *rig) startWorker(ctx context.Context) (*worker, error) {
	r.workers++
	name := "viva-bench-" + strconv.Itoa(r.workers)
	data := filepath.Join(r.opts.Dir, name)
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, fmt.Errorf("bench: worker data directory: %w", err)
	}
	argv, env := r.vivaWorker(name, data)
	if r.opts.AgentsJS != "" {
		argv, env = r.agentsJSWorker(name)
	}
	logPath := filepath.Join(r.opts.Dir, name+".log")
	c, err := startChild(argv, env, logPath)
	if err != nil {
		return nil, fmt.Errorf("bench: worker: %w", err)
	}
	wctx, cancel := context.WithTimeout(ctx, workerRegisterTimeout)
	defer cancel()
	go func() {
		select {
		case <-c.exited:
			cancel()
		case <-wctx.Done():
		}
	}()
	if _, err := r.lk.log.Wait(wctx, linelog.ContainsAll(registeredLine, name)); err != nil {
		c.stop()
		return nil, fmt.Errorf("bench: the worker did not register (its log: %s): %w", logPath, err)
	}
	r.log.Info("worker registered", "agent_name", name, "pid", c.pid())
	return &worker{child: c, name: name}, nil
}

// vivaWorker is the command line and environment of a viva worker named
// name keeping its records in data.
func (r *rig) vivaWorker(name, data string) (argv, env []string) {
	argv = []string{r.opts.Worker, "agent",
		"--livekit-url", r.lk.url, "--livekit-api-key", lklocal.DevAPIKey,
		"--agent-name", name, "--data-dir", data,
		"--llm", "openai", "--stt", "openai", "--tts", "openai", "--openai-base-url", r.prov.url,
		"--time-scale", workerTimeScale, "--max-sessions", "10000",
		"--rejoin-grace", "0s", "--drain-timeout", "0s", "--log-level", "warn",
		// No fixed port: several workers, and other programs, share the machine.
		"--health-addr", "off",
		"--endpointing-delay", Endpointing.Delay.String(), "--endpointing-min", Endpointing.Min.String(),
		"--endpointing-max", Endpointing.Max.String(), "--interrupt-threshold", InterruptThreshold.String(),
	}
	env = []string{WorkerEnv + "=1", "LIVEKIT_API_SECRET=" + lklocal.DevAPISecret, "OPENAI_API_KEY=" + fakeopenai.Key}
	return argv, env
}

// agentsJSWorker is the command line and environment of LiveKit's
// agents-js worker (bench/agentsjs/agent.mjs) registering as name, reaching
// the rig's server and fake OpenAI through the SDK's standard variables.
func (r *rig) agentsJSWorker(name string) (argv, env []string) {
	argv = []string{"node", filepath.Join(r.opts.AgentsJS, "agent.mjs"), "start"}
	env = []string{
		"LIVEKIT_URL=" + r.lk.url, "LIVEKIT_API_KEY=" + lklocal.DevAPIKey, "LIVEKIT_API_SECRET=" + lklocal.DevAPISecret,
		"OPENAI_API_KEY=" + fakeopenai.Key, "OPENAI_BASE_URL=" + r.prov.url, "VIVA_BENCH_AGENT_NAME=" + name,
	}
	return argv, env
}

// joinBot dispatches the worker w to a new room and joins it as a
// candidate bot.
func (r *rig) joinBot(ctx context.Context, w *worker, room string) (*candidatebot.Bot, error) {
	meta, err := json.Marshal(map[string]string{"name": "Bench Candidate", "role": "Software engineer", "level": "mid"})
	if err != nil {
		return nil, err
	}
	at := auth.NewAccessToken(lklocal.DevAPIKey, lklocal.DevAPISecret).SetIdentity("candidate-" + room).SetName("Bench Candidate").SetValidFor(tokenValidity)
	at.SetVideoGrant(&auth.VideoGrant{RoomJoin: true, Room: room})
	at.SetRoomConfig(&livekit.RoomConfiguration{Agents: []*livekit.RoomAgentDispatch{{AgentName: w.name, Metadata: string(meta)}}})
	token, err := at.ToJWT()
	if err != nil {
		return nil, fmt.Errorf("bench: sign a join token: %w", err)
	}
	bot, err := candidatebot.Join(ctx, candidatebot.Options{URL: r.lk.url, Token: token, Logger: r.log.With("room", room)})
	if err != nil {
		return nil, fmt.Errorf("bench: bot joins %s: %w", room, err)
	}
	return bot, nil
}
