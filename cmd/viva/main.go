// Command viva runs structured voice interviews on LiveKit.
//
//	viva agent   the interviewer worker: joins LiveKit rooms it is dispatched to
//	viva web     the web app: registration, room page, reviewer pages
//	viva dev     everything on one machine (LiveKit dev server, worker, web app)
//	viva chat    an interview in the terminal (no audio, no LiveKit)
//	viva users   the web app's accounts: add, list, passwd, role, remove, token, tokens, revoke-token
//	viva invitations  a candidate's link: revoke, reissue
//	viva blueprints  the installed interview blueprints and role templates
//	viva designs the design library: add, list, show, remove, export
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
	"github.com/viva-interviews/viva/internal/cli"
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
	{"designs", "manage the library of interview designs: add, list, show, remove, export", runDesigns},
	{"bench", "measure turn latency and the cost per interview over a local LiveKit server: latency, density, compare (beside agents-js)", runBench},
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
			if cli.WantsHelp(args[1:]) {
				errOut = stdout
			}
			return cli.Exit(stderr, "viva "+c.name, c.run(ctx, args[1:], stdin, stdout, errOut))
		}
	}
	fmt.Fprintf(stderr, "viva: unknown command %q: run `viva -h` for the commands\n", args[0])
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
	fs := cli.NewFlagSet("viva " + name)
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
		return nil, cli.FlagError("viva "+name, ferr.Err)
	}
	return nil, cli.UsageError("%v", err)
}

// Settings read by each command that does not read them all, by YAML
// key: its help lists only these, and other settings are neither offered
// as flags nor checked. viva dev and viva chat read every setting.
var (
	storeReads    = []string{"data_dir", "database_url", "secrets_key", "log_level"}
	liveKitReads  = []string{"livekit_url", "livekit_api_key", "livekit_api_secret", "agent_name"}
	modelReads    = []string{"llm", "openai_api_key", "openai_base_url", "openai_model", "llm_first_token_timeout", "llm_chunk_gap_timeout"}
	engineReads   = append([]string{"analysis_model", "stt", "tts", "deepgram_api_key", "deepgram_model", "openai_stt_model", "openai_tts_model", "openai_tts_voice"}, modelReads...)
	storageReads  = []string{"recordings_dir", "recordings_s3_endpoint", "recordings_s3_bucket", "recordings_s3_region", "aws_access_key_id", "aws_secret_access_key"}
	audioReads    = slices.Concat([]string{"record_audio"}, storageReads)
	agentOwnReads = []string{"max_sessions", "load_threshold", "drain_timeout", "rejoin_grace", "time_scale", "health_addr", "pprof_addr",
		"endpointing_delay", "endpointing_min", "endpointing_max", "interrupt_threshold", "thinking_pause",
		"false_interruption_timeout", "away_after", "hearing_timeout"}
	webOwnReads = []string{"addr", "reviewer_token", "users_file", "token_ttl", "link_ttl", "public_url", "webhook_urls", "webhook_secret",
		"smtp_url", "brand_name", "brand_logo", "consent_text", "consent_file", "drop_texts_after_report", "recording_retention",
		"record_retention", "rejoin_grace", "time_scale", "pprof_addr"}
	agentReads       = slices.Concat(storeReads, liveKitReads, engineReads, audioReads, agentOwnReads)
	webReads         = slices.Concat(storeReads, liveKitReads, modelReads, audioReads, webOwnReads)
	usersReads       = []string{"data_dir", "users_file", "database_url"}
	invitationsReads = slices.Concat([]string{"link_ttl", "public_url"}, storeReads)
	recordsReads     = slices.Concat(storageReads, storeReads)
)

// commandReads are the settings command name reads (nil: every one).
func commandReads(name string) []string {
	switch group, _, _ := strings.Cut(name, " "); group {
	case "agent":
		return agentReads
	case "web":
		return webReads
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
	{groupAudio, []string{"record-audio", "recordings-dir", "recording-retention", "recordings-s3-endpoint", "recordings-s3-bucket",
		"recordings-s3-region", "recordings-s3-access-key"}},
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
	cli.PrintFlags(w, h.own, own)
	var hidden []string
	for _, g := range append(settingGroups, settingGroup{title: groupOther}) {
		if h.groups != nil && !slices.Contains(h.groups, g.title) {
			if len(grouped[g.title]) > 0 {
				hidden = append(hidden, g.title)
			}
			continue
		}
		cli.PrintFlags(w, g.title, grouped[g.title])
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
		cli.PrintFlags(w, g.title, grouped[g.title])
	}
	fmt.Fprintln(w, "\nSecrets (environment or the YAML file only, never flags):")
	for _, s := range config.Settings() {
		if s.Secret {
			fmt.Fprintf(w, "  %s\n      %s\n", s.Env, s.Help)
		}
	}
	return nil
}
