// Package terminal carries an interview over a terminal: the interviewer's
// replies are printed as they are generated and the candidate's lines are
// read from an input (a keyboard or a pipe). It is a transport of the
// conversation loop (agent.Loop) and holds no turn-taking of its own.
package terminal

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/viva-interviews/viva/agent"
)

// Prefixes of the printed lines.
const (
	// InterviewerPrefix starts every reply of the interviewer.
	InterviewerPrefix = "Interviewer: "
	// CandidatePrefix starts the echo of a piped candidate line.
	CandidatePrefix = "Candidate: "
	// Prompt invites the candidate to type, on an interactive terminal.
	Prompt = "You: "
	// MaxLineBytes bounds one candidate line; longer lines end the input.
	MaxLineBytes = 1 << 20
)

// Transport is one interview's terminal.
type Transport struct {
	out         io.Writer
	interactive bool
	inputs      chan agent.Input

	mu        sync.Mutex    // guards out and the fields below
	listening bool          // the interviewer waits for the candidate
	heard     chan struct{} // closed when listening starts
	prompted  bool          // the prompt is on screen
}

// New starts reading candidate lines from in, one turn per non-empty line,
// and prints to out. On an interactive terminal a prompt invites each
// answer; otherwise each line read is echoed after CandidatePrefix so the
// output reads as a transcript. Reading stops at the end of in, or at the
// first line read after ctx is done: cancel ctx once the interview is over.
func New(ctx context.Context, in io.Reader, out io.Writer, interactive bool) *Transport {
	t := &Transport{out: out, interactive: interactive, inputs: make(chan agent.Input), heard: make(chan struct{})}
	go t.read(ctx, in)
	return t
}

// read turns lines into candidate turns until in ends or ctx is done. A
// terminal is half-duplex: each line is handed over once the interviewer
// listens, so piped answers never cut the interviewer short however fast
// they come.
func (t *Transport) read(ctx context.Context, in io.Reader) {
	defer close(t.inputs)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), MaxLineBytes)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if !t.takeTurn(ctx, line) {
			return
		}
		select {
		case t.inputs <- agent.CandidateTurn{Text: line, Source: agent.SourceText}:
		case <-ctx.Done():
			return
		}
	}
}

// takeTurn waits until the interviewer listens, then gives the candidate
// the turn: their line is echoed (on a pipe) and the next one waits for
// the next reply. It reports false when ctx ended first.
func (t *Transport) takeTurn(ctx context.Context, line string) bool {
	for {
		t.mu.Lock()
		if t.listening {
			t.listening, t.prompted = false, false
			t.heard = make(chan struct{})
			if !t.interactive {
				fmt.Fprintf(t.out, "%s%s\n", CandidatePrefix, line)
			}
			t.mu.Unlock()
			return true
		}
		heard := t.heard
		t.mu.Unlock()
		select {
		case <-heard:
		case <-ctx.Done():
			return false
		}
	}
}

// Inputs yields the candidate's lines; it is closed when the input ends.
func (t *Transport) Inputs() <-chan agent.Input { return t.inputs }

// Listening hands the turn to the candidate: the next line is taken, and
// an interactive terminal shows the prompt.
func (t *Transport) Listening() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.listening {
		t.listening = true
		close(t.heard)
	}
	if t.interactive && !t.prompted {
		fmt.Fprint(t.out, Prompt)
		t.prompted = true
	}
}

// StageEntered is not shown: the interviewer's words say it.
func (t *Transport) StageEntered(agent.StageChange) {}

// Say prints r as it is generated, on a line of its own.
func (t *Transport) Say(ctx context.Context, r *agent.Reply) agent.Playback {
	p := &playback{t: t, reply: r, done: make(chan struct{}), cut: make(chan struct{})}
	t.mu.Lock()
	if t.listening {
		t.listening = false
		t.heard = make(chan struct{})
	}
	if t.prompted {
		fmt.Fprintln(t.out) // the interviewer speaks up unprompted
		t.prompted = false
	}
	fmt.Fprint(t.out, InterviewerPrefix)
	t.mu.Unlock()
	go p.print()
	return p
}

// playback is one reply being printed.
type playback struct {
	t     *Transport
	reply *agent.Reply
	done  chan struct{}
	cut   chan struct{}
	once  sync.Once

	// Guarded by t.mu.
	printed   strings.Builder
	startedAt time.Time // when the first text was printed

	delivery agent.Delivery // set before done closes
}

// print writes the reply's text as it comes, then ends its line.
func (p *playback) print() {
	defer close(p.done)
	t := p.t
	interrupted := false
	for d := range p.reply.Deltas() {
		select {
		case <-p.cut:
			interrupted = true
		default:
		}
		t.mu.Lock()
		if !interrupted {
			if p.startedAt.IsZero() {
				p.startedAt = time.Now()
			}
			fmt.Fprint(t.out, d)
			p.printed.WriteString(d)
		}
		t.mu.Unlock()
	}
	text, _ := p.reply.Wait()
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintln(t.out)
	shown := strings.TrimSpace(p.printed.String())
	if !interrupted {
		shown = text
	}
	p.delivery = agent.Delivery{Text: shown, Interrupted: interrupted && shown != text, StartedAt: p.startedAt, EndedAt: time.Now()}
}

func (p *playback) Done() <-chan struct{} { return p.done }

// Interrupt stops printing the reply.
func (p *playback) Interrupt() { p.once.Do(func() { close(p.cut) }) }

// Wait returns what was printed of the reply.
func (p *playback) Wait() agent.Delivery {
	<-p.done
	return p.delivery
}
