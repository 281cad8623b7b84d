package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"github.com/viva-interviews/viva/bench"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/internal/cli"
	"github.com/viva-interviews/viva/internal/sandbox"
	"github.com/viva-interviews/viva/testrig/pgtest"
)

func TestMain(m *testing.M) {
	// The web app started in process by these tests parses résumés in
	// children of the test binary, as viva does in children of itself.
	sandbox.Serve()
	// The worker a benchmark test starts is this binary standing in for
	// viva: it runs viva's command line.
	if os.Getenv(bench.WorkerEnv) != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	// Tests of the PostgreSQL store share one server, stopped at the end.
	os.Exit(pgtest.Main(m))
}

// TestHelpOnStdout: viva alone, --help and help print the commands on
// stdout with exit 0; an unknown command goes to stderr with exit 2; a
// command's -h shows its settings grouped, with examples, on stdout.
func TestHelpOnStdout(t *testing.T) {
	for _, args := range [][]string{nil, {"--help"}, {"-h"}, {"help"}} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &out, &errOut); code != 0 || errOut.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 0 and nothing", args, code, errOut.String())
		}
		for _, c := range commands {
			if !strings.Contains(out.String(), "  "+c.name+" ") {
				t.Errorf("%v: stdout lacks command %s:\n%s", args, c.name, out.String())
			}
		}
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"interview"}, strings.NewReader(""), &out, &errOut); code != 2 || out.Len() != 0 ||
		!strings.Contains(errOut.String(), `unknown command "interview"`) {
		t.Errorf("unknown command: exit %d, stdout %q, stderr %q; want 2 and the error on stderr", code, out.String(), errOut.String())
	}

	for _, args := range [][]string{{"chat", "-h"}, {"help", "chat"}, {"chat", "--help"}} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &out, &errOut); code != 0 || errOut.Len() != 0 {
			t.Fatalf("%v: exit %d, stderr %q; want 0 and nothing", args, code, errOut.String())
		}
		help := out.String()
		order := []string{groupChatOwns + ":", "  --name ", groupEngines + ":", "  --llm ", groupGeneral + ":", "viva help settings", "Examples:", "\n  viva chat --name"}
		last := -1
		for _, want := range order {
			i := strings.Index(help, want)
			if i < last {
				t.Errorf("%v: %q missing or out of order:\n%s", args, want, help)
			}
			last = i
		}
		for _, hidden := range []string{"--livekit-url", "--endpointing-delay", "--addr", "--stt"} {
			if strings.Contains(help, hidden) {
				t.Errorf("%v: chat's help shows %s, a setting chat does not use", args, hidden)
			}
		}
	}

	out.Reset()
	errOut.Reset()
	if code := run(context.Background(), []string{"help", "settings"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("help settings: exit %d, stderr %q", code, errOut.String())
	}
	for _, s := range config.Settings() {
		name := "--" + s.Flag + " "
		if s.Secret {
			name = s.Env
		}
		if !strings.Contains(out.String(), name) && !strings.Contains(out.String(), "--"+s.Flag+"\n") {
			t.Errorf("viva help settings lacks %s", name)
		}
	}
}

// TestSettingGroupsNameSettings: every flag a help group names is a
// setting, so a renamed setting cannot silently drop out of a group.
func TestSettingGroupsNameSettings(t *testing.T) {
	known := map[string]bool{config.ConfigFlag: true}
	for _, s := range config.Settings() {
		known[s.Flag] = true
	}
	for _, g := range settingGroups {
		for _, f := range g.flags {
			if !known[f] {
				t.Errorf("group %q names --%s, which is no setting", g.title, f)
			}
		}
	}
}

// TestUseColor: colour only on a terminal and without NO_COLOR.
func TestUseColor(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	if useColor(&bytes.Buffer{}, env("")) {
		t.Error("colour on a buffer")
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		if !useColor(tty, env("")) || useColor(tty, env("1")) {
			t.Error("a terminal is coloured unless NO_COLOR is set")
		}
	}
}

// TestFlagMistakesTakeOneLine: an unknown flag, a flag without its value
// or a bench flag given wrong is told in one line that says what was
// wrong and where the flags are listed, with exit code 2, and no usage.
func TestFlagMistakesTakeOneLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"dev", "--nam", "x"}, "viva dev: usage: unknown flag --nam: run `viva dev -h` for its flags"},
		{[]string{"web", "--addr"}, "viva web: usage: flag --addr needs a value: run `viva web -h` for its flags"},
		{[]string{"users", "add", "--llm", "openai"}, "unknown flag --llm: run `viva users add -h` for its flags"},
		{[]string{"bench", "latency", "--turn", "3"}, "unknown flag --turn: run `viva bench latency -h` for its flags"},
		{[]string{"bench", "density", "--window", "soon"}, `invalid value "soon" for flag --window`},
	} {
		var stdout, stderr strings.Builder
		code := runOrBench(tc.args, &stdout, &stderr)
		got := stderr.String()
		if code != 2 || !strings.Contains(got, tc.want) || strings.Count(got, "\n") != 1 || stdout.Len() > 0 {
			t.Errorf("viva %s: exit %d, stderr %q, stdout %q; want exit 2 and one line with %q", strings.Join(tc.args, " "), code, got, stdout.String(), tc.want)
		}
	}
}

// TestHelpListsWhatTheCommandReads: a command that reads few settings
// lists only those; viva bench's flags read like every other command's.
func TestHelpListsWhatTheCommandReads(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		want, not []string
	}{
		{[]string{"users", "add", "-h"}, []string{"--email", "--data-dir", "--users-file"}, []string{"--llm", "--openai-model", "--livekit-url", "--time-scale", "OPENAI_API_KEY"}},
		{[]string{"export", "-h"}, []string{"--out", "--database-url", "--recordings-dir"}, []string{"--llm", "--stt", "--addr"}},
		{[]string{"bench", "latency", "-h"}, []string{"--turns", "--rooms", "--verbose"}, []string{"\n  -turns"}},
		{[]string{"dev", "-h"}, []string{"--livekit-port", "VIVA_LIVEKIT_PORT"}, nil},
		{[]string{"agent", "-h"}, []string{"--max-sessions", "--stt", "--endpointing-delay"}, []string{"--addr", "--brand-name", "--livekit-port", "--users-file"}},
		{[]string{"web", "-h"}, []string{"--addr", "--brand-name", "--openai-model"}, []string{"--stt", "--max-sessions", "--endpointing-delay", "--livekit-port"}},
	} {
		var stdout, stderr strings.Builder
		if code := runOrBench(tc.args, &stdout, &stderr); code != 0 {
			t.Errorf("viva %s: exit %d", strings.Join(tc.args, " "), code)
		}
		for _, w := range tc.want {
			if !strings.Contains(stdout.String(), w) {
				t.Errorf("viva %s does not list %s:\n%s", strings.Join(tc.args, " "), w, stdout.String())
			}
		}
		for _, n := range tc.not {
			if strings.Contains(stdout.String(), n) {
				t.Errorf("viva %s lists %q, which it does not read:\n%s", strings.Join(tc.args, " "), n, stdout.String())
			}
		}
	}
}

// runOrBench runs viva's command line, or for "bench" the benchmarks' as
// viva-bench does (help on stdout), in this process.
func runOrBench(args []string, stdout, stderr io.Writer) int {
	if args[0] != "bench" {
		return run(context.Background(), args, strings.NewReader(""), stdout, stderr)
	}
	helpOut := stderr
	if cli.WantsHelp(args) {
		helpOut = stdout
	}
	return cli.Exit(stderr, "viva bench", bench.Main(context.Background(), args[1:], "viva", stdout, helpOut))
}
