// Command viva runs structured voice interviews on LiveKit.
//
//	viva agent   the interviewer worker: joins LiveKit rooms it is dispatched to
//	viva web     the web app: registration, room page, reviewer pages
//	viva dev     everything on one machine (LiveKit dev server, worker, web app)
//	viva chat    an interview in the terminal (no audio, no LiveKit)
//	viva users   the web app's accounts: add, list, passwd, role, remove, token, tokens, revoke-token
//	viva invitations  a candidate's link: revoke, reissue
//	viva blueprints  the installed interview blueprints and role templates
//	viva bench   benchmarks: turn latency and the cost of each interview
//	viva export  the stored records as JSON files, from PostgreSQL or files;
//	             with --email, everything held about one candidate
//	viva erase   every interview of one candidate, with its recordings and keys
//
// Every command takes the settings of package config as flags, environment
// variables (VIVA_*, LIVEKIT_*, OPENAI_*, DEEPGRAM_API_KEY) or a YAML file
// (--config). Run "viva COMMAND -h" for a command's flags and examples, and
// "viva help settings" for every setting.
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
	"slices"
	"strings"
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
	{"users", "manage who signs in to the web app: add, list, passwd, role, remove, token, tokens, revoke-token", runUsers},
	{"invitations", "withdraw or re-issue a candidate's link: revoke, reissue", runInvitations},
	{"blueprints", "list the installed interview blueprints and role templates", runBlueprints},
	{"bench", "measure turn latency and the cost per interview over a local LiveKit server: latency, density", runBench},
	{exportName, "write the stored interview records as JSON files (<id>.json) in a directory, or everything held about one candidate", runExport},
	{eraseName, "erase every interview of one candidate: records, reports, recordings and keys", runErase},
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
// Help asked for on the command line, or not, is printed on stdout.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		usage(stdout)
		return 0
	}
	if args[0] == helpCommand {
		return runHelp(ctx, args[1:], stdin, stdout, stderr)
	}
	for _, c := range commands {
		if c.name == args[0] {
			errOut := stderr
			if wantsHelp(args[1:]) {
				errOut = stdout
			}
			err := c.run(ctx, args[1:], stdin, stdout, errOut)
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

// helpCommand prints the command list, a command's help ("viva help chat")
// or every setting ("viva help settings").
const (
	helpCommand  = "help"
	helpSettings = "settings"
)

// runHelp is "viva help [COMMAND|settings]": the help on stdout, exit 0; an
// unknown topic on stderr, exit 2.
func runHelp(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		usage(stdout)
		return 0
	case args[0] == helpSettings:
		if err := printAllSettings(stdout); err != nil {
			fmt.Fprintf(stderr, "viva help: %v\n", err)
			return 1
		}
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			return run(ctx, append([]string{c.name}, append(args[1:], "-h")...), stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "viva help: no command or topic called %q\n\n", args[0])
	usage(stderr)
	return 2
}

// wantsHelp reports whether a command's arguments ask for its help (-h,
// -help or --help before any "--").
func wantsHelp(args []string) bool {
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
	fmt.Fprintln(w, "\nRun 'viva COMMAND -h' for a command's settings and examples, and 'viva help settings' for every setting.")
}

// loadConfig parses a command's flags (flags registers the command's own
// before the settings') and the configuration from flags, environment and
// file; the command's help and flags hold only the settings it reads
// (commandReads). -h prints the help on stderr (which run points at
// stdout); a bad flag or value is a usage error of one line per problem.
func loadConfig(name string, args []string, stderr io.Writer, flags func(*flag.FlagSet)) (*config.Config, error) {
	fs := newFlagSet(name)
	if flags != nil {
		flags(fs)
	}
	cfg, err := config.LoadSettings(fs, args, os.Getenv, commandReads(name)...)
	var ferr *config.FlagError
	switch {
	case err == nil:
		return cfg, nil
	case errors.Is(err, flag.ErrHelp):
		commandUsage(stderr, name, fs)
		return nil, err
	case errors.As(err, &ferr):
		return nil, flagError(name, ferr.Err)
	}
	return nil, usageError("%v", err)
}

// newFlagSet is the flag set of command name: it prints nothing itself,
// so a mistake is told in one line (flagError) and help only when asked.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("viva "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// flagError is a usage error of one line for a mistake in command name's
// flags (from the flag package): what was wrong, in the --flag spelling
// used everywhere else, and where to read the flags.
func flagError(name string, err error) error {
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag --" + strings.TrimPrefix(f, "-")
	} else if f, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		msg = "flag --" + strings.TrimPrefix(f, "-") + " needs a value"
	} else {
		msg = strings.ReplaceAll(msg, " flag -", " flag --")
	}
	return usageError("%s: run `viva %s -h` for its flags", msg, name)
}

// Settings read by the commands that read few, by YAML key: their help
// lists only these, and other settings are neither offered nor checked.
var (
	storeReads       = []string{"data_dir", "database_url", "secrets_key", "log_level"}
	usersReads       = []string{"data_dir", "users_file"}
	invitationsReads = append([]string{"link_ttl", "public_url"}, storeReads...)
	recordsReads     = append([]string{"recordings_dir"}, storeReads...)
)

// commandReads are the settings command name reads (nil: every one).
func commandReads(name string) []string {
	switch group, _, _ := strings.Cut(name, " "); group {
	case "users":
		return usersReads
	case "invitations":
		return invitationsReads
	case exportName, eraseName:
		return recordsReads
	}
	return nil
}

// newLogger returns the process logger: text on stderr at the given level.
func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}

// settingGroup is a titled group of flags in help output.
type settingGroup struct {
	title string
	flags []string
}

// Titles of the groups of settings.
const (
	groupEngines  = "Language model"
	groupSpeech   = "Speech engines"
	groupGeneral  = "Records, pace and logs"
	groupLiveKit  = "LiveKit and the worker"
	groupTurns    = "Turn-taking"
	groupWeb      = "Web app"
	groupAudio    = "Audio recordings"
	groupOps      = "Health, metrics and profiling"
	groupOther    = "Other settings"
	groupCommand  = "Settings of this command"
	groupChatOwns = "The candidate and files"
)

// settingGroups sorts the settings of package config for help, in the
// order shown; a setting in none of them is shown under groupOther.
var settingGroups = []settingGroup{
	{groupEngines, []string{"llm", "openai-base-url", "openai-model", "analysis-model", "llm-first-token-timeout", "llm-chunk-gap-timeout"}},
	{groupSpeech, []string{"stt", "tts", "deepgram-model", "openai-stt-model", "openai-tts-model", "openai-tts-voice"}},
	{groupGeneral, []string{"data-dir", "database-url", "record-retention", "drop-texts-after-report", "time-scale", config.ConfigFlag, flagLogLevel}},
	{groupLiveKit, []string{"livekit-url", "livekit-api-key", "agent-name", "max-sessions", "load-threshold", "drain-timeout", "rejoin-grace"}},
	{groupOps, []string{"health-addr", "pprof"}},
	{groupTurns, []string{"endpointing-delay", "endpointing-min", "endpointing-max", "interrupt-threshold", "thinking-pause",
		"false-interruption-timeout", "away-after", "hearing-timeout"}},
	{groupWeb, []string{"addr", "users-file", "token-ttl", "link-ttl", "public-url", "webhook-urls", "brand-name", "brand-logo", "consent-text", "consent-file"}},
	{groupAudio, []string{"record-audio", "recordings-dir", "recording-retention"}},
}

// commandHelp is what a command's -h shows beyond its flags.
type commandHelp struct {
	// usage is the synopsis line.
	usage string
	// own titles the command's own flags (groupCommand when empty).
	own string
	// groups are the titles of the setting groups shown after the
	// command's own flags; nil shows every group.
	groups []string
	// examples are command lines, each with what it does.
	examples [][2]string
}

// commandHelps holds the help of the commands that take settings, by the
// name loadConfig is given.
var commandHelps = map[string]commandHelp{
	"chat": {
		usage:  "viva chat --name NAME [settings]",
		own:    groupChatOwns,
		groups: []string{groupEngines, groupGeneral},
		examples: [][2]string{
			{`viva chat --name "Ada Lovelace"`, "a practice interview with the offline scripted interviewer"},
			{`viva chat --name Ada --template fullstack-senior --resume cv.pdf --time-scale 0.2`, "a role template and a résumé, five times faster"},
			{`viva chat --name Ada < answers.txt`, "answers piped one a line; the output reads as a transcript"},
		},
	},
	"agent": {
		usage: "viva agent [settings]",
		examples: [][2]string{
			{`LIVEKIT_URL=wss://lk.example.com LIVEKIT_API_KEY=key LIVEKIT_API_SECRET=secret viva agent`, "a worker for a LiveKit server"},
			{`viva agent --config viva.yaml --max-sessions 4`, "settings from a file, four interviews at a time"},
		},
	},
	"web": {
		usage: "viva web [settings]",
		examples: [][2]string{
			{`viva web --addr :8080 --public-url https://interviews.example.com`, "the web app behind a public address"},
			{`viva web --config viva.yaml`, "settings from a file"},
		},
	},
	exportName: {
		usage:  "viva export --out DIR [--status STATUS | --email ADDRESS] [settings]",
		groups: []string{groupGeneral, groupAudio},
		examples: [][2]string{
			{`viva export --email ada@example.com --out ./ada`, "everything held about one candidate: records and recordings"},
			{`VIVA_DATABASE_URL=postgres://viva:PASSWORD@db:5432/viva viva export --out ./export`, "every record in PostgreSQL as files"},
			{`viva export --out ./completed --status completed`, "the completed interviews of the data directory"},
			{`viva web --data-dir ./export`, "then read the exported records in the web app"},
		},
	},
	eraseName: {
		usage:  "viva erase --email ADDRESS [--yes] [--by NAME] [settings]",
		groups: []string{groupGeneral, groupAudio},
		examples: [][2]string{
			{`viva erase --email ada@example.com`, "list the candidate's interviews, ask, then erase them"},
			{`VIVA_DATABASE_URL=postgres://viva:PASSWORD@db:5432/viva viva erase --email ada@example.com --yes --by dpo@example.com`, "erase from PostgreSQL without asking"},
		},
	},
	"dev": {
		usage: "viva dev [settings]",
		examples: [][2]string{
			{`viva dev`, "everything on this machine, offline engines unless OPENAI_API_KEY is set"},
			{`OPENAI_API_KEY=sk-... viva dev --time-scale 0.2`, "OpenAI's engines, a five times shorter interview"},
			{`viva dev --addr 127.0.0.1:9000 --livekit-port 7890`, "other ports"},
		},
	},
}

// commandUsage prints a command's help: its own flags first, then the
// setting groups it uses, then examples.
func commandUsage(w io.Writer, name string, fs *flag.FlagSet) {
	h := commandHelps[name]
	if h.usage == "" {
		h.usage = "viva " + name + " [settings]"
	}
	if h.own == "" {
		h.own = groupCommand
	}
	fmt.Fprintf(w, "Usage: %s\n", h.usage)
	own, grouped := splitFlags(fs)
	printGroup(w, h.own, own)
	var hidden []string
	for _, g := range append(settingGroups, settingGroup{title: groupOther}) {
		if h.groups != nil && !slices.Contains(h.groups, g.title) {
			if len(grouped[g.title]) > 0 {
				hidden = append(hidden, g.title)
			}
			continue
		}
		printGroup(w, g.title, grouped[g.title])
	}
	if len(hidden) > 0 {
		fmt.Fprintf(w, "\nMore settings (%s) are listed by 'viva help settings'.\n", strings.Join(hidden, "; "))
	}
	if len(h.examples) > 0 {
		fmt.Fprintln(w, "\nExamples:")
		for _, e := range h.examples {
			fmt.Fprintf(w, "  %s\n      %s\n", e[0], e[1])
		}
	}
}

// splitFlags sorts the flags of fs into the command's own (those that
// are not settings of package config) and the settings, by group title.
func splitFlags(fs *flag.FlagSet) (own []*flag.Flag, grouped map[string][]*flag.Flag) {
	settings := map[string]bool{config.ConfigFlag: true}
	for _, s := range config.Settings() {
		if s.Flag != "" {
			settings[s.Flag] = true
		}
	}
	grouped = map[string][]*flag.Flag{}
	var ownNames []string
	fs.VisitAll(func(f *flag.Flag) {
		if !settings[f.Name] {
			own = append(own, f)
			ownNames = append(ownNames, f.Name)
		}
	})
	for _, g := range settingGroups {
		for _, n := range g.flags {
			if f := fs.Lookup(n); f != nil && !slices.Contains(ownNames, n) {
				grouped[g.title] = append(grouped[g.title], f)
			}
		}
	}
	fs.VisitAll(func(f *flag.Flag) {
		if !settings[f.Name] {
			return
		}
		for _, g := range settingGroups {
			if slices.Contains(g.flags, f.Name) {
				return
			}
		}
		grouped[groupOther] = append(grouped[groupOther], f)
	})
	// The command's own flags in the order they were declared would read
	// best, but a FlagSet keeps none: the candidate's name comes first.
	slices.SortStableFunc(own, func(a, b *flag.Flag) int { return strings.Compare(flagRank(a), flagRank(b)) })
	return own, grouped
}

// flagRank orders a command's own flags: required ones first.
func flagRank(f *flag.Flag) string {
	if strings.Contains(f.Usage, "(required)") {
		return "0" + f.Name
	}
	return "1" + f.Name
}

// printGroup prints a titled group of flags; an empty group is left out.
func printGroup(w io.Writer, title string, flags []*flag.Flag) {
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

// printAllSettings lists every setting of package config, grouped, with
// the environment variables of the secrets that have no flag.
func printAllSettings(w io.Writer) error {
	fs := flag.NewFlagSet("viva", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	// Load registers every setting's flag before it reads anything; the
	// values it then finds do not matter here.
	_, _ = config.Load(fs, []string{}, func(string) string { return "" })
	if fs.Lookup(config.ConfigFlag) == nil {
		return errors.New("the settings could not be listed")
	}
	fmt.Fprintln(w, "Every setting of viva, given as a flag, as the environment variable named beside it, or in the YAML file named by --config.")
	_, grouped := splitFlags(fs)
	for _, g := range append(settingGroups, settingGroup{title: groupOther}) {
		printGroup(w, g.title, grouped[g.title])
	}
	fmt.Fprintln(w, "\nSecrets (environment or the YAML file only, never flags):")
	for _, s := range config.Settings() {
		if s.Secret {
			fmt.Fprintf(w, "  %s\n      %s\n", s.Env, s.Help)
		}
	}
	return nil
}
