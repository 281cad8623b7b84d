package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/agent/terminal"
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
	loop, err := agent.NewLoop(agent.Setup{Blueprint: bp, Record: rec, Store: store, TimeScale: cfg.TimeScale, NewLLM: newLLM, Logger: log},
		agent.LoopOptions{Stopped: agent.Ending{Status: interviews.StatusCandidateLeft, Reason: interviews.EndedInterrupted}})
	if err != nil {
		return err
	}
	termCtx, stopTerm := context.WithCancel(ctx)
	defer stopTerm()
	rc := loop.Conductor().Recorder()
	runErr := loop.Run(ctx, terminal.New(termCtx, stdin, stdout, isTerminal(stdin)))
	final := rc.Snapshot()
	fmt.Fprintf(stdout, "\nInterview %s (%s). Record saved to %s\n", final.Status, final.EndedBy, rc.Path())
	return runErr
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
