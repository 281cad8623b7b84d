package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
)

// runChat holds an interview in the terminal: the interviewer's lines are
// printed, the candidate's are read from stdin (so answers can be piped),
// and the record is saved after every turn.
func runChat(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cand candidate
	cfg, err := loadConfig("chat", args, stderr, func(fs *flag.FlagSet) { cand = candidateFlags(fs) })
	if err != nil {
		return err
	}
	rec, bp, err := cand.record()
	if err != nil {
		return usageError("%v", err)
	}
	log := newLogger(stderr, cfg.LogLevel)
	store, err := interviews.Open(cfg.DataDir)
	if err != nil {
		return fmt.Errorf("opening the data directory: %w", err)
	}
	newLLM, llmName, err := llmFactory(cfg, log)
	if err != nil {
		return err
	}
	if llmName != "scripted" {
		if err := checkKeys(ctx, cfg); err != nil {
			return err
		}
	}
	rec.Engines = &interviews.Engines{LLM: llmName}
	if err := store.Create(rec); err != nil {
		return fmt.Errorf("creating the interview record: %w", err)
	}
	log = log.With("interview_id", rec.ID)
	c, err := agent.NewInterview(agent.Setup{Blueprint: bp, Record: rec, Store: store, TimeScale: cfg.TimeScale, NewLLM: newLLM, Logger: log})
	if err != nil {
		return err
	}
	path := c.Recorder().Path()

	interactive := isTerminal(stdin)
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdin)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	forced := make(chan fsm.Transition, 8)
	timerCtx, stopTimer := context.WithCancel(ctx)
	defer stopTimer()
	go c.RunTimer(timerCtx, func(tr fsm.Transition) {
		select {
		case forced <- tr:
		default:
		}
	})

	say := func(r *agent.Reply) error {
		fmt.Fprint(stdout, "Interviewer: ")
		for d := range r.Deltas() {
			fmt.Fprint(stdout, d)
		}
		fmt.Fprintln(stdout)
		text, err := r.Wait()
		if err != nil && !errors.Is(err, context.Canceled) {
			c.Finish(interviews.StatusFailed, interviews.EndedByProviderError("llm"))
			return fmt.Errorf("the interviewer model failed: %w", err)
		}
		r.Delivered(agent.Delivery{Text: text})
		if interactive && !c.Recorder().Finished() {
			fmt.Fprint(stdout, "You: ")
		}
		return nil
	}

	if err := say(c.Greet(ctx)); err != nil {
		return err
	}
loop:
	for {
		select {
		case <-c.Ended():
			break loop
		case <-ctx.Done():
			c.Finish(interviews.StatusCandidateLeft, "interrupted")
			break loop
		case tr := <-forced:
			if c.Machine().Done() {
				continue
			}
			if interactive {
				fmt.Fprintln(stdout)
			}
			log.Debug("forced transition", "to", tr.To)
			if r, ok := c.Interject(ctx); ok {
				if err := say(r); err != nil {
					return err
				}
			}
		case line, ok := <-lines:
			if !ok {
				c.Finish(interviews.StatusCandidateLeft, interviews.EndedEndOfInput)
				break loop
			}
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			if !interactive {
				fmt.Fprintf(stdout, "Candidate: %s\n", line)
			}
			if err := say(c.Respond(ctx, agent.CandidateTurn{Text: line, Source: "text"})); err != nil {
				return err
			}
		}
	}
	final := c.Recorder().Snapshot()
	fmt.Fprintf(stdout, "\nInterview %s (%s). Record saved to %s\n", final.Status, final.EndedBy, path)
	return nil
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
