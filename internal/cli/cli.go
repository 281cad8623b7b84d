// Package cli holds what viva's command-line programs (viva and
// viva-bench) share: flag sets that print nothing by themselves, a mistake
// on the command line told in one line with a pointer to the help, usage
// errors (exit code 2) and the layout of flags in help.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// ErrUsage marks errors in how a command was called (exit code 2).
var ErrUsage = errors.New("usage")

// UsageError is an error in how a command was called.
func UsageError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}

// NewFlagSet is the flag set of command (such as "viva dev"): it prints
// nothing itself, so a mistake is told in one line (FlagError) and help
// only when asked for.
func NewFlagSet(command string) *flag.FlagSet {
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// FlagError is a usage error of one line for a mistake the flag package
// found in command's flags: what was wrong, in the --flag spelling used
// everywhere else, and where to read the flags.
func FlagError(command string, err error) error {
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag --" + strings.TrimPrefix(f, "-")
	} else if f, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		msg = "flag --" + strings.TrimPrefix(f, "-") + " needs a value"
	} else {
		msg = strings.ReplaceAll(msg, " flag -", " flag --")
	}
	return UsageError("%s: run `%s -h` for its flags", msg, command)
}

// WantsHelp reports whether a command's arguments ask for its help (-h,
// -help or --help before any "--").
func WantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help", "--h":
			return true
		}
	}
	return false
}

// PrintFlags prints a titled group of flags, each as --name VALUE and its
// usage with the default; an empty group is left out.
func PrintFlags(w io.Writer, title string, flags []*flag.Flag) {
	if len(flags) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s:\n", title)
	for _, f := range flags {
		kind, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if kind != "" {
			line += " " + strings.ToUpper(kind)
		}
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" {
			usage += fmt.Sprintf(" (default %q)", f.DefValue)
		}
		fmt.Fprintf(w, "%s\n      %s\n", line, usage)
	}
}

// AllFlags are the flags of fs in name order.
func AllFlags(fs *flag.FlagSet) []*flag.Flag {
	var out []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) { out = append(out, f) })
	return out
}

// ExitCode is an error that is only an exit code: the program it came
// from (a child such as viva-bench) has said what was wrong already.
type ExitCode int

func (c ExitCode) Error() string { return fmt.Sprintf("exit status %d", int(c)) }

// BenchWorkerEnv is the environment variable through which viva tells
// viva-bench, which it runs for "viva bench", the viva binary whose
// "agent" command is the worker the benchmarks measure.
const BenchWorkerEnv = "VIVA_BENCH_WORKER"

// Exit prints err, if any, as "command: err" on stderr and returns the
// exit code: 0 for none or a help request, 2 for a usage error, the code
// of an ExitCode (printing nothing), else 1.
func Exit(stderr io.Writer, command string, err error) int {
	var code ExitCode
	switch {
	case errors.As(err, &code):
		return int(code)
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, ErrUsage):
		fmt.Fprintf(stderr, "%s: %v\n", command, err)
		return 2
	default:
		fmt.Fprintf(stderr, "%s: %v\n", command, err)
		return 1
	}
}
