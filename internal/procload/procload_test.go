package procload

import (
	"errors"
	"math"
	"testing"
	"time"
)

// fakeProcess is a process whose CPU time and clock the test moves.
type fakeProcess struct {
	now      time.Time
	cpu      time.Duration
	sessions int
	fail     bool
}

func (p *fakeProcess) read() (time.Duration, error) {
	if p.fail {
		return 0, errors.New("no rusage")
	}
	return p.cpu, nil
}

// run advances the clock by d during which the process used share of its
// cores.
func (p *fakeProcess) run(d time.Duration, share float64, cores float64) {
	p.now = p.now.Add(d)
	p.cpu += time.Duration(float64(d) * share * cores)
}

func newMeter(t *testing.T, p *fakeProcess, max int) *Meter {
	t.Helper()
	m, err := New(Options{Sessions: func() int { return p.sessions }, MaxSessions: max, CPU: p.read, Cores: 2,
		Smoothing: 10 * time.Second, MinSample: time.Second, Now: func() time.Time { return p.now }})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func near(a, b float64) bool { return math.Abs(a-b) < 0.01 }

func TestLoadIsTheLargerOfCPUAndSessions(t *testing.T) {
	tests := []struct {
		name     string
		share    float64
		sessions int
		want     float64
	}{
		{name: "idle", want: 0},
		{name: "CPU bound", share: 0.6, sessions: 1, want: 0.6},
		{name: "session bound", share: 0.1, sessions: 8, want: 0.8},
		{name: "full", share: 0.2, sessions: 12, want: 1},
		{name: "more CPU than the cores is one", share: 1.5, want: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &fakeProcess{now: time.Unix(1000, 0), cpu: time.Hour, sessions: tc.sessions}
			m := newMeter(t, p, 10)
			p.run(5*time.Second, tc.share, 2)
			if got := float64(m.Load()); !near(got, tc.want) {
				t.Errorf("Load = %.3f, want %.3f", got, tc.want)
			}
		})
	}
}

func TestCPUShareIsSmoothed(t *testing.T) {
	p := &fakeProcess{now: time.Unix(1000, 0)}
	m := newMeter(t, p, 10)
	// A steady quarter of the cores.
	for range 30 {
		p.run(time.Second, 0.25, 2)
		m.CPUShare()
	}
	if got := m.CPUShare(); !near(got, 0.25) {
		t.Fatalf("steady share = %.3f, want 0.25", got)
	}
	// A one-second burst at full CPU moves the share only part of the way.
	p.run(time.Second, 1, 2)
	burst := m.CPUShare()
	if burst <= 0.25 || burst > 0.4 {
		t.Errorf("after a 1 s burst share = %.3f, want a little above 0.25", burst)
	}
	// Reads closer together than MinSample return the last figure.
	p.run(100*time.Millisecond, 1, 2)
	if got := m.CPUShare(); got != burst {
		t.Errorf("read 100 ms later = %.3f, want the last figure %.3f", got, burst)
	}
	// Staying at full CPU for a while brings it close to 1.
	for range 60 {
		p.run(time.Second, 1, 2)
		m.CPUShare()
	}
	if got := m.CPUShare(); got < 0.95 {
		t.Errorf("after a minute at full CPU share = %.3f, want near 1", got)
	}
}

func TestFailedReadKeepsTheLastFigure(t *testing.T) {
	p := &fakeProcess{now: time.Unix(1000, 0)}
	m := newMeter(t, p, 10)
	p.run(2*time.Second, 0.5, 2)
	before := m.CPUShare()
	p.fail = true
	p.run(2*time.Second, 1, 2)
	if got := m.CPUShare(); got != before {
		t.Errorf("share after a failed read = %.3f, want %.3f", got, before)
	}
}

func TestProcessCPUMoves(t *testing.T) {
	a, err := ProcessCPU()
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for i := range 20_000_000 {
		x += i % 7
	}
	b, err := ProcessCPU()
	if err != nil {
		t.Fatal(err)
	}
	if b <= a || x == 0 {
		t.Errorf("process CPU went from %s to %s across a busy loop", a, b)
	}
}

func TestNewValidates(t *testing.T) {
	if _, err := New(Options{MaxSessions: 1}); err == nil {
		t.Error("New without a session count succeeded")
	}
	if _, err := New(Options{Sessions: func() int { return 0 }}); err == nil {
		t.Error("New with max sessions 0 succeeded")
	}
}
