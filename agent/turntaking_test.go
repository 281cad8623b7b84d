package agent

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
)

func TestIsBackchannel(t *testing.T) {
	for _, s := range []string{"Mm-hm.", "yeah", "Okay.", "Right, right.", "uh-huh", "Sure!", "Yeah, okay."} {
		if !IsBackchannel(s) {
			t.Errorf("%q is a backchannel", s)
		}
	}
	for _, s := range []string{"", "Yeah, I led the migration.", "Right now I work on payments.", "no"} {
		if IsBackchannel(s) {
			t.Errorf("%q is not a backchannel", s)
		}
	}
}

func TestIsRepeatRequest(t *testing.T) {
	for _, s := range []string{"Sorry, could you repeat that?", "Could you repeat the question?", "What was the question again?", "Can you say that again, please?", "Pardon?"} {
		if !IsRepeatRequest(s) {
			t.Errorf("%q asks for a repeat", s)
		}
	}
	for _, s := range []string{"I led the migration.", "We had to repeat that deployment three times because the canary kept failing on the new nodes, which was painful."} {
		if IsRepeatRequest(s) {
			t.Errorf("%q is an answer", s)
		}
	}
}

func TestSplitPlayed(t *testing.T) {
	text := "Thanks for that. Tell me about a hard bug. What did you learn?"
	for _, c := range []struct{ played, heard, rest string }{
		{"", "", text},
		{"Thanks for", "", text},
		{"Thanks for that.", "Thanks for that.", "Tell me about a hard bug. What did you learn?"},
		{"Thanks for that. Tell me about", "Thanks for that.", "Tell me about a hard bug. What did you learn?"},
		{text, text, ""},
	} {
		heard, rest := splitPlayed(text, c.played)
		if heard != c.heard || rest != c.rest {
			t.Errorf("played %q: heard %q rest %q, want %q and %q", c.played, heard, rest, c.heard, c.rest)
		}
	}
}

// turnTaking is the record's turn-taking counters, never nil.
func turnTaking(l *Loop) interviews.TurnTaking {
	rec := l.Conductor().Recorder().Snapshot()
	if rec.TurnTaking == nil {
		return interviews.TurnTaking{}
	}
	return *rec.TurnTaking
}

// TestLoopBackchannelIsNotATurn: "mm-hm" while the interviewer speaks
// neither stops it nor makes a turn; it is counted on the turn and the
// interview.
func TestLoopBackchannelIsNotATurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ft, l, done := runLoop(t, t.Context(), 1, LoopOptions{FalseInterruptionTimeout: 2 * time.Second}, scriptedLLM)
		greet := ft.next(t)
		time.Sleep(3 * time.Second) // past the cut-off window
		ft.send(CandidateTurn{Text: "Mm-hm.", Source: SourceVoice, EndedAt: time.Now()})
		ft.quiet(t, "a backchannel is not a turn")
		select {
		case <-greet.cut:
			t.Fatal("the backchannel stopped the greeting")
		default:
		}
		greet.play()
		rec := l.Conductor().Recorder().Snapshot()
		if len(rec.Turns) != 1 || rec.Turns[0].Text != greet.text || rec.Turns[0].Interrupted {
			t.Errorf("turns %+v, want the greeting whole", rec.Turns)
		}
		if m := rec.Turns[0].Metrics; m == nil || m.BackchannelsIgnored != 1 {
			t.Errorf("greeting metrics %+v, want one backchannel", m)
		}
		if tt := turnTaking(l); tt.BackchannelsIgnored != 1 {
			t.Errorf("turn taking %+v", tt)
		}
		ft.send(InputEnded{})
		if err := ended(t, done); err != nil {
			t.Fatal(err)
		}
	})
}

// TestLoopFalseInterruptionResumes: a sound that stops the interviewer but
// brings no words within the timeout resumes the reply from the sentence
// it was in, saved whole and not interrupted; words make it a real
// interruption.
func TestLoopFalseInterruptionResumes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ft, l, done := runLoop(t, t.Context(), 1, LoopOptions{FalseInterruptionTimeout: 2 * time.Second}, scriptedLLM)
		greet := ft.next(t)
		ft.send(SpeechStarted{At: time.Now()})
		ft.send(BargeIn{})
		ft.send(SpeechEnded{})
		select {
		case <-greet.cut:
		default:
			t.Fatal("the barge-in did not stop the greeting")
		}
		time.Sleep(1900 * time.Millisecond)
		ft.quiet(t, "the timeout has not passed")
		time.Sleep(100 * time.Millisecond)
		cont := ft.next(t)
		if cont.text != greet.text {
			t.Errorf("resumed %q, want the greeting from its first sentence %q", cont.text, greet.text)
		}
		cont.play()
		rec := l.Conductor().Recorder().Snapshot()
		if got := agentTurns(rec); len(got) != 1 || got[0].Interrupted || got[0].Text != greet.text ||
			got[0].Metrics == nil || got[0].Metrics.FalseInterruptionsResumed != 1 {
			t.Errorf("agent turns %+v, want the greeting whole, resumed once", got)
		}
		if tt := turnTaking(l); tt.FalseInterruptionsResumed != 1 {
			t.Errorf("turn taking %+v", tt)
		}

		// A real interruption: words come.
		time.Sleep(3 * time.Second)
		ft.send(CandidateTurn{Text: answers[0], Source: SourceVoice, EndedAt: time.Now()})
		reply := ft.next(t)
		time.Sleep(3 * time.Second)
		ft.send(SpeechStarted{At: time.Now()})
		ft.send(BargeIn{})
		ft.send(Heard{Text: "sorry, one thing"})
		time.Sleep(5 * time.Second)
		ft.quiet(t, "words make a real interruption")
		ft.send(SpeechEnded{})
		ft.send(CandidateTurn{Text: "Sorry, one thing: I also lead the on-call rotation.", Source: SourceVoice, EndedAt: time.Now()})
		ft.next(t).play()
		rec = l.Conductor().Recorder().Snapshot()
		got := agentTurns(rec)
		first, _, _ := strings.Cut(reply.text, " ")
		if len(got) != 3 || !got[1].Interrupted || got[1].Text != first {
			t.Errorf("agent turns %+v, want the reply cut to %q", got, first)
		}
		if tt := turnTaking(l); tt.FalseInterruptionsResumed != 1 {
			t.Errorf("turn taking %+v", tt)
		}
		ft.send(InputEnded{})
		if err := ended(t, done); err != nil {
			t.Fatal(err)
		}
	})
}

// TestLoopCutOff: the candidate going on within a second of the reply
// starting stops it at once; when words follow the reply is dropped (not
// saved, counted) and the next turn is answered.
func TestLoopCutOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ft, l, done := runLoop(t, t.Context(), 1, LoopOptions{FalseInterruptionTimeout: 2 * time.Second}, scriptedLLM)
		ft.next(t).play()
		ft.send(CandidateTurn{Text: "I think the main reason was", Source: SourceVoice, EndedAt: time.Now()})
		early := ft.next(t)
		time.Sleep(500 * time.Millisecond)
		ft.send(SpeechStarted{At: time.Now()})
		select {
		case <-early.cut:
		default:
			t.Fatal("the reply went on over the candidate")
		}
		ft.send(Heard{Text: "latency"})
		ft.send(SpeechEnded{})
		ft.send(CandidateTurn{Text: "latency in the payment path.", Source: SourceVoice, EndedAt: time.Now()})
		reply := ft.next(t)
		reply.play()
		rec := l.Conductor().Recorder().Snapshot()
		for _, turn := range agentTurns(rec) {
			if turn.Text == early.text && early.text != reply.text {
				t.Errorf("the dropped reply was saved: %+v", turn)
			}
		}
		if got := agentTurns(rec); len(got) != 2 {
			t.Errorf("agent turns %+v, want the greeting and the answer", got)
		}
		if tt := turnTaking(l); tt.CutOffs != 1 {
			t.Errorf("turn taking %+v", tt)
		}

		// Noise within the window brings no words: the reply resumes.
		ft.send(CandidateTurn{Text: answers[1], Source: SourceVoice, EndedAt: time.Now()})
		r2 := ft.next(t)
		ft.send(SpeechStarted{At: time.Now()})
		ft.send(SpeechEnded{})
		time.Sleep(2 * time.Second)
		cont := ft.next(t)
		if cont.text != r2.text {
			t.Errorf("resumed %q, want %q", cont.text, r2.text)
		}
		cont.play()
		if tt := turnTaking(l); tt.CutOffs != 1 || tt.FalseInterruptionsResumed != 1 {
			t.Errorf("turn taking %+v", tt)
		}
		ft.send(InputEnded{})
		if err := ended(t, done); err != nil {
			t.Fatal(err)
		}
	})
}

// TestLoopSilenceChecksIn: silence after the interviewer spoke brings a
// check-in, then the offer to stop, then the polite closing and the
// interview saved as candidate_unresponsive; none of them is a question,
// and speech starts the count again.
func TestLoopSilenceChecksIn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ft, l, done := runLoop(t, t.Context(), 1, LoopOptions{AwayAfter: 20 * time.Second}, scriptedLLM)
		ft.next(t).play()
		time.Sleep(19 * time.Second)
		ft.quiet(t, "20 s have not passed")
		time.Sleep(time.Second)
		first := ft.next(t)
		if first.text != lang.Text("", lang.CheckIn) {
			t.Fatalf("check-in %q", first.text)
		}
		first.play()
		// The candidate speaks: the count starts again.
		ft.send(CandidateTurn{Text: answers[0], Source: SourceVoice, EndedAt: time.Now()})
		ft.next(t).play()
		for _, want := range []string{lang.Text("", lang.CheckIn), lang.Text("", lang.OfferStop), lang.Text("", lang.Unresponsive)} {
			time.Sleep(20 * time.Second)
			p := ft.next(t)
			if p.text != want {
				t.Fatalf("said %q, want %q", p.text, want)
			}
			p.play()
		}
		if err := ended(t, done); err != nil {
			t.Fatal(err)
		}
		rec := l.Conductor().Recorder().Snapshot()
		if rec.EndedBy != interviews.EndedCandidateUnresponsive || rec.Status != interviews.StatusCandidateLeft {
			t.Errorf("ended %s by %s", rec.Status, rec.EndedBy)
		}
		if tt := turnTaking(l); tt.CheckIns != 4 {
			t.Errorf("turn taking %+v", tt)
		}
		for _, turn := range agentTurns(rec) {
			if turn.Text == lang.Text("", lang.CheckIn) && len(turn.QuestionIDs) > 0 {
				t.Errorf("a check-in counted as a question: %+v", turn)
			}
		}
	})
}

// TestLoopRepeatsQuestion: "could you repeat the question" gets the last
// question again, registered once.
func TestLoopRepeatsQuestion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ft, l, done := runLoop(t, t.Context(), 1, LoopOptions{}, scriptedLLM)
		ft.next(t).play()
		ft.send(CandidateTurn{Text: answers[0], Source: SourceText})
		ft.next(t).play()
		q, ok := l.Conductor().LastQuestion()
		if !ok {
			t.Fatal("no question was asked")
		}
		questions := len(l.Conductor().Machine().Questions())
		ft.send(CandidateTurn{Text: "Sorry, could you repeat the question?", Source: SourceVoice, EndedAt: time.Now()})
		again := ft.next(t)
		if again.text != RepeatPrefix+q {
			t.Errorf("repeated %q, want %q", again.text, RepeatPrefix+q)
		}
		again.play()
		if n := len(l.Conductor().Machine().Questions()); n != questions {
			t.Errorf("%d questions after the repeat, want %d", n, questions)
		}
		if tt := turnTaking(l); tt.Repeats != 1 {
			t.Errorf("turn taking %+v", tt)
		}
		// The request is kept as said, and is not an answer.
		rec := flushed(t, l.Conductor())
		var asides []string
		for _, tr := range rec.Turns {
			if tr.Aside != "" {
				asides = append(asides, tr.Aside+": "+tr.Text)
			}
		}
		if len(asides) != 1 || asides[0] != "repeat: Sorry, could you repeat the question?" || rec.AnswerTurns() != 1 {
			t.Errorf("asides %q, %d answers; want the request as a repeat and one answer", asides, rec.AnswerTurns())
		}
		ft.send(InputEnded{})
		if err := ended(t, done); err != nil {
			t.Fatal(err)
		}
	})
}

// TestLoopGreetsOnceHeard: the greeting waits for the candidate to receive
// the interviewer's audio, or for the timeout.
func TestLoopGreetsOnceHeard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		opts := LoopOptions{JoinTimeout: time.Minute, HearingTimeout: 5 * time.Second}
		ft, _, done := runLoop(t, t.Context(), 1, opts, scriptedLLM)
		ft.send(Joined{})
		time.Sleep(3 * time.Second)
		ft.quiet(t, "the candidate does not hear the interviewer yet")
		ft.send(Hearing{})
		ft.next(t).play()
		ft.send(InputEnded{})
		if err := ended(t, done); err != nil {
			t.Fatal(err)
		}

		// Heard before they joined: greeted at once.
		ft, _, done = runLoop(t, t.Context(), 1, opts, scriptedLLM)
		ft.send(Hearing{})
		ft.send(Joined{})
		ft.next(t).play()
		ft.send(InputEnded{})
		if err := ended(t, done); err != nil {
			t.Fatal(err)
		}

		ft, _, done = runLoop(t, t.Context(), 1, opts, scriptedLLM)
		ft.send(Joined{})
		time.Sleep(4900 * time.Millisecond)
		ft.quiet(t, "the fallback has not passed")
		time.Sleep(100 * time.Millisecond)
		ft.next(t).play()
		ft.send(InputEnded{})
		if err := ended(t, done); err != nil {
			t.Fatal(err)
		}
	})
}
