package worker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent/llm"
	// oaillm "github.com/viva-interviews/viva/agent/llm/openai"
	"github.com/viva-interviews/viva/agent/llm/scripted"
	"github.com/viva-interviews/viva/agent/stt"
	// dgstt "github.com/viva-interviews/viva/agent/stt/deepgram"
	"github.com/viva-interviews/viva/agent/stt/sphinx"
	"github.com/viva-interviews/viva/agent/tts"
	"github.com/viva-interviews/viva/agent/tts/flite"
	// oaitts "github.com/viva-interviews/viva/agent/tts/openai"
	"github.com/viva-interviews/viva/agent/worker"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/internal/candidatebot"
	// "github.com/viva-interviews/viva/internal/fakedeepgram"
	// "github.com/viva-interviews/viva/internal/fakeopenai"
	"github.com/viva-interviews/viva/internal/lktest"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// harness is one livekit-server, one worker holding spoken interviews, and
// the interview store it writes.
type harness struct {
	lk    *lktest.Server
	store *interviews.Store
	agent string
}

// startHarness starts a server and a worker with the given engines.
func startHarness(t *testing.T, sessions *worker.Sessions) *harness {
	t.Helper()
	lk := lktest.Start(t)
	store, err := interviews.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	log := testLogger(t)
	sessions.Store = store
	sessions.Rooms = lk.RoomClient()
	sessions.Logger = log
	h := &harness{lk: lk, store: store, agent: "viva-test-" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))}
	w, err := worker.New(worker.Options{URL: lk.URL, APIKey: lk.APIKey, APISecret: lk.APISecret, AgentName: h.agent, Logger: log}, sessions)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	t.Cleanup(func() {
		sctx, c := context.WithTimeout(context.Background(), 10*time.Second)
		defer c()
		_ = w.Shutdown(sctx)
		cancel()
		<-done
	})
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
		page, err := h.store.List(interviews.ListOptions{})
		if err == nil {
			for _, s := range page.Items {
				if s.Room == room {
					if rec, err := h.store.Get(s.ID); err == nil {
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
func TestOfflineInterviewAdvances(t *testing.T) {
	synth, rec := offlineEngines(t)
	h := startHarness(t, &worker.Sessions{NewLLM: scriptedLLM, STT: rec, TTS: synth,
		Engines: interviews.Engines{LLM: "scripted", STT: "sphinx", TTS: "flite"}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bot, room := h.join(t, ctx, map[string]string{"name": "Ada Lovelace", "role": "Backend engineer", "level": "senior"})

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
