package worker_test

import (
	"strings"
	"testing"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/viva-interviews/viva/agent/worker"
	"github.com/viva-interviews/viva/interviews"
)

func TestDecodeSignal(t *testing.T) {
	at := time.Now()
	for _, tc := range []struct {
		in, err string
	}{
		{`{"kind":"focus_lost","ms":42000}`, ""},
		{`{"kind":"paste","chars":230}`, ""},
		{`{"kind":"focus_lost"}`, "ms above 0"},
		{`{"kind":"paste","chars":0}`, "chars above 0"},
		{`{"kind":"paste","chars":12,"ms":5}`, "no ms"},
		{`{"kind":"long_silence","ms":9000}`, "reports only"},
		{`{"kind":"focus_lost","ms":999999999999}`, "between 0"},
		{`{"kind":"paste","chars":3,"verdict":"cheat"}`, "unknown field"},
		{`not json`, "not a JSON object"},
		{`{"kind":"paste","chars":3,"pad":"` + strings.Repeat("x", worker.MaxSignalBytes) + `"}`, "at most"},
	} {
		s, err := worker.DecodeSignal([]byte(tc.in), at)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case tc.err == "" && (s.At != at || s.Turn != 0):
			t.Errorf("%s: decoded %+v", tc.in, s)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.in, err, tc.err)
		}
	}
}

// silence16kHz is d of digital silence, as a microphone sends between
// words.
func silence16kHz(d time.Duration) []int16 { return make([]int16, int(d.Seconds()*16000)) }

// TestSignalsBesideTheAnswer runs an interview with the offline engines
// through a real LiveKit server: the candidate's page reports a focus loss
// and a paste (and a report the interviewer must refuse), then the spoken
// bot stays silent for nine seconds after the question and reads a long
// answer in one breath. The record keeps the page's two reports, the long
// silence and the reading pace beside that answer, and nothing else.
func TestSignalsBesideTheAnswer(t *testing.T) {
	ctx, h, bot, room := startOfflineInterview(t)
	answer(t, ctx, bot, "Yes, I can hear you clearly, and I am ready to begin.")
	if _, err := bot.WaitAttribute(ctx, "viva.stage", func(v string) bool { return v == "intro" }); err != nil {
		t.Fatalf("the interview did not reach intro: %v", err)
	}
	if err := bot.WaitAgentSpeech(ctx, 300*time.Millisecond); err != nil {
		t.Fatalf("no question: %v", err)
	}
	if err := bot.WaitAgentSilence(ctx, 700*time.Millisecond); err != nil {
		t.Fatalf("the question did not end: %v", err)
	}
	for _, report := range []string{`{"kind":"focus_lost","ms":42000}`, `{"kind":"paste","chars":230}`, `{"kind":"long_silence","ms":1}`} {
		err := bot.Room().LocalParticipant.PublishDataPacket(lksdk.UserData([]byte(report)),
			lksdk.WithDataPublishTopic(worker.TopicSignals), lksdk.WithDataPublishReliable(true))
		if err != nil {
			t.Fatal(err)
		}
	}
	speech, err := bot.Speech(ctx, "I have spent the last eight years building payment systems in Go and Java "+
		"for banks and shops across Europe and I led the move of our ledger service to a sharded database "+
		"cluster with no downtime while mentoring two junior engineers and running our weekly design review "+
		"for the whole platform team")
	if err != nil {
		t.Fatal(err)
	}
	if err := bot.Say(ctx, append(silence16kHz(9*time.Second), speech...)); err != nil {
		t.Fatal(err)
	}
	got := h.record(t, ctx, room, func(r *interviews.Record) bool {
		for _, s := range r.Signals {
			if s.Kind == interviews.SignalLongSilence {
				return true
			}
		}
		return false
	})
	var answerSeq int
	for _, s := range got.Signals {
		t.Logf("signal %s beside turn %d: %s", s.Kind, s.Turn, s.Describe())
		if s.Kind == interviews.SignalLongSilence {
			answerSeq = s.Turn
		}
	}
	var kinds []string
	for _, s := range got.SignalsOf(answerSeq) {
		kinds = append(kinds, string(s.Kind))
	}
	if want := "focus_lost,paste,long_silence,reading_pace"; strings.Join(kinds, ",") != want {
		t.Errorf("signals beside the answer %v, want %s\n%s", kinds, want, dump(got))
	}
	for _, turn := range got.Turns {
		if turn.Seq == answerSeq && turn.Role != interviews.RoleCandidate {
			t.Errorf("the signals are beside turn %d of %s, want the candidate's answer", answerSeq, turn.Role)
		}
	}
	bot.Leave()
	h.record(t, ctx, room, finished)
}
