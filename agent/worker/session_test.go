package worker_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/agent/llm"
	oaillm "github.com/viva-interviews/viva/agent/llm/openai"
	"github.com/viva-interviews/viva/agent/llm/scripted"
	"github.com/viva-interviews/viva/agent/stt"
	dgstt "github.com/viva-interviews/viva/agent/stt/deepgram"
	"github.com/viva-interviews/viva/agent/stt/sphinx"
	"github.com/viva-interviews/viva/agent/tts"
	"github.com/viva-interviews/viva/agent/tts/flite"
	oaitts "github.com/viva-interviews/viva/agent/tts/openai"
	"github.com/viva-interviews/viva/agent/worker"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/internal/metrics"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/stages"
	"github.com/viva-interviews/viva/testrig/candidatebot"
	"github.com/viva-interviews/viva/testrig/fakedeepgram"
	"github.com/viva-interviews/viva/testrig/fakeopenai"
	"github.com/viva-interviews/viva/testrig/lktest"
	"github.com/viva-interviews/viva/testrig/promscrape"
	"github.com/viva-interviews/viva/testrig/workertest"

	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
)

// harness is one livekit-server, one worker holding spoken interviews, and
// the interview store it writes.
type harness struct {
	lk    *lktest.Server
	store interviews.Store
	agent string
}

// startHarness starts a server and a worker with the given engines.
func startHarness(t *testing.T, sessions *worker.Sessions) *harness {
	t.Helper()
	lk := lktest.Start(t)
	store, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	log := testLogger(t)
	sessions.Store = store
	sessions.Rooms = lk.RoomClient()
	sessions.Logger = log
	h := &harness{lk: lk, store: store, agent: "viva-test-" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))}
	workertest.Run(t, lk, h.agent, sessions, log)
	return h
}

func testLogger(t *testing.T) *slog.Logger {
	level := slog.LevelWarn
	if os.Getenv("VIVA_TEST_LOG") != "" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})).With("test", t.Name())
}

// join dispatches the interviewer to a new room by the candidate's token and
// joins as the candidate.
func (h *harness) join(t *testing.T, ctx context.Context, meta map[string]string) (*candidatebot.Bot, string) {
	t.Helper()
	room := fmt.Sprintf("interview-%d", time.Now().UnixNano())
	b, _ := json.Marshal(meta)
	bot, err := candidatebot.Join(ctx, candidatebot.Options{URL: h.lk.URL, Logger: testLogger(t),
		Token: h.lk.Token("candidate-"+room, room, lktest.WithAgentDispatch(h.agent, string(b)), lktest.WithName(meta["name"]))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bot.Leave)
	return bot, room
}

// record waits for the room's record to satisfy done and returns it.
func (h *harness) record(t *testing.T, ctx context.Context, room string, done func(*interviews.Record) bool) *interviews.Record {
	t.Helper()
	var last *interviews.Record
	for ctx.Err() == nil {
		page, err := h.store.List(ctx, interviews.ListOptions{})
		if err == nil {
			for _, s := range page.Items {
				if s.Room == room {
					if rec, err := h.store.Get(ctx, s.ID); err == nil {
						last = rec
						if done(rec) {
							return rec
						}
					}
				}
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("record of %s never reached the expected state; last: %s", room, dump(last))
	return nil
}

func dump(rec *interviews.Record) string {
	if rec == nil {
		return "none"
	}
	b, _ := json.MarshalIndent(rec, "", " ")
	return string(b)
}

func finished(r *interviews.Record) bool { return r.Status.Finished() }

// current takes the record as it is saved now.
func current(*interviews.Record) bool { return true }

// answer waits for the agent to finish speaking, then says text.
func answer(t *testing.T, ctx context.Context, bot *candidatebot.Bot, text string) {
	t.Helper()
	if err := bot.WaitAgentSpeech(ctx, 300*time.Millisecond); err != nil {
		t.Fatalf("the agent did not speak before %q: %v", text, err)
	}
	if err := bot.WaitAgentSilence(ctx, 700*time.Millisecond); err != nil {
		t.Fatalf("the agent did not stop speaking: %v", err)
	}
	if err := bot.SayText(ctx, text); err != nil {
		t.Fatalf("saying %q: %v", text, err)
	}
}

var (
	flt      *flite.Engine
	sph      *sphinx.Engine
	initOnce sync.Once
	initErr  error
)

func offlineEngines(t *testing.T) (tts.Engine, stt.Engine) {
	initOnce.Do(func() {
		if flt, initErr = flite.New(flite.Options{}); initErr != nil {
			return
		}
		sph, initErr = sphinx.New(sphinx.Options{})
	})
	if initErr != nil {
		t.Fatal(initErr)
	}
	return flt, sph
}

func scriptedLLM(m *fsm.Machine, bp *stages.Blueprint, p stages.Profile) llm.Client {
	return scripted.New(m, bp, p)
}

// TestOfflineInterviewAdvances runs with no fakes at all: the scripted
// interviewer, pocketsphinx and flite. The worker is dispatched by the
// candidate's token, greets with audible speech, recognises the bot's
// spoken answer (keywords, not exact text) and moves on to the next stage.
// startOfflineInterview starts a worker on the offline engines with a
// scripted interviewer and joins Ada as the candidate; the context ends
// with the test, or after two minutes.
func startOfflineInterview(t *testing.T) (context.Context, *harness, *candidatebot.Bot, string) {
	t.Helper()
	synth, rec := offlineEngines(t)
	h := startHarness(t, &worker.Sessions{Engines: worker.Engines{Models: agent.Models{NewLLM: scriptedLLM}, STT: rec, TTS: synth,
		Names: interviews.Engines{LLM: "scripted", STT: "sphinx", TTS: "flite"}}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	bot, room := h.join(t, ctx, map[string]string{"name": "Ada Lovelace", "role": "Backend engineer", "level": "senior"})
	return ctx, h, bot, room
}

func TestOfflineInterviewAdvances(t *testing.T) {
	ctx, h, bot, room := startOfflineInterview(t)

	if _, err := bot.WaitAttribute(ctx, "lk.agent.state", func(v string) bool { return v == "listening" || v == "speaking" || v == "thinking" }); err != nil {
		t.Fatalf("agent state never set: %v", err)
	}
	if _, err := bot.WaitAttribute(ctx, "viva.stage", func(v string) bool { return v == "greeting" }); err != nil {
		t.Fatalf("stage attribute: %v", err)
	}
	answer(t, ctx, bot, "Yes, I can hear you clearly, and I am ready to begin.")
	if _, err := bot.WaitAttribute(ctx, "viva.stage", func(v string) bool { return v == "intro" }); err != nil {
		t.Fatalf("the interview did not advance to intro: %v; attributes %v", err, bot.AgentAttributes())
	}
	got := h.record(t, ctx, room, func(r *interviews.Record) bool {
		for _, turn := range r.Turns {
			if turn.Role == interviews.RoleCandidate {
				return true
			}
		}
		return false
	})
	var heard string
	for _, turn := range got.Turns {
		if turn.Role == interviews.RoleCandidate {
			heard = strings.ToLower(turn.Text)
		}
	}
	if !strings.Contains(heard, "hear") && !strings.Contains(heard, "ready") {
		t.Errorf("sphinx heard %q; want the keywords hear or ready", heard)
	}
	if got.Engines == nil || got.Engines.STT != "sphinx" {
		t.Errorf("engines %+v", got.Engines)
	}
	if agentCaps := bot.FinalCaptions(bot.AgentIdentity()); len(agentCaps) == 0 {
		t.Error("no final agent captions")
	}
	if mine := bot.FinalCaptions(bot.Identity()); len(mine) == 0 {
		t.Error("no final caption of the candidate's words under the candidate's identity")
	}
}

// fakes are the local OpenAI and Deepgram servers and the real clients
// pointed at them.
type fakes struct {
	oai *fakeopenai.Server
	dg  *fakedeepgram.Server
}

func startFakes(t *testing.T, transcripts []string, policy func(fakeopenai.Request) fakeopenai.Reply) (*fakes, *worker.Sessions) {
	t.Helper()
	f := &fakes{oai: fakeopenai.New(), dg: fakedeepgram.New()}
	t.Cleanup(f.oai.Close)
	t.Cleanup(f.dg.Close)
	f.dg.ScriptTranscripts(transcripts...)
	f.oai.ChatFunc(policy)
	model, err := oaillm.New(oaillm.Options{APIKey: fakeopenai.Key, BaseURL: f.oai.URL, Model: "gpt-test"})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := dgstt.New(dgstt.Options{APIKey: fakedeepgram.Key, URL: f.dg.URL})
	if err != nil {
		t.Fatal(err)
	}
	synth, err := oaitts.New(oaitts.Options{APIKey: fakeopenai.Key, BaseURL: f.oai.URL})
	if err != nil {
		t.Fatal(err)
	}
	return f, &worker.Sessions{Engines: worker.Engines{
		Models: agent.Models{NewLLM: func(*fsm.Machine, *stages.Blueprint, stages.Profile) llm.Client { return model }},
		STT:    rec, TTS: synth,
		Names: interviews.Engines{LLM: "openai:gpt-test", STT: "deepgram", TTS: "openai"},
	}}
}

// interviewerPolicy plays a model that drives the interview with tools: it
// assesses every answer and asks to move on; when refused it asks the next
// question; it says the question once registered; in the last stage it
// closes.
func interviewerPolicy(greeting string) func(fakeopenai.Request) fakeopenai.Reply {
	questions := []string{
		"Can you hear me well?",
		"What do you do at the moment?",
		"Why did you apply for this role?",
		"Which project are you proudest of?",
		"What was the hardest bug you fixed?",
		"How do you handle disagreements in a team?",
		"How do you decide what to work on first?",
		"What mistake taught you the most?",
		"How do you keep learning new skills?",
		"What does a great manager do for you?",
		"How do you test your code before release?",
		"Where do you want to grow next?",
	}
	var mu sync.Mutex
	next := 0
	// A question is one response: the greeting (first) as text, the
	// question in ask_question, which viva says once it is accepted.
	ask := func() fakeopenai.Reply {
		q := questions[next%len(questions)]
		text := ""
		if next == 0 {
			text = greeting
		}
		next++
		return fakeopenai.Reply{Text: text, ToolCalls: []fakeopenai.ToolCall{{Name: "ask_question", Arguments: fmt.Sprintf(`{"question":%q}`, q)}}}
	}
	closing := fakeopenai.Reply{Text: "Thank you for your time today. The team will be in touch soon. Goodbye!"}
	return func(req fakeopenai.Request) fakeopenai.Reply {
		mu.Lock()
		defer mu.Unlock()
		msgs := req.Messages
		last := msgs[len(msgs)-1]
		system := msgs[0].Content
		inClosing := strings.Contains(system, "(closing)")
		switch last.Role {
		case "tool":
			// The calls these results answer.
			i := len(msgs) - 1
			for i >= 0 && msgs[i].Role == "tool" {
				i--
			}
			results := map[string]map[string]any{}
			for _, m := range msgs[i+1:] {
				var r map[string]any
				_ = json.Unmarshal([]byte(m.Content), &r)
				results[m.ToolCallID] = r
			}
			for _, call := range msgs[i].ToolCalls {
				r := results[call.ID]
				ok, _ := r["ok"].(bool)
				switch call.Name {
				case "transition_stage":
					if ok && r["stage"] == "closing" {
						return closing
					}
					return ask()
				case "ask_question":
					if !ok {
						return ask()
					}
				}
			}
			return ask()
		case "user":
			if inClosing {
				return closing
			}
			return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{
				{Name: "assess_response", Arguments: `{"depth_score":3,"key_points":["answered"]}`},
				{Name: "transition_stage", Arguments: `{"reason":"answered"}`},
			}}
		default:
			if inClosing {
				return closing
			}
			return ask()
		}
	}
}

var fullAnswers = []string{
	"Yes, I can hear you well.",
	"I build payment systems in Go.",
	"I like the product and the team.",
	"I led our ledger migration.",
	"A race condition in our retries.",
	"I write down the options and we decide.",
	"I look at customer impact first.",
	"Shipping a migration without a backfill.",
	"I read papers and build small tools.",
	"They give clear goals and trust.",
	"Unit tests and staged rollouts.",
	"Toward technical leadership.",
}

// answerUntilTheEnd answers each of the interviewer's turns with the next
// of answers until the closing stage, the room closes or the answers run
// out, then waits for the room to be deleted; it returns how many answers
// were said.
func answerUntilTheEnd(t *testing.T, ctx context.Context, bot *candidatebot.Bot, answers []string) int {
	t.Helper()
	said := 0
	for _, a := range answers {
		select {
		case <-bot.Disconnected():
		default:
			if err := bot.WaitAgentSpeech(ctx, 300*time.Millisecond); err != nil {
				break
			}
			if err := bot.WaitAgentSilence(ctx, 700*time.Millisecond); err != nil {
				break
			}
			if stage := bot.AgentAttributes()["viva.stage"]; stage == "closing" {
				break
			}
			if err := bot.SayText(ctx, a); err != nil {
				if errors.Is(err, candidatebot.ErrDisconnected) {
					break // the closing words ended the interview as the bot began to answer
				}
				t.Fatalf("saying %q: %v", a, err)
			}
			said++
			continue
		}
		break
	}
	select {
	case <-bot.Disconnected():
	case <-ctx.Done():
		t.Fatalf("the room was not deleted at the end; attributes %v", bot.AgentAttributes())
	}
	return said
}

// TestFullInterviewWithProviderFakes holds a whole spoken interview through
// all four stages against the fake OpenAI (streamed chat with tool calls,
// pcm speech) and the fake Deepgram (transcripts for the utterances it
// hears): captions of both speakers arrive under their own identities, the
// record is completed with every turn, and the room is deleted at the end.
func TestFullInterviewWithProviderFakes(t *testing.T) {
	_, sessions := startFakes(t, fullAnswers, interviewerPolicy("Hello Ada, welcome to your interview."))
	sessions.TimeScale = 0.2
	reg := metrics.NewRegistry()
	sessions.Metrics = metrics.NewWorker(reg)
	scrape := httptest.NewServer(metrics.Handler(reg))
	defer scrape.Close()
	h := startHarness(t, sessions)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bot, room := h.join(t, ctx, map[string]string{"name": "Ada Lovelace", "role": "Backend engineer", "level": "senior"})
	agentID, err := bot.WaitAgent(ctx) // known now: the agent is gone once the room is deleted
	if err != nil {
		t.Fatal(err)
	}

	said := answerUntilTheEnd(t, ctx, bot, fullAnswers)
	if reason := bot.DisconnectReason().String(); reason != "ROOM_DELETED" {
		t.Errorf("disconnect reason %s, want ROOM_DELETED", reason)
	}
	rec := h.record(t, ctx, room, finished)
	if rec.Status != interviews.StatusCompleted || rec.EndedBy != interviews.EndedClosingDelivered {
		t.Fatalf("status %s by %s, want completed by closing_delivered\n%s", rec.Status, rec.EndedBy, dump(rec))
	}
	var order []string
	for _, v := range rec.Stages {
		order = append(order, v.Name)
	}
	if got := strings.Join(order, ","); got != "greeting,intro,experience,closing" {
		t.Errorf("stages %s", got)
	}
	var heard []string
	agentTurns, measured := 0, 0
	for _, turn := range rec.Turns {
		switch turn.Role {
		case interviews.RoleCandidate:
			heard = append(heard, turn.Text)
		case interviews.RoleAgent:
			agentTurns++
			if m := turn.Metrics; m != nil && m.EndToEndMs > 0 && m.LLMFirstTokenMs > 0 && m.TTSFirstByteMs > 0 && m.EndOfUtteranceMs > 0 {
				measured++
			}
		}
	}
	if got, want := strings.Join(heard, "|"), strings.Join(fullAnswers[:said], "|"); got != want {
		t.Errorf("candidate turns\n %q\nwant\n %q", got, want)
	}
	if measured == 0 {
		t.Errorf("no agent turn carries end-to-end, LLM, TTS and endpointing metrics")
	}
	// The worker's /metrics counted the interview as it was saved.
	m := promscrape.Get(t, scrape.URL)
	if got := m.Sum("viva_turns_total", `role="agent"`); got != float64(agentTurns) {
		t.Errorf("viva_turns_total{role=agent} = %g, want the record's %d agent turns", got, agentTurns)
	}
	if got := m.Sum("viva_turns_total", `role="candidate"`); got != float64(len(heard)) {
		t.Errorf("viva_turns_total{role=candidate} = %g, want %d", got, len(heard))
	}
	for _, phase := range []string{metrics.PhaseEndOfUtterance, metrics.PhaseLLMFirstToken, metrics.PhaseTTSFirstByte, metrics.PhaseEndToEnd} {
		if got := m.Sum("viva_turn_latency_seconds_count", `phase="`+phase+`"`); got < float64(measured) {
			t.Errorf("viva_turn_latency_seconds_count{phase=%s} = %g, want at least %d", phase, got, measured)
		}
	}
	if m.Sum("viva_record_saves_total") < float64(len(rec.Turns)) || m.Sum("viva_record_save_failures_total") != 0 {
		t.Errorf("record saves %g (failures %g), want one at least per turn and none failed",
			m.Sum("viva_record_saves_total"), m.Sum("viva_record_save_failures_total"))
	}
	// Captions: each under its speaker's identity, the candidate's on its microphone track.
	var mine []string
	for _, c := range bot.FinalCaptions(bot.Identity()) {
		mine = append(mine, c.Text)
		if c.TrackID != bot.MicTrackID() {
			t.Errorf("candidate caption %q on track %q, want %q", c.Text, c.TrackID, bot.MicTrackID())
		}
	}
	if len(mine) < said {
		t.Errorf("%d final candidate captions under the candidate's identity, want %d: %q", len(mine), said, mine)
	}
	agentCaps := bot.FinalCaptions(agentID)
	if len(agentCaps) < agentTurns-1 {
		t.Errorf("%d final agent captions, want about %d", len(agentCaps), agentTurns)
	}
	for _, c := range agentCaps {
		for _, a := range fullAnswers {
			if c.Text == a {
				t.Errorf("the candidate's words %q were captioned as the agent's", a)
			}
		}
	}
	if len(bot.LegacyTranscriptions()) == 0 {
		t.Error("no legacy transcription packets")
	}
	stagesSeen := map[string]bool{}
	for _, ev := range bot.Events() {
		if ev["type"] == "stage_change" {
			stagesSeen[fmt.Sprint(ev["stage"])] = true
		}
	}
	if len(stagesSeen) != 4 {
		t.Errorf("stage_change events for %v, want all four stages", stagesSeen)
	}
	if _, err := bot.WaitEvent(ctx, "interview_ending"); err != nil {
		t.Errorf("no interview_ending event: %v", err)
	}
}

// TestBargeIn: the candidate speaks over a long greeting; the agent's audio
// stops and the turn is saved interrupted with only what was played.
func TestBargeIn(t *testing.T) {
	long := "Hello Ada, welcome to your interview today. I will start with a short introduction of how this works. " +
		"First we will talk about you and your background. Then we will go through your experience in some depth. " +
		"At the end there will be time for your questions and for next steps. It should take about fifteen minutes in total."
	_, sessions := startFakes(t, []string{"Sorry to interrupt, can we start?"}, interviewerPolicy(long))
	h := startHarness(t, sessions)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bot, room := h.join(t, ctx, map[string]string{"name": "Ada Lovelace", "role": "Backend engineer"})
	if err := bot.WaitAgentSpeech(ctx, 1500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	speech, err := bot.Speech(ctx, "Sorry to interrupt, can we start?")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := bot.Say(ctx, speech); err != nil {
		t.Fatal(err)
	}
	lastVoiced := bot.AgentAudio().LastVoicedAt
	if lastVoiced.IsZero() {
		t.Fatal("no agent audio")
	}
	if d := lastVoiced.Sub(start); d > 2*time.Second {
		t.Errorf("agent audio continued %v after the candidate started speaking", d)
	}
	rec := h.record(t, ctx, room, func(r *interviews.Record) bool {
		return len(r.Turns) > 0 && r.Turns[0].Interrupted
	})
	first := rec.Turns[0]
	if first.Role != interviews.RoleAgent || !first.Interrupted || len(first.Text) >= len(long) || !strings.HasPrefix(long, strings.TrimSuffix(first.Text, ".")[:min(10, len(first.Text))]) {
		t.Errorf("interrupted turn %+v", first)
	}
	if len(first.QuestionIDs) != 0 {
		t.Errorf("a question cut off before it was said counted as spoken: %v", first.QuestionIDs)
	}
}

// leaveAfterFirstAnswer joins a candidate who answers the greeting, hears
// the next question through and leaves; it returns the room.
func leaveAfterFirstAnswer(t *testing.T, ctx context.Context, h *harness) string {
	t.Helper()
	bot, room := h.join(t, ctx, map[string]string{"name": "Ada Lovelace", "role": "Backend engineer"})
	answerThenLeave(t, ctx, bot)
	return room
}

// answerThenLeave gives the first answer, hears the reply out and leaves.
func answerThenLeave(t *testing.T, ctx context.Context, bot *candidatebot.Bot) {
	t.Helper()
	answer(t, ctx, bot, fullAnswers[0])
	if err := bot.WaitAgentSpeech(ctx, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := bot.WaitAgentSilence(ctx, 700*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	bot.Leave()
}

// TestCandidateLeavesMidStage: the record is saved candidate_left at once
// with everything said so far.
func TestCandidateLeavesMidStage(t *testing.T) {
	_, sessions := startFakes(t, fullAnswers, interviewerPolicy(""))
	h := startHarness(t, sessions)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	room := leaveAfterFirstAnswer(t, ctx, h)
	rec := h.record(t, ctx, room, finished)
	if rec.Status != interviews.StatusCandidateLeft || rec.EndedBy != interviews.EndedCandidateLeft {
		t.Fatalf("status %s by %s", rec.Status, rec.EndedBy)
	}
	var roles []string
	for _, turn := range rec.Turns {
		roles = append(roles, string(turn.Role))
	}
	if got := strings.Join(roles, ","); got != "agent,candidate,agent" {
		t.Errorf("turns %s, want agent,candidate,agent\n%s", got, dump(rec))
	}
	if rec.Turns[1].Text != fullAnswers[0] {
		t.Errorf("candidate turn %q", rec.Turns[1].Text)
	}
}

// TestBadDispatchMetadataFailsCleanly: metadata that names no interview is
// rejected with a failed job, and no record is written.
func TestBadDispatchMetadataFailsCleanly(t *testing.T) {
	synth, rec := offlineEngines(t)
	h := startHarness(t, &worker.Sessions{Engines: worker.Engines{Models: agent.Models{NewLLM: scriptedLLM}, STT: rec, TTS: synth}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _ = h.join(t, ctx, map[string]string{"nonsense": "1"})
	h.lk.WaitLog(t, 30*time.Second, "dispatch metadata")
	page, err := h.store.List(ctx, interviews.ListOptions{})
	if err != nil || page.Total != 0 {
		t.Errorf("records after a rejected job: %d (%v)", page.Total, err)
	}
}

// TestCandidateLeavesWhileAgentSpeaks: the words the agent had played when
// the candidate left are saved, as an interrupted turn.
func TestCandidateLeavesWhileAgentSpeaks(t *testing.T) {
	long := "Hello Ada, welcome to your interview today. I will start with a short introduction of how this works. " +
		"First we will talk about you and your background. Then we will go through your experience in some depth."
	_, sessions := startFakes(t, fullAnswers, interviewerPolicy(long))
	h := startHarness(t, sessions)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bot, room := h.join(t, ctx, map[string]string{"name": "Ada Lovelace", "role": "Backend engineer"})
	if err := bot.WaitAgentSpeech(ctx, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	bot.Leave()
	rec := h.record(t, ctx, room, finished)
	if rec.Status != interviews.StatusCandidateLeft {
		t.Fatalf("status %s", rec.Status)
	}
	if len(rec.Turns) != 1 || !rec.Turns[0].Interrupted || !strings.HasPrefix(rec.Turns[0].Text, "Hello Ada, welcome") || len(rec.Turns[0].Text) >= len(long) {
		t.Errorf("turns after leaving mid-greeting: %s", dump(rec))
	}
}

// TestCandidateRejoins: a candidate who drops out is saved candidate_left
// at once; when they come back (here under a new identity, as after a
// crashed browser) the interviewer welcomes them back, repeats the question
// they last heard, and the interview goes on.
func TestCandidateRejoins(t *testing.T) {
	_, sessions := startFakes(t, fullAnswers, interviewerPolicy(""))
	sessions.RejoinGrace = time.Minute
	h := startHarness(t, sessions)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	room := leaveAfterFirstAnswer(t, ctx, h)
	left := h.record(t, ctx, room, finished)
	if left.Status != interviews.StatusCandidateLeft || !left.CanRejoin(time.Now()) || len(left.Turns) != 3 {
		t.Fatalf("as the candidate left: %s", dump(left))
	}
	lastQuestion := left.Turns[2].Text

	back, err := candidatebot.Join(ctx, candidatebot.Options{URL: h.lk.URL, Logger: testLogger(t),
		Token: h.lk.Token("candidate-again-"+room, room, lktest.WithName("Ada Lovelace"))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(back.Leave)
	welcome, err := back.WaitCaption(ctx, func(c candidatebot.Caption) bool {
		return c.Final && strings.HasPrefix(c.Text, "Welcome back, Ada.")
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(welcome.Text, "I was asking: ") || !strings.Contains(lastQuestion, strings.TrimSpace(strings.SplitN(welcome.Text, "I was asking: ", 2)[1])) {
		t.Errorf("welcome back %q does not repeat the last question %q", welcome.Text, lastQuestion)
	}
	// The interview goes on with the candidate's new microphone (the final
	// caption comes once the welcome has been played).
	if err := back.WaitAgentSilence(ctx, 700*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := back.SayText(ctx, fullAnswers[1]); err != nil {
		t.Fatal(err)
	}
	rec := h.record(t, ctx, room, func(r *interviews.Record) bool {
		n := len(r.Turns)
		return n >= 6 && r.Turns[n-1].Role == interviews.RoleAgent && r.Turns[n-2].Role == interviews.RoleCandidate
	})
	if rec.Status != interviews.StatusInProgress || rec.EndedAt != nil || rec.RejoinUntil != nil {
		t.Errorf("after rejoining: status %s, ended %v, rejoin until %v", rec.Status, rec.EndedAt, rec.RejoinUntil)
	}
	if len(rec.Absences) != 1 || rec.Absences[0].BackAt == nil {
		t.Errorf("absences %+v", rec.Absences)
	}
	if w := rec.Turns[3]; w.Role != interviews.RoleAgent || w.Source != "rejoin" || w.Text != welcome.Text {
		t.Errorf("turn 4 is not the welcome back: %+v", w)
	}
	if got := rec.Turns[4].Text; got != fullAnswers[1] {
		t.Errorf("the answer after rejoining was heard as %q, want %q", got, fullAnswers[1])
	}
}

// greetedWithRejoinGrace starts an interview against the provider fakes
// with the given rejoin grace and returns once the candidate hears the
// greeting.
func greetedWithRejoinGrace(t *testing.T, ctx context.Context, grace time.Duration) (*harness, *candidatebot.Bot, string) {
	t.Helper()
	_, sessions := startFakes(t, fullAnswers, interviewerPolicy(""))
	sessions.RejoinGrace = grace
	h := startHarness(t, sessions)
	bot, room := h.join(t, ctx, map[string]string{"name": "Ada Lovelace", "role": "Backend engineer"})
	if err := bot.WaitAgentSpeech(ctx, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	return h, bot, room
}

// TestCandidateDoesNotComeBack: past the rejoin grace the interview is over
// for good: the window closes and the job ends.
func TestCandidateDoesNotComeBack(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	h, bot, room := greetedWithRejoinGrace(t, ctx, time.Second)
	agentID := bot.AgentIdentity()
	bot.Leave()
	rec := h.record(t, ctx, room, func(r *interviews.Record) bool { return r.Status.Finished() && r.RejoinUntil == nil })
	if rec.Status != interviews.StatusCandidateLeft || rec.EndedBy != interviews.EndedCandidateLeft || len(rec.Absences) != 1 || rec.Absences[0].BackAt != nil {
		t.Errorf("after the grace: %s", dump(rec))
	}
	h.lk.WaitLog(t, 30*time.Second, "job ended", agentID[len("agent-"):])
}

// TestCandidateEndsInterview: the room page's End button calls the
// interviewer before leaving; the interview is then over for good (no
// rejoin window), saved as the candidate's request, and the room is
// deleted. Nobody else in the room can end it.
func TestCandidateEndsInterview(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	h, bot, room := greetedWithRejoinGrace(t, ctx, time.Minute)
	agentID := bot.AgentIdentity()
	end := func(b *candidatebot.Bot) (*string, error) {
		return b.Room().LocalParticipant.PerformRpc(lksdk.PerformRpcParams{
			DestinationIdentity: agentID, Method: worker.RPCEndInterview})
	}

	observer, err := candidatebot.Join(ctx, candidatebot.Options{URL: h.lk.URL, Logger: testLogger(t),
		Token: h.lk.Token("observer-"+room, room, lktest.WithName("Observer"))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(observer.Leave)
	if _, err := end(observer); err == nil {
		t.Fatal("someone other than the candidate ended the interview")
	}
	if rec := h.record(t, ctx, room, current); rec.Status != interviews.StatusInProgress {
		t.Fatalf("after a refused end request: %s", dump(rec))
	}

	resp, err := end(bot)
	if err != nil || resp == nil || *resp != "saved" {
		t.Fatalf("end request: %v, %v", resp, err)
	}
	// The answer comes once the record is saved: no waiting needed.
	saved := h.record(t, ctx, room, current)
	if saved.Status != interviews.StatusCandidateLeft || saved.EndedBy != interviews.EndedCandidateRequest ||
		saved.RejoinUntil != nil || saved.CanRejoin(time.Now()) || len(saved.Absences) != 0 {
		t.Errorf("ended by the candidate: %s", dump(saved))
	}
	select {
	case <-bot.Disconnected():
	case <-ctx.Done():
		t.Fatal("the room was not deleted after the candidate ended the interview")
	}
	if r := bot.DisconnectReason(); r != livekit.DisconnectReason_ROOM_DELETED {
		t.Errorf("candidate disconnected by %s, want ROOM_DELETED", r)
	}
}
