// Package sandbox runs work on untrusted input in a child process of the
// running program under resource limits — address space, CPU time and wall
// clock — so a hostile file can at worst end the child, never the server.
//
// A job is a named function from input bytes to output bytes, registered
// at init time with Register. The program calls Serve first thing in main
// (and in TestMain of a test binary that runs jobs): in a child started by
// Run, Serve applies the limits, runs the job and exits; in the parent it
// returns at once and marks the program as able to start children.
//
//	func init() { sandbox.Register("pdf-text", pdfText) }
//
//	func main() {
//		sandbox.Serve()
//		…
//		out, err := runner.Run(ctx, "pdf-text", data)
//	}
//
// Go cannot recover from an allocation the system refuses ("fatal error:
// runtime: out of memory") and cannot stop a parser looping without
// reading, so neither recover nor a context is a defence against a file
// built to do either; a separate process is.
package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Environment variables that turn a start of the program into a child.
const (
	envJob    = "VIVA_SANDBOX_JOB"
	envLimits = "VIVA_SANDBOX_LIMITS"
)

// Exit codes of a child.
const (
	exitOK       = 0
	exitJobError = 1
	exitSetup    = 3
)

// Func is a job: it turns input into output. An error ends the child with
// the error's text as the reason; the parent sees a *JobError.
type Func func(input []byte) ([]byte, error)

var (
	jobsMu sync.Mutex
	jobs   = map[string]Func{}
	served atomic.Bool
)

// Register makes a job runnable by name. Call it from an init function, so
// the child (the same program, started again) knows the job before Serve
// runs. Registering a name twice panics.
func Register(name string, f Func) {
	jobsMu.Lock()
	defer jobsMu.Unlock()
	if _, dup := jobs[name]; dup {
		panic("sandbox: job " + name + " registered twice")
	}
	jobs[name] = f
}

func job(name string) Func {
	jobsMu.Lock()
	defer jobsMu.Unlock()
	return jobs[name]
}

// Serve runs the job a child was started for and exits; in any other
// process it returns at once, after which Run may start children. Call it
// at the very start of main, before flags, logging or goroutines.
func Serve() {
	name, ok := os.LookupEnv(envJob)
	if !ok {
		served.Store(true)
		return
	}
	os.Exit(child(name, os.Getenv(envLimits), os.Stdin, os.Stdout, os.Stderr))
}

// Available reports whether this program called Serve, so that Run can
// start children of it.
func Available() bool { return served.Load() }

// Limits bound one child. A zero field means the default.
type Limits struct {
	// MemoryBytes is how much address space the child may add to what it
	// holds once started. Default 512 MiB.
	MemoryBytes uint64
	// CPUTime is the processor time the child may use before the kernel
	// kills it. Default 10 s. Rounded up to whole seconds.
	CPUTime time.Duration
	// WallTime is how long the child may run, from its start, before it is
	// killed. Default 20 s.
	WallTime time.Duration
	// OutputBytes bounds what the child may write as its result. Default
	// 4 MiB.
	OutputBytes int
}

// Defaults of Limits.
const (
	DefaultMemoryBytes = 512 << 20
	DefaultCPUTime     = 10 * time.Second
	DefaultWallTime    = 20 * time.Second
	DefaultOutputBytes = 4 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MemoryBytes == 0 {
		l.MemoryBytes = DefaultMemoryBytes
	}
	if l.CPUTime <= 0 {
		l.CPUTime = DefaultCPUTime
	}
	if l.WallTime <= 0 {
		l.WallTime = DefaultWallTime
	}
	if l.OutputBytes <= 0 {
		l.OutputBytes = DefaultOutputBytes
	}
	return l
}

// cpuSeconds is CPUTime in whole seconds, at least one.
func (l Limits) cpuSeconds() uint64 {
	return max(uint64((l.CPUTime+time.Second-1)/time.Second), 1)
}

func (l Limits) encode() string {
	return fmt.Sprintf("mem=%d,cpu=%d", l.MemoryBytes, l.cpuSeconds())
}

func decodeLimits(s string) (mem, cpu uint64, err error) {
	for _, kv := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(kv, "=")
		n, perr := strconv.ParseUint(v, 10, 64)
		if perr != nil {
			return 0, 0, fmt.Errorf("limit %q: %w", kv, perr)
		}
		switch k {
		case "mem":
			mem = n
		case "cpu":
			cpu = n
		default:
			return 0, 0, fmt.Errorf("unknown limit %q", k)
		}
	}
	if mem == 0 || cpu == 0 {
		return 0, 0, fmt.Errorf("limits %q: mem and cpu are required", s)
	}
	return mem, cpu, nil
}

// Reason says why a child did not finish its job.
type Reason string

// Reasons a child fails.
const (
	// ReasonMemory: the child needed more memory than MemoryBytes.
	ReasonMemory Reason = "memory limit"
	// ReasonCPU: the child used up its CPUTime.
	ReasonCPU Reason = "cpu limit"
	// ReasonTimeout: the child ran past WallTime or the caller's context.
	ReasonTimeout Reason = "time limit"
	// ReasonOutput: the child wrote more than OutputBytes.
	ReasonOutput Reason = "output limit"
	// ReasonJob: the job returned an error (Detail holds its text).
	ReasonJob Reason = "job error"
	// ReasonCrash: the child ended any other way (a panic, a signal).
	ReasonCrash Reason = "crashed"
)

// JobError is a job that did not produce output.
type JobError struct {
	// Job is the job's name.
	Job string
	// Reason is why it failed.
	Reason Reason
	// Detail is the end of what the child wrote to its error output, or
	// the job's error text; for logs, never for users.
	Detail string
}

func (e *JobError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("sandbox: %s: %s", e.Job, e.Reason)
	}
	return fmt.Sprintf("sandbox: %s: %s: %s", e.Job, e.Reason, e.Detail)
}

// ErrUnavailable is returned by Run when the program never called Serve:
// a child of it would not know it is one.
var ErrUnavailable = errors.New("sandbox: this program does not call sandbox.Serve at the start of main, so it cannot run jobs in a child process")

// Runner starts children. Its zero value runs with the default limits and
// at most as many children at once as the machine has processors.
type Runner struct {
	// Limits bound each child.
	Limits Limits
	// MaxConcurrent bounds the children running at once; callers beyond
	// it wait (or give up when their context ends). Default GOMAXPROCS.
	MaxConcurrent int

	once sync.Once
	slot chan struct{}
}

func (r *Runner) init() {
	r.once.Do(func() {
		n := r.MaxConcurrent
		if n <= 0 {
			n = runtime.GOMAXPROCS(0)
		}
		r.slot = make(chan struct{}, n)
	})
}

// Run runs the named job on input in a child process and returns its
// output. It waits for a free slot first. Failures of the child are
// *JobError values; ctx ending first is reported as ReasonTimeout.
func (r *Runner) Run(ctx context.Context, name string, input []byte) ([]byte, error) {
	if !Available() {
		return nil, ErrUnavailable
	}
	if job(name) == nil {
		return nil, fmt.Errorf("sandbox: no job named %q is registered", name)
	}
	r.init()
	select {
	case r.slot <- struct{}{}:
		defer func() { <-r.slot }()
	case <-ctx.Done():
		return nil, &JobError{Job: name, Reason: ReasonTimeout, Detail: "waiting for a free slot: " + ctx.Err().Error()}
	}
	lim := r.Limits.withDefaults()
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("sandbox: find this program: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, lim.WallTime)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	// The child gets no environment of the parent's: no keys, no secrets.
	cmd.Env = []string{envJob + "=" + name, envLimits + "=" + lim.encode()}
	cmd.Dir = os.TempDir()
	cmd.Stdin = bytes.NewReader(input)
	out := &cappedBuffer{max: lim.OutputBytes}
	errOut := &cappedBuffer{max: 16 << 10} // a fatal error's first lines say why
	cmd.Stdout, cmd.Stderr = out, errOut
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	detail := strings.TrimSpace(errOut.buf.String())
	switch {
	case out.overflow:
		return nil, &JobError{Job: name, Reason: ReasonOutput}
	case ctx.Err() != nil:
		return nil, &JobError{Job: name, Reason: ReasonTimeout, Detail: ctx.Err().Error()}
	case err == nil:
		return out.buf.Bytes(), nil
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return nil, fmt.Errorf("sandbox: start %s: %w", name, err)
	}
	return nil, &JobError{Job: name, Reason: exitReason(exit, detail), Detail: firstLines(detail, 3)}
}

// exitReason tells why a child ended without success.
func exitReason(exit *exec.ExitError, stderr string) Reason {
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		switch ws.Signal() {
		case syscall.SIGKILL, syscall.SIGXCPU:
			// Only the CPU limit kills a child the parent did not (the
			// wall clock is checked before this).
			return ReasonCPU
		}
		return ReasonCrash
	}
	switch {
	case exit.ExitCode() == exitJobError:
		return ReasonJob
	case strings.Contains(stderr, "out of memory"),
		strings.Contains(stderr, "cannot allocate memory"),
		// The race detector's runtime words it differently.
		strings.Contains(stderr, "failed to allocate"),
		strings.Contains(stderr, "address space collisions"):
		return ReasonMemory
	}
	return ReasonCrash
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " | ")
}

// cappedBuffer keeps the first max bytes written to it and records
// whether more came. It has no ReadFrom, so os/exec copies through Write.
type cappedBuffer struct {
	buf      bytes.Buffer
	max      int
	overflow bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); len(p) > room {
		b.buf.Write(p[:max(room, 0)])
		b.overflow = true
		return len(p), nil // keep draining, so the child is not blocked
	}
	return b.buf.Write(p)
}

// child is the child's side: limits first, then the job.
func child(name, limits string, in io.Reader, out, errOut io.Writer) int {
	f := job(name)
	if f == nil {
		fmt.Fprintf(errOut, "sandbox: no job named %q in this program\n", name)
		return exitSetup
	}
	mem, cpu, err := decodeLimits(limits)
	if err != nil {
		fmt.Fprintf(errOut, "sandbox: %v\n", err)
		return exitSetup
	}
	if err := applyLimits(mem, cpu); err != nil {
		fmt.Fprintf(errOut, "sandbox: %v\n", err)
		return exitSetup
	}
	input, err := io.ReadAll(in)
	if err != nil {
		fmt.Fprintf(errOut, "sandbox: read input: %v\n", err)
		return exitSetup
	}
	output, err := f(input)
	if err != nil {
		fmt.Fprintln(errOut, err)
		return exitJobError
	}
	if _, err := out.Write(output); err != nil {
		fmt.Fprintf(errOut, "sandbox: write output: %v\n", err)
		return exitSetup
	}
	return exitOK
}

// applyLimits bounds this process: its address space to what it holds now
// plus memBytes, its CPU time to cpuSeconds (the kernel kills it there),
// and tells the garbage collector to work within memBytes.
func applyLimits(memBytes, cpuSeconds uint64) error {
	base, err := addressSpace()
	if err != nil {
		return err
	}
	as := syscall.Rlimit{Cur: base + memBytes, Max: base + memBytes}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &as); err != nil {
		return fmt.Errorf("address space limit: %w", err)
	}
	c := syscall.Rlimit{Cur: cpuSeconds, Max: cpuSeconds}
	if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &c); err != nil {
		return fmt.Errorf("cpu limit: %w", err)
	}
	debug.SetMemoryLimit(int64(memBytes / 2))
	return nil
}

// addressSpace returns this process's virtual memory size (VmSize).
func addressSpace() (uint64, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("read own memory size: %w", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmSize:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("parse VmSize %q: %w", v, err)
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("no VmSize in /proc/self/status")
}
