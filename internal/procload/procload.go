// Package procload measures how loaded one worker process is: the CPU its
// own process uses, as a share of the cores it may use, smoothed, and the
// interviews it holds over the most it takes. A worker reports the larger of
// the two to LiveKit and declines new jobs above a threshold, so LiveKit
// sends them to another worker.
//
// Only the process's own CPU counts, never the whole machine's: a busy
// neighbour must not stop dispatch to an idle worker.
package procload

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// Defaults of Options.
const (
	// DefaultSmoothing is the time constant of the CPU share's moving
	// average: a burst shorter than this moves it only part of the way.
	DefaultSmoothing = 10 * time.Second
	// DefaultMinSample is the shortest interval between two CPU samples;
	// reads closer together return the last smoothed value.
	DefaultMinSample = time.Second
)

// CPUReader returns the CPU time (user and system) the process has used
// since it started.
type CPUReader func() (time.Duration, error)

// ProcessCPU reads the process's own CPU time with getrusage(RUSAGE_SELF).
func ProcessCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("procload: getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// Options configure a Meter. Sessions and MaxSessions are required.
type Options struct {
	// Sessions returns how many interviews the worker holds now.
	Sessions func() int
	// MaxSessions is the most the worker holds at once, at least 1.
	MaxSessions int
	// CPU reads the process's CPU time (default ProcessCPU).
	CPU CPUReader
	// Cores is how many cores the process may use (default
	// runtime.GOMAXPROCS(0), which follows the container's CPU limit).
	Cores float64
	// Smoothing is the time constant of the CPU share's moving average
	// (default DefaultSmoothing).
	Smoothing time.Duration
	// MinSample is the shortest interval between CPU samples (default
	// DefaultMinSample).
	MinSample time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Meter computes a worker's load. Its methods are safe for concurrent use
// and never block: each read takes a CPU sample when MinSample has passed
// since the last one.
type Meter struct {
	opts Options

	mu      sync.Mutex
	lastAt  time.Time
	lastCPU time.Duration
	share   float64 // smoothed CPU share, 0 to 1
	sampled bool    // share holds at least one interval
}

// New returns a meter that starts measuring now.
func New(opts Options) (*Meter, error) {
	if opts.Sessions == nil || opts.MaxSessions < 1 {
		return nil, fmt.Errorf("procload: a session count and max sessions of at least 1 are required (got %d)", opts.MaxSessions)
	}
	if opts.CPU == nil {
		opts.CPU = ProcessCPU
	}
	if opts.Cores <= 0 {
		opts.Cores = float64(runtime.GOMAXPROCS(0))
	}
	if opts.Smoothing <= 0 {
		opts.Smoothing = DefaultSmoothing
	}
	if opts.MinSample <= 0 {
		opts.MinSample = DefaultMinSample
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m := &Meter{opts: opts, lastAt: opts.Now()}
	cpu, err := opts.CPU()
	if err != nil {
		return nil, err
	}
	m.lastCPU = cpu
	return m, nil
}

// Load is the worker's load in [0, 1]: the larger of its CPU share and its
// sessions over MaxSessions.
func (m *Meter) Load() float32 {
	sessions := float64(m.opts.Sessions()) / float64(m.opts.MaxSessions)
	return float32(min(max(m.CPUShare(), sessions, 0), 1))
}

// CPUShare is the process's CPU time per second of wall time over the
// cores it may use, smoothed over Options.Smoothing, in [0, 1].
func (m *Meter) CPUShare() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.opts.Now()
	dt := now.Sub(m.lastAt)
	if dt < m.opts.MinSample {
		return m.share
	}
	cpu, err := m.opts.CPU()
	if err != nil {
		// Keep the last figure: a failed read is no reason to take jobs
		// the worker could not hold, nor to refuse every job.
		return m.share
	}
	used := cpu - m.lastCPU
	m.lastAt, m.lastCPU = now, cpu
	share := min(max(used.Seconds()/dt.Seconds()/m.opts.Cores, 0), 1)
	if !m.sampled {
		m.share, m.sampled = share, true
		return m.share
	}
	// An exponential moving average whose weight follows the interval, so
	// irregular reads smooth over the same time constant.
	alpha := 1 - math.Exp(-dt.Seconds()/m.opts.Smoothing.Seconds())
	m.share += alpha * (share - m.share)
	return m.share
}
