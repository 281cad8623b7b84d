package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/viva-interviews/viva/internal/retry"
	"github.com/viva-interviews/viva/testrig/candidatebot"
)

const (
	// saturatedMachineCPU is the machine's busy fraction past which the
	// end-to-end climb stops: beyond it the figures measure the machine.
	saturatedMachineCPU = 0.9
	// warmup is how long the bots talk after every room was greeted
	// before the window opens.
	warmup = 2 * time.Second
	// joinsAtOnce bounds how many bots join at the same time.
	joinsAtOnce = 4
	// pauseBetweenTurns is the candidate's pause after the agent's reply
	// before answering again.
	pauseBetweenTurns = time.Second
	// bytesPerMB converts resident memory to the figures' megabytes.
	bytesPerMB = 1 << 20
)

// InProcessFunc measures sessions interviews held at once in process (the
// session pipeline without WebRTC) over window.
type InProcessFunc func(ctx context.Context, sessions int, window time.Duration) (DensityRun, error)

// InProcessSessions are the session counts of the in-process mode.
var InProcessSessions = []int{50, 100, 200, 400}

// DensityOptions configure RunDensity.
type DensityOptions struct {
	RigOptions
	// EndToEnd runs bots against a real server and a worker process, for
	// each of Sessions in turn until the machine saturates.
	EndToEnd bool
	// Sessions are the end-to-end session counts, ascending.
	Sessions []int
	// Window is how long each run is measured.
	Window time.Duration
	// InProcess, when set, also runs the in-process mode for
	// InProcessSessions.
	InProcess InProcessFunc
}

// RunDensity measures what each interview costs the worker. End to end,
// for each session count it starts a fresh worker process, records its
// idle memory, joins that many bots (each answers every reply with the
// same spoken sentence after a one-second pause), waits until every room
// has been greeted, and measures over the window: the worker's own CPU
// (utime + stime from /proc/<pid>/stat) per session-second, its resident
// memory growth (VmRSS) per session, the late frames the bots heard (see
// candidatebot.AudioStats.LateFrames), the turns and those with no reply
// within 8 s, and the machine's busy fraction. It stops climbing after a
// run where the machine was busier than 90 % or a turn went unanswered.
func RunDensity(ctx context.Context, opts DensityOptions) (Density, error) {
	var d Density
	if opts.Window <= 0 {
		return d, errors.New("bench: density needs a measured window")
	}
	if opts.EndToEnd {
		if err := densityEndToEnd(ctx, opts, &d); err != nil {
			d.SessionsPerCore = d.SessionsPerCoreAt(sessionsPerCoreAt)
			return d, err
		}
	}
	if opts.InProcess != nil {
		for _, n := range InProcessSessions {
			run, err := opts.InProcess(ctx, n, opts.Window)
			if err != nil {
				return d, fmt.Errorf("bench: in process, %d sessions: %w", n, err)
			}
			run.Mode = ModeInProcess
			d.Runs = append(d.Runs, run)
		}
	}
	d.SessionsPerCore = d.SessionsPerCoreAt(sessionsPerCoreAt)
	return d, nil
}

// sessionsPerCoreAt is the end-to-end session count sessions_per_core is
// taken at.
const sessionsPerCoreAt = 20

// densityEndToEnd climbs through opts.Sessions, appending each run to d.
func densityEndToEnd(ctx context.Context, opts DensityOptions, d *Density) error {
	r, err := startRig(ctx, opts.RigOptions)
	if err != nil {
		return err
	}
	defer r.close()
	for _, n := range opts.Sessions {
		run, err := densityRun(ctx, r, n, opts.Window)
		if err != nil {
			return fmt.Errorf("bench: %d sessions: %w", n, err)
		}
		d.Runs = append(d.Runs, run)
		r.log.Info("density run", "sessions", n, "cpu_ms_per_session_s", run.CPUMSPerSessionS, "machine_cpu", run.MachineCPU,
			"unanswered", run.UnansweredTurns)
		if run.MachineCPU > saturatedMachineCPU || run.UnansweredTurns > 0 {
			r.log.Info("the machine is saturated; not climbing further", "sessions", n)
			break
		}
	}
	return nil
}

// densityTurn is one candidate turn of a density run.
type densityTurn struct {
	end      time.Time // end of the candidate's voice
	answered bool
	response time.Duration
}

// densityRun measures n sessions on a fresh worker.
func densityRun(ctx context.Context, r *rig, n int, windowLen time.Duration) (DensityRun, error) {
	w, err := r.startWorker(ctx)
	if err != nil {
		return DensityRun{}, err
	}
	defer w.stop()
	idleRSS, err := processRSSBytes(w.pid())
	if err != nil {
		return DensityRun{}, err
	}

	ctx, cancel := context.WithCancel(ctx)
	var done sync.WaitGroup // the bots' goroutines
	defer func() {
		cancel()
		done.Wait()
	}()
	var (
		mu      sync.Mutex
		turns   []densityTurn
		bots    = make([]*candidatebot.Bot, n)
		greeted sync.WaitGroup
		errs    = make([]error, n)
		// stop is closed when the window ends: bots finish the turn under
		// way and leave.
		stop = make(chan struct{})
	)
	slots := make(chan struct{}, joinsAtOnce)
	greeted.Add(n)
	for i := range n {
		done.Go(func() {
			greetedOnce := sync.OnceFunc(greeted.Done)
			defer greetedOnce()
			slots <- struct{}{}
			bot, err := r.joinBot(ctx, w, fmt.Sprintf("bench-density-%d-%d-%d", n, time.Now().UnixNano(), i))
			<-slots
			if err != nil {
				errs[i] = err
				return
			}
			bots[i] = bot
			defer bot.Leave()
			if err := r.talk(ctx, bot, greetedOnce, stop, func(t densityTurn) {
				mu.Lock()
				turns = append(turns, t)
				mu.Unlock()
			}); err != nil {
				errs[i] = err
			}
		})
	}
	greeted.Wait()
	if err := errors.Join(errs...); err != nil {
		cancel()
		done.Wait()
		return DensityRun{}, err
	}
	if !sleep(ctx, warmup) {
		return DensityRun{}, ctx.Err()
	}

	r.log.Info("every room greeted; measuring", "sessions", n, "window", windowLen, "pid", w.pid())
	win, err := measure(ctx, w.pid(), windowLen, func() int64 { return int64(lateFrames(bots)) })
	if err != nil {
		return DensityRun{}, err
	}
	// Let the turns under way finish (answered or timed out), then stop.
	close(stop)
	done.Wait()

	run := DensityRun{
		Mode: ModeEndToEnd, Sessions: n, Seconds: win.seconds(),
		CPUMSPerSessionS: ms(win.cpu) / float64(n) / win.seconds(),
		RSSMBPerSession:  float64(win.rssBytes-idleRSS) / bytesPerMB / float64(n),
		RSSMB:            float64(win.rssBytes) / bytesPerMB,
		LateFrames:       int(win.lateFrames),
		MachineCPU:       win.machineCPU,
	}
	countTurns(&run, turns, win)
	return run, errors.Join(errs...)
}

// countTurns puts the turns that ended within win into run: how many,
// how many went unanswered, and the response times of the others.
func countTurns(run *DensityRun, turns []densityTurn, win window) {
	var responses []float64
	for _, t := range turns {
		if t.end.Before(win.from) || t.end.After(win.to) {
			continue
		}
		run.Turns++
		if !t.answered {
			run.UnansweredTurns++
			continue
		}
		responses = append(responses, ms(t.response))
	}
	p := Summarize(responses)
	run.ResponseMS = &p
}

// talk has bot answer the interviewer, turn after turn, once greeted
// (then calling greeted), until stop closes; each turn goes to record. It
// returns an error only for a failure while ctx lasts.
func (r *rig) talk(ctx context.Context, bot *candidatebot.Bot, greeted func(), stop <-chan struct{}, record func(densityTurn)) error {
	u, err := r.utterance(ctx, bot)
	if err != nil {
		return err
	}
	if err := waitGreeting(ctx, bot); err != nil {
		return err
	}
	greeted()
	timeout := replyTimeout + time.Duration(providerCallsPerTurn)*r.opts.ProviderLatency
	for {
		s, err := say(ctx, bot, u)
		if err != nil {
			if ctx.Err() == nil {
				return err
			}
			return nil
		}
		start, ok, err := waitReply(ctx, bot, s.end, timeout)
		if err != nil {
			if ctx.Err() == nil {
				return err
			}
			return nil
		}
		record(densityTurn{end: s.end, answered: ok, response: start.Sub(s.end)})
		select {
		case <-stop:
			return nil
		default:
		}
		if err := waitQuiet(ctx, bot); err != nil {
			return nil
		}
		if !sleep(ctx, pauseBetweenTurns) {
			return nil
		}
	}
}

// lateFrames sums the bots' late frames.
func lateFrames(bots []*candidatebot.Bot) int {
	n := 0
	for _, b := range bots {
		if b != nil {
			n += b.AgentAudio().LateFrames
		}
	}
	return n
}

// sleep waits for d; false when ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool { return retry.Sleep(ctx, d) == nil }
