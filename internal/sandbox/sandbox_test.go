package sandbox

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func init() {
	Register("echo", func(in []byte) ([]byte, error) { return bytes.ToUpper(in), nil })
	Register("fail", func(in []byte) ([]byte, error) { return nil, errors.New("bad input: " + string(in)) })
	Register("hog-memory", func([]byte) ([]byte, error) {
		// One allocation far beyond the limit, as a parser trusting a
		// length field would make.
		b := make([]byte, 1<<40)
		return b[:1], nil
	})
	Register("grow-memory", func([]byte) ([]byte, error) {
		var keep [][]byte
		for {
			keep = append(keep, bytes.Repeat([]byte{1}, 16<<20))
		}
	})
	Register("spin", func([]byte) ([]byte, error) {
		n := 0
		for {
			n++
		}
	})
	Register("hang", func([]byte) ([]byte, error) {
		time.Sleep(time.Hour)
		return nil, nil
	})
	Register("flood", func([]byte) ([]byte, error) { return bytes.Repeat([]byte("x"), 1<<20), nil })
	Register("panic", func([]byte) ([]byte, error) { panic("parser bug") })
	Register("environment", func([]byte) ([]byte, error) { return []byte(strings.Join(os.Environ(), "\n")), nil })
}

func TestMain(m *testing.M) {
	Serve()
	os.Exit(m.Run())
}

func TestRunReturnsOutput(t *testing.T) {
	var r Runner
	out, err := r.Run(context.Background(), "echo", []byte("résumé"))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "RÉSUMÉ" {
		t.Errorf("output %q, want RÉSUMÉ", out)
	}
}

func TestRunStopsHostileJobs(t *testing.T) {
	// The CPU limit is far below the wall clock's, so a loaded machine
	// still tells them apart.
	lim := Limits{MemoryBytes: 128 << 20, CPUTime: time.Second, WallTime: time.Minute, OutputBytes: 64 << 10}
	short := lim
	short.WallTime = time.Second
	tests := []struct {
		job    string
		lim    Limits
		reason Reason
		detail string
	}{
		{"hog-memory", lim, ReasonMemory, ""},
		{"grow-memory", lim, ReasonMemory, ""},
		{"spin", lim, ReasonCPU, ""},
		{"hang", short, ReasonTimeout, ""},
		{"flood", lim, ReasonOutput, ""},
		{"panic", lim, ReasonCrash, "parser bug"},
		{"fail", lim, ReasonJob, "bad input: x"},
	}
	for _, tt := range tests {
		t.Run(tt.job, func(t *testing.T) {
			r := Runner{Limits: tt.lim}
			out, err := r.Run(context.Background(), tt.job, []byte("x"))
			var je *JobError
			if !errors.As(err, &je) {
				t.Fatalf("Run = %d bytes, %v; want a *JobError", len(out), err)
			}
			if je.Reason != tt.reason || je.Job != tt.job || !strings.Contains(je.Detail, tt.detail) {
				t.Errorf("JobError %+v, want reason %q and detail containing %q", je, tt.reason, tt.detail)
			}
		})
	}
	// The parent is unharmed and the runner still works.
	var r Runner
	if out, err := r.Run(context.Background(), "echo", []byte("ok")); err != nil || string(out) != "OK" {
		t.Errorf("after hostile jobs: Run = %q, %v", out, err)
	}
}

func TestChildSeesNoParentEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	var r Runner
	out, err := r.Run(context.Background(), "environment", nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "sk-secret") {
		t.Errorf("the child inherited a secret: %q", out)
	}
}

func TestRunLimitsConcurrency(t *testing.T) {
	r := Runner{MaxConcurrent: 1}
	r.init()
	r.slot <- struct{}{} // the one slot is busy
	// A caller whose context ends gives up waiting instead of starting a
	// second child.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := r.Run(ctx, "echo", nil)
	var je *JobError
	if !errors.As(err, &je) || je.Reason != ReasonTimeout || !strings.Contains(je.Detail, "free slot") {
		t.Errorf("Run with no free slot = %v, want to give up waiting", err)
	}
	<-r.slot
	if out, err := r.Run(context.Background(), "echo", []byte("a")); err != nil || string(out) != "A" {
		t.Errorf("Run once the slot is free = %q, %v", out, err)
	}
}

func TestUnknownJob(t *testing.T) {
	var r Runner
	if _, err := r.Run(context.Background(), "no-such-job", nil); err == nil || !strings.Contains(err.Error(), "no job named") {
		t.Errorf("Run(unknown) = %v", err)
	}
}

func TestDecodeLimits(t *testing.T) {
	tests := []struct {
		in       string
		mem, cpu uint64
		bad      bool
	}{
		{in: "mem=1024,cpu=2", mem: 1024, cpu: 2},
		{in: "cpu=1,mem=5", mem: 5, cpu: 1},
		{in: "mem=1024", bad: true},
		{in: "mem=x,cpu=1", bad: true},
		{in: "mem=1,cpu=1,disk=3", bad: true},
		{in: "", bad: true},
	}
	for _, tt := range tests {
		mem, cpu, err := decodeLimits(tt.in)
		if (err != nil) != tt.bad || !tt.bad && (mem != tt.mem || cpu != tt.cpu) {
			t.Errorf("decodeLimits(%q) = %d, %d, %v", tt.in, mem, cpu, err)
		}
	}
	if got := (Limits{CPUTime: 1500 * time.Millisecond}).cpuSeconds(); got != 2 {
		t.Errorf("1.5 s of CPU rounds to %d s, want 2", got)
	}
}
