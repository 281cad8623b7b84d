package worker_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/agent/worker"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
	"github.com/viva-interviews/viva/testrig/fakeopenai"
)

// spanishAnswers are what Ana says, one per interviewer turn.
var spanishAnswers = []string{
	"Sí, le oigo bien.",
	"Construyo sistemas de pagos en Go.",
	"Me gustan el producto y el equipo.",
	"Dirigí la migración de nuestro libro contable.",
	"Una condición de carrera en los reintentos.",
	"Escribo las opciones y decidimos juntos.",
	"Miro primero el impacto en los clientes.",
	"Una migración sin rellenar los datos antiguos.",
	"Leo artículos y construyo herramientas pequeñas.",
	"Objetivos claros y confianza.",
	"Pruebas unitarias y despliegues por etapas.",
	"Hacia el liderazgo técnico.",
}

// TestSpanishInterview holds a spoken interview in Spanish against the
// fake OpenAI and the fake Deepgram: Deepgram is asked for language=es,
// every model request tells the model to hold the interview in Spanish
// and gives it the stage-change acknowledgements to say in Spanish; the
// sentence viva says itself when the candidate is silent is the Spanish
// catalogue's, no English fixed sentence is said, and the record keeps
// the language. (The questions are the fake model's own words.)
func TestSpanishInterview(t *testing.T) {
	f, sessions := startFakes(t, spanishAnswers, interviewerPolicy("Hola Ana, bienvenida a su entrevista."))
	sessions.TimeScale = 0.2
	sessions.AwayAfter = 3 * time.Second
	h := startHarness(t, sessions)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bot, room := h.join(t, ctx, map[string]string{"name": "Ana García", "role": "Backend engineer", "language": "es"})
	// Ana hears the greeting and says nothing until the interviewer checks in.
	for _, wait := range []func() error{
		func() error { return bot.WaitAgentSpeech(ctx, 300*time.Millisecond) },
		func() error { return bot.WaitAgentSilence(ctx, 700*time.Millisecond) },
		func() error { return bot.WaitAgentSpeech(ctx, 300*time.Millisecond) },
	} {
		if err := wait(); err != nil {
			t.Fatal(err)
		}
	}
	answerUntilTheEnd(t, ctx, bot, spanishAnswers)
	rec := h.record(t, ctx, room, finished)
	if rec.Language != "es" || rec.Status != interviews.StatusCompleted {
		t.Errorf("record language %q, status %s; want es, completed", rec.Language, rec.Status)
	}
	qs := f.dg.Queries()
	if len(qs) == 0 {
		t.Fatal("Deepgram was never connected")
	}
	for _, q := range qs {
		if q.Get("language") != "es" {
			t.Errorf("Deepgram was asked for language=%q, want es", q.Get("language"))
		}
	}
	reqs := f.oai.ChatRequests()
	for i, r := range reqs {
		if sys := r.Messages[0].Content; !strings.Contains(sys, "hold this whole interview in Spanish") {
			t.Fatalf("model request %d does not tell the model to speak Spanish:\n%s", i, sys)
		}
	}
	var said []string
	for _, s := range f.oai.SpeechRequests() {
		said = append(said, s.Input)
	}
	all := strings.Join(said, " ") // said sentence by sentence
	if checkIn := lang.Text("es", lang.CheckIn); !strings.Contains(all, checkIn) {
		t.Errorf("the Spanish check-in %q was never said; said:\n%s", checkIn, all)
	}
	ack := fmt.Sprintf("Begin your reply by saying, once: %q", lang.Text("es", lang.AckNext))
	if !slices.ContainsFunc(reqs, func(r fakeopenai.Request) bool { return strings.Contains(r.Messages[0].Content, ack) }) {
		t.Errorf("no model request asks for the Spanish stage-change acknowledgement (%s)", ack)
	}
	for _, k := range []lang.Key{lang.AckFirst, lang.AckNext, lang.AckLast, lang.Filler, lang.CheckIn} {
		if en := lang.Text("en", k); strings.Contains(all, en) {
			t.Errorf("the English %q was said in a Spanish interview", en)
		}
	}
	for _, en := range []string{"Thank you. Let's move on to", "Hello, and welcome."} {
		if strings.Contains(all, en) {
			t.Errorf("the blueprint's English %q was said in a Spanish interview", en)
		}
	}
}

// TestOfflineEnginesRefuseSpanish: a worker on the offline engines, which
// speak English only, refuses an interview in Spanish before any
// greeting, and tells the candidate why, in Spanish.
func TestOfflineEnginesRefuseSpanish(t *testing.T) {
	synth, rec := offlineEngines(t)
	h := startHarness(t, &worker.Sessions{Engines: worker.Engines{Models: agent.Models{NewLLM: scriptedLLM}, STT: rec, TTS: synth,
		Names: interviews.Engines{LLM: "scripted", STT: "sphinx", TTS: "flite"}}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bot, _ := h.join(t, ctx, map[string]string{"name": "Ana García", "role": "Backend engineer", "language": "es"})
	ev, err := bot.WaitEvent(ctx, string(worker.EventInterviewEnding))
	if err != nil {
		t.Fatalf("the candidate got no ending event: %v", err)
	}
	if msg, _ := ev["message"].(string); msg != lang.Text("es", lang.RefuseLanguage) {
		t.Errorf("the candidate was told %q, want the Spanish refusal", msg)
	}
	if voiced := bot.AgentAudio().Voiced; voiced != 0 {
		t.Errorf("the candidate heard %s of the interviewer; want no greeting", voiced)
	}
}
