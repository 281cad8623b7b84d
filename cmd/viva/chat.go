package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/agent/engines"
	"github.com/viva-interviews/viva/agent/terminal"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/internal/cli"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
	"github.com/viva-interviews/viva/reports"
	"github.com/viva-interviews/viva/stages"
	"github.com/viva-interviews/viva/web"
)

// runChat holds an interview in the terminal: the interviewer's lines are
// printed, the candidate's are read from stdin (so answers can be piped),
// and the record is saved after every turn. --template, --resume, --jd and
// --brief add a role template and documents, as the web form does.
func runChat(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var (
		cand  candidate
		in    chatInputs
		flags *flag.FlagSet
	)
	cfg, err := loadConfig("chat", args, stderr, func(fs *flag.FlagSet) {
		cand = candidateFlags(fs)
		in = chatInputFlags(fs)
		flags = fs
	})
	if err != nil {
		return err
	}
	rec, err := cand.record()
	if err != nil {
		return cli.UsageError("%v", err)
	}
	if err := in.documents(ctx, rec); err != nil {
		return err
	}
	// The conversation owns the screen: logs go below the prompt, and only
	// warnings and errors unless a log level was asked for.
	termCtx, stopTerm := context.WithCancel(ctx)
	defer stopTerm()
	term := terminal.New(termCtx, stdin, stdout, terminal.Options{Interactive: isTerminal(stdin), Color: useColor(stdout, os.Getenv)})
	level := cfg.LogLevel
	if !settingGiven(flags, flagLogLevel, envLogLevel) {
		level = chatLogLevel
	}
	log := newLogger(term.LogWriter(stderr), level)
	store, err := openStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeStore(store)
	bp, tpl, err := in.designs(ctx, cfg, chatDesigns{interviews.Library{Store: store}}, rec, *cand.blueprint)
	if err != nil {
		return err
	}
	if err := in.checkBrief(rec, bp); err != nil {
		return err
	}
	newLLM, llmName, err := engines.LLM(cfg, log)
	if err != nil {
		return err
	}
	analyzer, err := engines.Analyzer(cfg, log)
	if err != nil {
		return err
	}
	if llmName != "scripted" {
		if err := engines.CheckKeys(ctx, cfg); err != nil {
			return err
		}
	}
	rec.Engines = &interviews.Engines{LLM: llmName}
	if err := store.Create(ctx, rec); err != nil {
		return fmt.Errorf("creating the interview record: %w", err)
	}
	log = log.With("interview_id", rec.ID)
	loop, err := agent.NewLoop(agent.Setup{Blueprint: bp, Record: rec, Store: store, TimeScale: cfg.TimeScale, Models: agent.Models{NewLLM: newLLM, Analyzer: analyzer},
		Template: tpl, Logger: log},
		agent.LoopOptions{Stopped: agent.Ending{Status: interviews.StatusCandidateLeft, Reason: interviews.EndedInterrupted}})
	if err != nil {
		return err
	}
	rc := loop.Conductor().Recorder()
	runErr := loop.Run(ctx, term)
	stopTerm()
	final := rc.Snapshot()
	fmt.Fprintf(stdout, "\n%s\n", terminal.Summary(final, rc.Path()))
	if ctx.Err() == nil {
		chatReport(ctx, cfg, log, store, bp, final.ID, rc.Path(), stdout)
	}
	return runErr
}

// chatReport writes the ended interview's report as viva web's runner
// does (the model's with a model, the basic one offline), saves it in the
// record and prints its summary and where the full report is. An
// interview that gets no report, or a report that failed, is said in one
// line: the interview itself is saved either way.
func chatReport(ctx context.Context, cfg *config.Config, log *slog.Logger, store interviews.Store, bp *stages.Blueprint, id, path string, out io.Writer) {
	rep, err := writeReport(ctx, cfg, log, store, bp, id)
	switch {
	case errors.Is(err, reports.ErrNotDue):
		fmt.Fprintln(out, "No report: one is written for a completed interview, or one left after at least three answers.")
	case err != nil:
		fmt.Fprintf(out, "The report could not be written: %v. viva web writes it when it next runs on this data directory.\n", err)
	default:
		where := "in the record"
		if path != "" {
			where += " " + path
		}
		fmt.Fprintf(out, "\n%s\nFull report: %s (\"report\"), or at /review/%s in viva web.\n", reports.Summary(rep), where, id)
	}
}

// writeReport generates interview id's report now with the runner viva
// web uses.
func writeReport(ctx context.Context, cfg *config.Config, log *slog.Logger, store interviews.Store, bp *stages.Blueprint, id string) (*interviews.Report, error) {
	gen, err := reportGenerator(cfg, log)
	if err != nil {
		return nil, err
	}
	runner, err := reports.NewRunner(reports.RunnerOptions{Store: store, Generator: gen, Logger: log, DropTexts: cfg.DropTextsAfterReport,
		Designs: fixedDesigns{bp}})
	if err != nil {
		return nil, err
	}
	return runner.Generate(ctx, id)
}

// The log level of viva chat when none is given: the conversation is not
// interleaved with routine logs.
const chatLogLevel = "warn"

// The log level setting, as a flag and an environment variable.
const (
	flagLogLevel = "log-level"
	envLogLevel  = "VIVA_LOG_LEVEL"
)

// settingGiven reports whether a setting was given explicitly: its flag
// on fs or its environment variable.
func settingGiven(fs *flag.FlagSet, flagName, env string) bool {
	given := os.Getenv(env) != ""
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == flagName })
	return given
}

// useColor reports whether output to w may be coloured: w is a terminal
// and NO_COLOR (https://no-color.org) is unset or empty.
func useColor(w io.Writer, getenv func(string) string) bool {
	return getenv("NO_COLOR") == "" && isTerminal(w)
}

// The flags of viva chat that add a role template and documents to the
// interview.
const (
	flagTemplate = "template"
	flagProblem  = "problem"
	flagResume   = "resume"
	flagJD       = "jd"
	flagBrief    = "brief"
)

// maxBriefLen bounds a knowledge-capture brief, in characters, as the job
// description is bounded.
const maxBriefLen = interviews.MaxJobDescriptionLen

// chatInputs holds the flags of viva chat naming a role template and the
// files that describe the candidate, the job or the knowledge to capture.
type chatInputs struct {
	template, problem, language, resume, jd, brief *string
}

func chatInputFlags(fs *flag.FlagSet) chatInputs {
	return chatInputs{
		template: fs.String(flagTemplate, "", "a role template whose questions the interview asks: a built-in one ("+strings.Join(stages.TemplateNames(), ", ")+"), one of the design library (NAME or NAME@VERSION) or a markdown file"),
		language: fs.String(flagLanguage, "", "the interview's language: "+strings.Join(lang.Tags(), ", ")+"; the blueprint's when left out"),
		problem:  fs.String(flagProblem, "", "the design problem, from the blueprint's pool (system-design: "+strings.Join(stages.SystemDesign().ProblemIDs(), ", ")+"); drawn for the interview when left out"),
		resume:   fs.String(flagResume, "", "the candidate's résumé: a PDF, DOCX, text or markdown file"),
		jd:       fs.String(flagJD, "", "the job description: a text or markdown file"),
		brief:    fs.String(flagBrief, "", "what to capture in a knowledge-capture interview (--blueprint knowledge-capture): a markdown file of topics"),
	}
}

// documents reads the files the flags name (résumé, job description,
// brief) into rec, as the web app's registration does. Every error is a
// usage error naming the flag.
func (in chatInputs) documents(ctx context.Context, rec *interviews.Record) error {
	if *in.resume != "" {
		text, err := readResume(ctx, *in.resume)
		if err != nil {
			return cli.UsageError("--%s %s: %v", flagResume, *in.resume, err)
		}
		rec.ResumeText, rec.ResumeSummary = text, web.ResumeSummary(text)
	}
	if *in.jd != "" {
		text, err := readText(*in.jd, interviews.MaxJobDescriptionLen)
		if err != nil {
			return cli.UsageError("--%s %s: %v", flagJD, *in.jd, err)
		}
		rec.JobDescription = text
	}
	if *in.brief != "" {
		text, err := readText(*in.brief, maxBriefLen)
		if err != nil {
			return cli.UsageError("--%s %s: %v", flagBrief, *in.brief, err)
		}
		rec.Brief = text
	}
	return nil
}

// checkBrief checks that a brief was given exactly when bp captures
// knowledge from one.
func (in chatInputs) checkBrief(rec *interviews.Record, bp *stages.Blueprint) error {
	switch {
	case rec.Brief != "" && !bp.KnowledgeCapture():
		return cli.UsageError("--%s is for knowledge-capture interviews, and blueprint %q is not one: pass --blueprint %s", flagBrief, bp.Name, stages.KnowledgeCaptureName)
	case rec.Brief == "" && bp.KnowledgeCapture():
		return cli.UsageError("blueprint %q captures knowledge from a brief: pass --%s FILE, a markdown file whose headings and bullet points are the topics to cover", bp.Name, flagBrief)
	}
	return nil
}

// readResume returns the text of a résumé file, read by the web app's
// parser (PDF and DOCX in a sandboxed child process).
func readResume(ctx context.Context, path string) (string, error) {
	data, err := readFileAtMost(path, web.MaxResumeFileSize)
	if err != nil {
		return "", err
	}
	text, err := web.ExtractResume(ctx, path, data)
	if re, ok := errors.AsType[*web.ResumeError](err); ok {
		return "", errors.New(re.Message)
	}
	return text, err
}

// readFileAtMost reads a file of at most limit bytes.
func readFileAtMost(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot be read: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, errors.New("is a directory; pass a file")
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot be read: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("is larger than %d KB; shorten it", limit>>10)
	}
	return data, nil
}

// readText reads a UTF-8 text or markdown file of at most maxChars
// characters, with its line ends normalised and surrounding space trimmed.
func readText(path string, maxChars int) (string, error) {
	data, err := readFileAtMost(path, int64(4*maxChars+4))
	if err != nil {
		return "", err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return "", errors.New("is not UTF-8 text; save it as a text or markdown file")
	}
	text := strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n"))
	switch n := utf8.RuneCountInString(text); {
	case n == 0:
		return "", errors.New("is empty")
	case n > maxChars:
		return "", fmt.Errorf("has %d characters; shorten it to at most %d", n, maxChars)
	}
	return text, nil
}

// isTerminal reports whether v is a character device such as a terminal.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// fixedDesigns is the design library of viva chat's report: the
// interview's blueprint, whatever the name (the operator's own file may
// not be in the library), and no template (a report needs none).
type fixedDesigns struct{ bp *stages.Blueprint }

func (f fixedDesigns) Blueprint(context.Context, string, string) (*stages.Blueprint, string, error) {
	return f.bp.Clone(), "", nil
}

func (fixedDesigns) Template(context.Context, string, string) (*stages.Template, string, error) {
	return nil, "", nil
}
