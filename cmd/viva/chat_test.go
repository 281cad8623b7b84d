package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/viva-interviews/viva/incident"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/reports"
	"github.com/viva-interviews/viva/stages"
	"github.com/viva-interviews/viva/testrig/fakeopenai"
)

var pipedAnswers = []string{
	"Yes, I can hear you clearly.",
	"I'm a backend engineer with eight years in payments.",
	"I applied because I love building distributed systems.",
	"I started in QA and moved to backend development.",
	"I enjoy debugging production incidents with good tracing.",
	"At my last job I led the ledger migration to Postgres.",
	"The hardest bug was a race condition in our retry logic.",
	"I mentor two junior engineers every week.",
	"We disagreed about the queue design and I wrote a comparison.",
	"I measure success with error budgets and latency.",
	"I learned Rust to write a small proxy.",
	"My biggest mistake was a schema change without a backfill.",
	"I prefer small teams with clear ownership.",
	"I want to grow toward a staff role.",
	"No questions from me, thank you.",
}

// runChatWith runs `viva chat` in-process with answers written to its stdin
// one every interval, and returns its stdout and the record it saved.
func runChatWith(t *testing.T, answers []string, interval time.Duration, extra ...string) (string, *interviews.Record) {
	t.Helper()
	dir := t.TempDir()
	return runChatIn(t, dir, answers, interval, extra...), onlyRecord(t, dir)
}

// runChatIn is runChatWith on the data directory dir, returning stdout.
func runChatIn(t *testing.T, dir string, answers []string, interval time.Duration, extra ...string) string {
	t.Helper()
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("VIVA_LLM", "")
	pr, pw := io.Pipe()
	go func() {
		defer pw.Close()
		for _, a := range answers {
			time.Sleep(interval) // the candidate typing, in real time: the interview's own timers run too
			if _, err := io.WriteString(pw, a+"\n"); err != nil {
				return
			}
		}
	}()
	var out, errOut bytes.Buffer
	args := append([]string{"chat", "--name", "Grace Hopper", "--role", "Backend engineer", "--level", "senior", "--data-dir", dir}, extra...)
	code := run(context.Background(), args, pr, &out, &errOut)
	pr.Close() // answers left unread stop the writer
	if code != 0 {
		t.Fatalf("viva chat exited %d: %s", code, errOut.String())
	}
	return out.String()
}

func onlyRecord(t *testing.T, dir string) *interviews.Record {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("%d records in %s, want 1", len(files), dir)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var rec interviews.Record
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatalf("record is not valid JSON: %v", err)
	}
	if err := rec.Validate(); err != nil {
		t.Fatalf("record does not validate: %v", err)
	}
	return &rec
}

// TestChatPipedCompletes: fifteen answers piped one every half second at
// time scale 0.05 complete all four stages in order, each with at least its
// minimum of questions, and the record says completed.
func TestChatPipedCompletes(t *testing.T) {
	out, rec := runChatWith(t, pipedAnswers, 500*time.Millisecond, "--time-scale", "0.05")
	if rec.Status != interviews.StatusCompleted {
		t.Fatalf("status %s (%s), want completed; output:\n%s", rec.Status, rec.EndedBy, out)
	}
	var order []string
	for _, v := range rec.Stages {
		order = append(order, v.Name)
	}
	if got := strings.Join(order, ","); got != "greeting,intro,experience,closing" {
		t.Errorf("stages entered %s", got)
	}
	spoken := map[string]int{}
	for _, q := range rec.Questions {
		if q.SpokenAt != nil {
			spoken[q.Stage]++
		}
	}
	for _, st := range stages.Default().Stages {
		if spoken[st.Name] < st.MinQuestions {
			t.Errorf("stage %s: %d questions, minimum %d", st.Name, spoken[st.Name], st.MinQuestions)
		}
	}
	summary := regexp.MustCompile(`\nThe interview is complete: the closing remarks were delivered \(\d+ answers, [^)]+\)\. Record: \S+` + regexp.QuoteMeta(rec.ID+".json") + "\n")
	if !summary.MatchString(out) {
		t.Errorf("output lacks the summary in words and the record's path:\n%s", out)
	}
	// The interview ends with its report: the basic one, offline, saved
	// in the record and summed up on screen.
	if rep := rec.Report; rep == nil || rep.Status != interviews.ReportReady || !rep.Basic || rep.Version != 1 || len(rep.Strengths) == 0 {
		t.Fatalf("report %+v, want the basic report, ready, with strengths", rec.Report)
	}
	if n := len(rec.Audit); n == 0 || rec.Audit[n-1].Action != interviews.AuditReportGenerated {
		t.Errorf("audit %+v, want the report's generation last", rec.Audit)
	}
	report := regexp.MustCompile(`\nOverall \(the basic report\): \d+/100 — [^\n]+\nStrengths:\n(  - [^\n]+\n)+` +
		`(Areas to probe:\n(  - [^\n]+\n)+)?Full report: in the record \S+` + regexp.QuoteMeta(rec.ID+".json") + ` \("report"\), or at /review/` + regexp.QuoteMeta(rec.ID) + " in viva web\\.\n$")
	if !report.MatchString(out) {
		t.Errorf("output does not end with the report's summary and where the full report is:\n%s", out)
	}
	if !strings.Contains(out, rec.Report.Strengths[0].Text) {
		t.Errorf("the summary lacks the first strength %q:\n%s", rec.Report.Strengths[0].Text, out)
	}
	// Each stage is announced on a line of its own with the time left in
	// it, and piped output carries no colour codes.
	for _, st := range stages.Default().Stages {
		if !regexp.MustCompile(`(?m)^— ` + regexp.QuoteMeta(st.Title) + ` · \d+:\d\d left —$`).MatchString(out) {
			t.Errorf("no stage line for %q:\n%s", st.Title, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("piped output carries colour codes:\n%q", out)
	}
}

// TestChatEndOfInputSavesCandidateLeft: input ending before the closing
// stage saves the record as candidate_left with every turn said so far.
func TestChatEndOfInputSavesCandidateLeft(t *testing.T) {
	out, rec := runChatWith(t, pipedAnswers[:3], 50*time.Millisecond)
	if rec.Status != interviews.StatusCandidateLeft || rec.EndedBy != interviews.EndedEndOfInput {
		t.Fatalf("status %s ended by %s, want candidate_left by end_of_input", rec.Status, rec.EndedBy)
	}
	if want := "You left the interview before the end: the input ended (3 answers, "; !strings.Contains(out, want) {
		t.Errorf("output lacks the summary %q:\n%s", want, out)
	}
	var said []string
	for _, turn := range rec.Turns {
		if turn.Role == interviews.RoleCandidate {
			said = append(said, turn.Text)
		}
	}
	if got, want := strings.Join(said, "|"), strings.Join(pipedAnswers[:3], "|"); got != want {
		t.Errorf("candidate turns %q, want %q", got, want)
	}
	if n := len(rec.Turns); n != 7 {
		t.Errorf("%d turns, want 7 (greeting and three exchanges); output:\n%s", n, out)
	}
}

// TestChatUsageErrors: bad input at the edge is a clear error, exit code 2.
func TestChatUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"chat"}, "--name: Enter the candidate's name"},
		{[]string{"chat", "--name", "A", "--email", "a@localhost"}, "--email: That doesn't look like an email address"},
		{[]string{"chat", "--name", "A", "--role", " "}, "--role: Enter the role"},
		{[]string{"chat", "--name", "A", "--level", "wizard"}, "entry, junior, mid, senior, lead, staff"},
		{[]string{"chat", "--name", "A", "--time-scale", "fast"}, "time-scale"},
		{[]string{"chat", "--name", "A", "--blueprint", "/nonexistent.yaml"}, "neither a built-in blueprint"},
		{[]string{"chat", "--name", "A", "--llm", "gpt"}, "scripted"},
		{[]string{"nonsense"}, "unknown command"},
	} {
		var out, errOut bytes.Buffer
		t.Setenv("VIVA_DATA_DIR", t.TempDir())
		code := run(context.Background(), tc.args, strings.NewReader(""), &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, errOut.String(), tc.want)
		}
	}
}

// TestChatKilledLeavesValidRecord kills a real viva chat process mid-way:
// the record on disk is valid and holds the turns said before the kill.
func TestChatKilledLeavesValidRecord(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "viva")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, "chat", "--name", "Ada", "--data-dir", dir)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", "VIVA_LLM=")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Answer twice, waiting for each reply, then kill without warning.
	buf := make([]byte, 4096)
	var seen strings.Builder
	for _, a := range pipedAnswers[:2] {
		n0 := strings.Count(seen.String(), "Interviewer:")
		for strings.Count(seen.String(), "Interviewer:") == n0 || !strings.HasSuffix(strings.TrimRight(seen.String(), " "), "\n") {
			n, err := stdout.Read(buf)
			if err != nil {
				t.Fatalf("reading output: %v (so far %q)", err, seen.String())
			}
			seen.Write(buf[:n])
		}
		io.WriteString(stdin, a+"\n")
	}
	for strings.Count(seen.String(), "Interviewer:") < 3 || !strings.HasSuffix(seen.String(), "\n") {
		n, err := stdout.Read(buf)
		if err != nil {
			t.Fatalf("reading output: %v", err)
		}
		seen.Write(buf[:n])
	}
	// The record is saved behind the turns, never on their path: wait
	// until the writer has caught up with the turns said, then kill.
	saved := func() int {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		if len(files) != 1 {
			return 0
		}
		data, _ := os.ReadFile(files[0])
		var rec interviews.Record
		_ = json.Unmarshal(data, &rec)
		return len(rec.Turns)
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for giveUp := time.After(10 * time.Second); saved() < 4; {
		select {
		case <-tick.C:
		case <-giveUp:
			t.Fatalf("%d turns on disk 10 s after the third reply, want at least 4", saved())
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	rec := onlyRecord(t, dir)
	if rec.Status != interviews.StatusInProgress {
		t.Errorf("status %s, want in_progress (the process was killed)", rec.Status)
	}
	if len(rec.Turns) < 4 { // greeting, answer, reply, answer
		t.Errorf("%d turns on disk after the kill, want at least 4", len(rec.Turns))
	}
}

// TestRejectedKeyStopsAtStartup: a key the service refuses is a clear error
// before the interview starts, not a silent fallback to the offline engines.
func TestRejectedKeyStopsAtStartup(t *testing.T) {
	fake := fakeopenai.New()
	defer fake.Close()
	t.Setenv("OPENAI_BASE_URL", fake.URL)
	for key, want := range map[string]string{
		"sk-wrong":     "rejected OPENAI_API_KEY",
		fakeopenai.Key: "",
	} {
		t.Setenv("OPENAI_API_KEY", key)
		fake.ScriptChat(fakeopenai.Reply{Text: "Hello, can you hear me?"})
		var out, errOut bytes.Buffer
		code := run(context.Background(), []string{"chat", "--name", "Ada", "--data-dir", t.TempDir()}, strings.NewReader(""), &out, &errOut)
		switch {
		case want != "" && (code != 1 || !strings.Contains(errOut.String(), want) || strings.Contains(out.String(), "Interviewer:")):
			t.Errorf("key %q: exit %d, stderr %q, stdout %q; want exit 1 naming the rejected key before any interview", key, code, errOut.String(), out.String())
		case want == "" && !strings.Contains(out.String(), "Hello, can you hear me?"):
			t.Errorf("accepted key: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
		}
	}
}

// chatWithModel runs viva chat in-process against a fake OpenAI server
// that script prepares, with answers as its whole input, and returns its
// stdout, its log and the record it saved.
func chatWithModel(t *testing.T, script func(*fakeopenai.Server), answers string) (out, log string, rec *interviews.Record) {
	t.Helper()
	fake := fakeopenai.New()
	t.Cleanup(fake.Close)
	t.Setenv("OPENAI_BASE_URL", fake.URL)
	t.Setenv("OPENAI_API_KEY", fakeopenai.Key)
	t.Setenv("VIVA_LLM", "")
	script(fake)
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"chat", "--name", "Ada", "--data-dir", dir}, strings.NewReader(answers), &stdout, &stderr); code != 0 {
		t.Fatalf("viva chat exited %d: %s", code, stderr.String())
	}
	return stdout.String(), stderr.String(), onlyRecord(t, dir)
}

// TestChatRecordsModelIncidents: a model fault the client recovers from is
// in the saved record, beside the turns.
func TestChatRecordsModelIncidents(t *testing.T) {
	_, _, rec := chatWithModel(t, func(fake *fakeopenai.Server) {
		fake.ScriptChat(fakeopenai.Reply{Status: 503}, fakeopenai.Reply{Text: "Hello, can you hear me?"})
	}, "")
	if len(rec.Incidents) != 1 {
		t.Fatalf("incidents %+v, want one", rec.Incidents)
	}
	inc := rec.Incidents[0]
	if inc.Provider != incident.LLM || inc.Kind != incident.Unavailable || !inc.Recovered ||
		!strings.Contains(inc.Detail, "attempt 1: HTTP 503") {
		t.Errorf("incident %+v", inc)
	}
}

// TestChatCarriesOnWhenTheModelIsDown: with the model answering 503 to
// every request, the scripted interviewer asks the questions instead; the
// record says which turns it wrote and why, and the interview goes on.
func TestChatCarriesOnWhenTheModelIsDown(t *testing.T) {
	out, _, rec := chatWithModel(t, func(fake *fakeopenai.Server) {
		fake.ChatFunc(func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Status: 503} })
	}, "yes, I can hear you\nI build payment systems in Go\n")
	var stand, agentTurns int
	for _, tr := range rec.Turns {
		if tr.Role == interviews.RoleAgent {
			agentTurns++
			if tr.Fallback == "scripted" {
				stand++
			}
		}
	}
	if agentTurns < 3 || stand != agentTurns {
		t.Fatalf("%d of %d interviewer turns by the scripted interviewer, want all (at least 3):\n%s", stand, agentTurns, out)
	}
	if rec.EndedBy.ProviderError() {
		t.Errorf("the interview failed (%s) although the scripted interviewer carried on", rec.EndedBy)
	}
	var fallbacks int
	for _, inc := range rec.Incidents {
		if inc.Kind == incident.Fallback {
			fallbacks++
		}
	}
	if fallbacks != 1 {
		t.Errorf("%d fallback incidents for one outage, want 1: %+v", fallbacks, rec.Incidents)
	}
}

// TestChatReportByModel: with a model, the interview in the terminal ends
// with the model's report, saved in the record and summed up on screen.
func TestChatReportByModel(t *testing.T) {
	comps := []map[string]any{}
	for _, name := range reports.DefaultCompetencies {
		comps = append(comps, map[string]any{"name": name, "score": 70, "rationale": "Clear and concrete."})
	}
	report := map[string]any{
		"overall_score": 71, "headline": "Concrete about payments work", "competencies": comps,
		"strengths": []map[string]any{{"text": "Owns the payments work.", "quote": "I build payment systems in Go", "question_id": ""},
			{"text": "Puts a number on load.", "quote": "about 2000 requests per second", "question_id": ""}},
		"improvements": []map[string]any{{"text": "Say more about scale.", "quote": "we run it on Kubernetes", "question_id": ""},
			{"text": "Say who else built it.", "quote": "mostly on my own", "question_id": ""}},
		"key_questions": []map[string]any{}, "star": []map[string]any{},
	}
	var greeted atomic.Bool
	out, log, rec := chatWithModel(t, func(fake *fakeopenai.Server) {
		fake.ChatFunc(func(r fakeopenai.Request) fakeopenai.Reply {
			switch r.SchemaName() {
			case "feedback_report":
				return fakeopenai.Reply{JSON: report}
			case "":
				// The model asks the greeting's question, then moves on as
				// soon as the candidate answers, so the answers after the
				// greeting are the report's to judge.
				switch {
				case greeted.CompareAndSwap(false, true):
					return fakeopenai.Reply{Text: "Welcome, Ada.", ToolCalls: []fakeopenai.ToolCall{{Name: string(stages.ToolAskQuestion), Arguments: `{"question":"Can you hear me clearly?","ref":"greeting-1"}`}}}
				case r.Messages[len(r.Messages)-1].Role == "user" && slices.Contains(r.ToolNames(), string(stages.ToolTransitionStage)):
					return fakeopenai.Reply{Text: "Thank you.", ToolCalls: []fakeopenai.ToolCall{{Name: string(stages.ToolTransitionStage), Arguments: `{"reason":"ready"}`}}}
				}
				return fakeopenai.Reply{Text: "Thank you. Tell me more about that."}
			}
			return fakeopenai.Reply{Status: 503} // the answer analysis falls back to the rules
		})
	}, "yes, I can hear you\nI build payment systems in Go\nwe run it on Kubernetes at about 2000 requests per second\nI wrote it mostly on my own\n")
	rep := rec.Report
	if rep == nil || rep.Status != interviews.ReportReady || rep.Basic || rep.Model == "" || rep.OverallScore != 71 {
		t.Fatalf("report %+v, want the model's, ready; log:\n%s", rep, log)
	}
	for _, want := range []string{"\nOverall (the report by " + rep.Model + "): 71/100 — Concrete about payments work\n",
		"Strengths:\n  - Owns the payments work. (\"I build payment systems in Go\")\n",
		"Areas to probe:\n  - Say more about scale.", "Full report: in the record "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestChatNoReportWhenNotDue: an interview left before three answers
// gets no report, and the screen says so.
func TestChatNoReportWhenNotDue(t *testing.T) {
	out, rec := runChatWith(t, pipedAnswers[:1], 50*time.Millisecond)
	if rec.Report != nil {
		t.Errorf("report %+v for an interview left after one answer", rec.Report)
	}
	if want := "\nNo report: one is written for a completed interview, or one left after at least three answers.\n"; !strings.HasSuffix(out, want) {
		t.Errorf("output does not end with %q:\n%s", want, out)
	}
}

// TestChatTemplateAndFiles: viva chat with a role template, a résumé and
// a job description runs offline to the end and fills the record with
// them as the web app's registration does.
func TestChatTemplateAndFiles(t *testing.T) {
	dir := t.TempDir()
	resume := filepath.Join(dir, "resume.md")
	jd := filepath.Join(dir, "job.md")
	resumeText := "# Grace Hopper\n\nSenior engineer. Eight years of Go and PostgreSQL, payments at scale."
	if err := os.WriteFile(resume, []byte(resumeText+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(jd, []byte("\xef\xbb\xbf# Senior full-stack engineer\r\n\r\nReact, Go, PostgreSQL.\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The guide keeps the interviewer in its main stage while the template
	// and the job's skills give it questions, the template's twelve making
	// the stage 24 minutes longer: the candidate answers on until the
	// interview closes. The texts are kept past the report to be checked
	// here.
	answers := slices.Concat(pipedAnswers[:14], pipedAnswers[1:14], pipedAnswers[1:14], pipedAnswers[1:14], pipedAnswers[14:])
	out, rec := runChatWith(t, answers, 500*time.Millisecond, "--time-scale", "0.02", "--drop-texts-after-report=false",
		"--template", "fullstack-senior", "--resume", resume, "--jd", jd)
	if rec.Status != interviews.StatusCompleted {
		t.Fatalf("status %s (%s), want completed; output:\n%s", rec.Status, rec.EndedBy, out)
	}
	kinds := map[stages.QuestionKind]int{}
	for _, q := range rec.Questions {
		kinds[q.Context.Kind]++
	}
	if kinds[stages.KindTemplate] == 0 {
		t.Errorf("question kinds %v: want the template's questions asked; output:\n%s", kinds, out)
	}
	if rec.Template != "fullstack-senior" {
		t.Errorf("record template %q, want fullstack-senior", rec.Template)
	}
	if rec.ResumeText != resumeText || rec.ResumeSummary == "" || !strings.Contains(rec.ResumeSummary, "Roles: Senior engineer. Experience: Eight years of Go and PostgreSQL, payments at scale") {
		t.Errorf("résumé text %q, summary %q", rec.ResumeText, rec.ResumeSummary)
	}
	if rec.JobDescription != "# Senior full-stack engineer\n\nReact, Go, PostgreSQL." {
		t.Errorf("job description %q", rec.JobDescription)
	}
}

// TestChatInputErrors: a bad template, file or brief is a usage error
// naming the flag, before any interview starts.
func TestChatInputErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	brief := write("brief.md", []byte("# Payments\n- Why we retry twice\n"))
	empty := write("empty.md", []byte(" \n\n"))
	png := write("photo.pdf", []byte("\x89PNG\r\n\x1a\n\x00\x00"))
	latin := write("jd.txt", []byte("caf\xe9\x00"))
	badTemplate := write("role.md", []byte("# Role\n## Cat\n### What this assesses\nx\n"))
	long := write("long.md", []byte(strings.Repeat("x", maxBriefLen+1)))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--template", "nope"}, `--template: "nope" is neither a built-in role template, a role template of the library nor a readable file: choose one of ` + strings.Join(stages.TemplateNames(), ", ") + `, or give a .md file`},
		{[]string{"--blueprint", "system-design", "--problem", "elevator"}, `--problem elevator: blueprint "system-design" has no problem "elevator"; choose one of ticketing, ride-hailing, chat, url-shortener, notifications`},
		{[]string{"--problem", "chat"}, `--problem chat: blueprint "default" has no pool of problems to choose "chat" from: leave the problem out`},
		{[]string{"--template", badTemplate}, `role.md:3: "What this assesses" must follow a "### Question" block`},
		{[]string{"--resume", filepath.Join(dir, "missing.pdf")}, "--resume " + filepath.Join(dir, "missing.pdf") + ": cannot be read"},
		{[]string{"--resume", png}, "--resume " + png + ": Résumé must be a PDF, DOCX, TXT or Markdown file"},
		{[]string{"--resume", dir}, "is a directory"},
		{[]string{"--jd", empty}, "--jd " + empty + ": is empty"},
		{[]string{"--jd", latin}, "--jd " + latin + ": is not UTF-8 text"},
		{[]string{"--brief", brief}, `--brief is for knowledge-capture interviews, and blueprint "default" is not one: pass --blueprint knowledge-capture`},
		{[]string{"--blueprint", "system-design", "--brief", brief}, "pass --blueprint knowledge-capture"},
		{[]string{"--blueprint", "knowledge-capture"}, `blueprint "knowledge-capture" captures knowledge from a brief: pass --brief FILE`},
		{[]string{"--blueprint", "knowledge-capture", "--brief", long}, "--brief " + long + ": has 20001 characters; shorten it to at most 20000"},
	} {
		var out, errOut bytes.Buffer
		t.Setenv("VIVA_DATA_DIR", t.TempDir())
		args := append([]string{"chat", "--name", "Ada"}, tc.args...)
		code := run(context.Background(), args, strings.NewReader(""), &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, errOut.String(), tc.want)
		}
	}
}

// TestChatKnowledgeCaptureBrief: a knowledge-capture interview keeps its
// brief in the record.
func TestChatKnowledgeCaptureBrief(t *testing.T) {
	brief := filepath.Join(t.TempDir(), "handover.md")
	if err := os.WriteFile(brief, []byte("# Payments\n\n- Why refunds retry twice\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, rec := runChatWith(t, pipedAnswers[:2], 50*time.Millisecond, "--blueprint", "knowledge-capture", "--brief", brief)
	if rec.Blueprint != stages.KnowledgeCaptureName || rec.Brief != "# Payments\n\n- Why refunds retry twice" {
		t.Errorf("blueprint %q, brief %q", rec.Blueprint, rec.Brief)
	}
}

// TestChatSystemDesignProblem: viva chat --problem runs the system-design
// interview on that problem of the pool: the interviewer presents it and
// the record names it.
func TestChatSystemDesignProblem(t *testing.T) {
	out, rec := runChatWith(t, pipedAnswers[:4], 300*time.Millisecond, "--time-scale", "0.05", "--blueprint", "system-design", "--problem", "url-shortener")
	if rec.Problem != "url-shortener" || rec.Blueprint != "system-design" {
		t.Errorf("record blueprint %q, problem %q; want system-design on url-shortener", rec.Blueprint, rec.Problem)
	}
	if !strings.Contains(out, "design a link shortening service like bit.ly") {
		t.Errorf("the interviewer did not present the problem:\n%s", out)
	}
}
