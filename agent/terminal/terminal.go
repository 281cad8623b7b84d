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

// ANSI styles of the printed lines, used only when Options.Color is set.
const (
	styleInterviewer = "\x1b[1;36m" // bold cyan
	styleStage       = "\x1b[2m"    // dim
	stylePrompt      = "\x1b[1;32m" // bold green
	styleReset       = "\x1b[0m"
)

// Options configure a Transport.
type Options struct {
	// Interactive is true when the candidate types at a terminal: a prompt
	// invites each answer. Otherwise each line read is echoed so the
	// output reads as a transcript.
	Interactive bool
	// Color styles the prefixes and the stage lines with ANSI codes: set
	// it only when the output is a terminal and NO_COLOR is unset.
	Color bool
	// Now tells the time left in a stage; nil means time.Now.
	Now func() time.Time
}

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
	color       bool
	now         func() time.Time
	inputs      chan agent.Input

	mu        sync.Mutex    // guards out and the fields below
	listening bool          // the interviewer waits for the candidate
	heard     chan struct{} // closed when listening starts
	prompted  bool          // the prompt is on screen
	printing  int           // replies being printed
	pending   []string      // stage lines waiting for a reply's end
}

// New starts reading candidate lines from in, one turn per non-empty line,
// and prints to out as opts say. Reading stops at the end of in, or at the
// first line read after ctx is done: cancel ctx once the interview is over.
func New(ctx context.Context, in io.Reader, out io.Writer, opts Options) *Transport {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	t := &Transport{out: out, interactive: opts.Interactive, color: opts.Color, now: now,
		inputs: make(chan agent.Input), heard: make(chan struct{})}
	go t.read(ctx, in)
	return t
}

// styled wraps text in an ANSI style when colour is on.
func (t *Transport) styled(style, text string) string {
	if !t.color {
		return text
	}
	return style + text + styleReset
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
	t.prompt()
}

// prompt shows the prompt when the candidate has the turn at an
// interactive terminal and it is not on screen yet. t.mu is held.
func (t *Transport) prompt() {
	if t.interactive && t.listening && !t.prompted {
		fmt.Fprint(t.out, t.styled(stylePrompt, Prompt))
		t.prompted = true
	}
}

// clearPrompt ends the line of a prompt on screen so that what follows
// starts a line of its own. t.mu is held.
func (t *Transport) clearPrompt() {
	if t.prompted {
		fmt.Fprintln(t.out)
		t.prompted = false
	}
}

// StageEntered shows the stage on a line of its own, with the time left
// in it: at once, or after the reply being printed ends.
func (t *Transport) StageEntered(c agent.StageChange) {
	line := StageLine(c, t.now())
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.printing > 0 {
		t.pending = append(t.pending, line)
		return
	}
	t.clearPrompt()
	fmt.Fprintln(t.out, t.styled(styleStage, line))
	t.prompt()
}

// StageLine is the line that announces a stage, such as
// "— Your experience · 3:40 left —"; the time is left out when the stage
// has no deadline.
func StageLine(c agent.StageChange, now time.Time) string {
	title := c.Title
	if title == "" {
		title = c.Name
	}
	if c.Deadline.IsZero() {
		return "— " + title + " —"
	}
	left := max(c.Deadline.Sub(now), 0).Round(time.Second)
	return fmt.Sprintf("— %s · %d:%02d left —", title, int(left/time.Minute), int(left%time.Minute/time.Second))
}

// LogWriter returns a writer for log lines that keeps them off the
// conversation: a line written while the prompt is on screen goes below
// it, and the prompt is shown again after it. Each Write must be whole
// lines, as log handlers write them.
func (t *Transport) LogWriter(w io.Writer) io.Writer { return logWriter{t: t, w: w} }

type logWriter struct {
	t *Transport
	w io.Writer
}

func (l logWriter) Write(p []byte) (int, error) {
	t := l.t
	t.mu.Lock()
	defer t.mu.Unlock()
	t.clearPrompt()
	n, err := l.w.Write(p)
	t.prompt()
	return n, err
}

// Say prints r as it is generated, on a line of its own.
func (t *Transport) Say(ctx context.Context, r *agent.Reply) agent.Playback {
	p := &playback{t: t, reply: r, done: make(chan struct{}), cut: make(chan struct{})}
	t.mu.Lock()
	if t.listening {
		t.listening = false
		t.heard = make(chan struct{})
	}
	t.clearPrompt() // the interviewer speaks up unprompted
	t.printing++
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
				// A reply that says nothing (the interviewer waits) prints
				// no line.
				p.startedAt = time.Now()
				fmt.Fprint(t.out, t.styled(styleInterviewer, InterviewerPrefix))
			}
			fmt.Fprint(t.out, d)
			p.printed.WriteString(d)
		}
		t.mu.Unlock()
	}
	text, _ := p.reply.Wait()
	t.mu.Lock()
	defer t.mu.Unlock()
	if !p.startedAt.IsZero() {
		fmt.Fprintln(t.out)
	}
	t.printing--
	if t.printing == 0 {
		for _, line := range t.pending {
			fmt.Fprintln(t.out, t.styled(styleStage, line))
		}
		t.pending = nil
	}
	// What was printed, a filler said while the model was slow included
	// (the conductor keeps it apart from the reply).
	shown := strings.TrimSpace(p.printed.String())
	if interrupted && shown == strings.TrimSpace(text) {
		interrupted = false
	}
	p.delivery = agent.Delivery{Text: shown, Interrupted: interrupted, StartedAt: p.startedAt, EndedAt: time.Now()}
}

func (p *playback) Done() <-chan struct{} { return p.done }

// Interrupt stops printing the reply.
func (p *playback) Interrupt() { p.once.Do(func() { close(p.cut) }) }

// Wait returns what was printed of the reply.
func (p *playback) Wait() agent.Delivery {
	<-p.done
	return p.delivery
}
