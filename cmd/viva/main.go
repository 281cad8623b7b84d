// Command viva runs structured voice interviews on LiveKit.
//
//	viva agent   the interviewer worker: joins LiveKit rooms it is dispatched to
//	viva web     the web app: registration, room page, reviewer pages
//	viva dev     everything on one machine (LiveKit dev server, worker, web app)
//	viva chat    an interview in the terminal (no audio, no LiveKit)
//	viva users   the web app's accounts: add, list, remove, token
//	viva blueprints  the installed interview blueprints and role templates
//
// Every command takes the settings of package config as flags, environment
// variables (VIVA_*, LIVEKIT_*, OPENAI_*, DEEPGRAM_API_KEY) or a YAML file
// (--config). Run "viva COMMAND -h" for a command's flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/internal/sandbox"
)

// command is one subcommand of viva.
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

var commands = []command{
	{"agent", "run the interviewer worker against a LiveKit server (LIVEKIT_URL)", runAgent},
	{"web", "serve the web app: registration, the candidate's room page, reviewer pages", runWeb},
	{"dev", "run everything on this machine: LiveKit (dev mode), a worker and the web app", runDev},
	{"chat", "hold an interview in the terminal (offline when no OPENAI_API_KEY is set)", runChat},
	{"users", "manage who signs in to the web app: add, list, remove, token", runUsers},
	{"blueprints", "list the installed interview blueprints and role templates", runBlueprints},
}

func main() {
	// A start of viva as a sandboxed child (a résumé parse) runs its job
	// and exits here.
	sandbox.Serve()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes one command and returns the process exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(ctx, args[1:], stdin, stdout, stderr)
			switch {
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, errUsage):
				fmt.Fprintf(stderr, "viva %s: %v\n", c.name, err)
				return 2
			default:
				fmt.Fprintf(stderr, "viva %s: %v\n", c.name, err)
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "viva: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

// errUsage marks errors in how a command was called (exit code 2).
var errUsage = errors.New("usage")

func usageError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "viva runs structured voice interviews on LiveKit.\n\nUsage: viva COMMAND [flags]\n\nCommands:")
	width := 0
	for _, c := range commands {
		width = max(width, len(c.name))
	}
	for _, c := range commands {
		fmt.Fprintf(w, "  %-*s %s\n", width, c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'viva COMMAND -h' for the flags of a command.")
}

// loadConfig parses a command's flags (flags registers the command's own
// before the settings') and the configuration from flags, environment and
// file. A bad value is a usage error naming the setting.
func loadConfig(name string, args []string, stderr io.Writer, flags func(*flag.FlagSet)) (*config.Config, error) {
	fs := flag.NewFlagSet("viva "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if flags != nil {
		flags(fs)
	}
	cfg, err := config.Load(fs, args, os.Getenv)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, usageError("%v", err)
	}
	return cfg, nil
}

// newLogger returns the process logger: text on stderr at the given level.
func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}
