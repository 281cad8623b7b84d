package web

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// TestReviewSummary: the page opens with the status and how it ended in
// words, the stages reached of all, the questions asked, the duration and
// the report's score.
func TestReviewSummary(t *testing.T) {
	ts := newTestServer(t)
	r := detailRecord(t, ts, interviews.StatusCompleted)
	r.Report = &interviews.Report{Status: interviews.ReportReady, Version: 1, OverallScore: 72.4}
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	body := ts.reviewerGet(t, "/review/"+r.ID)
	summary := body[strings.Index(body, `id="summary"`):]
	summary = summary[:strings.Index(summary, "</section>")]
	bp, err := stages.Builtin("default")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<span class="badge status-completed">Completed</span> <span class="summary-ending">The closing remarks were delivered</span>`,
		"<dt>Stages reached</dt><dd>2 of " + strconv.Itoa(len(bp.Stages)) + "</dd>",
		"<dt>Questions asked</dt><dd>1</dd>",
		"<dt>Answers</dt><dd>2</dd>",
		"<dt>Duration</dt><dd>2m 00s</dd>",
		`<dt>Score</dt><dd>72<span class="of"> / 100</span></dd>`,
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	if strings.Index(body, `id="summary"`) > strings.Index(body, `<h2>Timeline</h2>`) {
		t.Error("the summary is not at the top")
	}
}

// rawCode matches a code as the record stores it (snake_case), shown as
// text between tags or in parentheses.
var rawCode = regexp.MustCompile(`>[^<]*\b[a-z]+_[a-z_]+\b[^<]*<|\([a-z]+_[a-z_]+\)`)

// TestReviewLabelsInWords: for every way an interview ends the page says
// it in words, never by its codes, and pressing End reads as the candidate
// ending the interview.
func TestReviewLabelsInWords(t *testing.T) {
	ts := newTestServer(t)
	reasons := append(append([]interviews.EndReason{}, interviews.EndReasons...), interviews.EndedByProviderError("llm"))
	for _, reason := range reasons {
		t.Run(string(reason), func(t *testing.T) {
			r := detailRecord(t, ts, interviews.StatusInProgress)
			r.Stages[1].Reason = "candidate_request: the candidate asked to stop"
			r.Stages[1].Forced = false
			status := interviews.StatusCandidateLeft
			if reason == interviews.EndedClosingDelivered || reason == interviews.EndedDeadline {
				status = interviews.StatusCompleted
			}
			if reason.ProviderError() || reason == interviews.EndedWorkerCrashed || reason == interviews.EndedWorkerStopped {
				status = interviews.StatusFailed
			}
			r.Finish(status, reason, ts.clock.Now().Add(2*time.Minute))
			if err := ts.store.Save(t.Context(), r); err != nil {
				t.Fatal(err)
			}
			body := ts.reviewerGet(t, "/review/"+r.ID)
			visible := body[strings.Index(body, "<main"):]
			for _, code := range []string{string(reason), string(status), "Why:", "Plan:", "default</", "candidate_request"} {
				if !strings.ContainsAny(code, "_:<") {
					continue // a code that is also a word ("deadline", "failed")
				}
				if strings.Contains(visible, ">"+code) || strings.Contains(visible, "("+code+")") || strings.Contains(visible, code+"<") {
					t.Errorf("the page shows the code %q", code)
				}
			}
			if m := rawCode.FindString(visible); m != "" {
				t.Errorf("the page shows a raw code: %q", m)
			}
			words := endReasonLabel(reason)
			if !strings.Contains(visible, `<span class="summary-ending">`+words+`</span>`) {
				t.Errorf("the summary lacks %q", words)
			}
			if reason == interviews.EndedCandidateRequest {
				if !strings.Contains(visible, "The candidate ended the interview") || strings.Contains(visible, "Candidate left") {
					t.Error("pressing End does not read as the candidate ending the interview")
				}
			}
			if !strings.Contains(visible, `<p class="reason">The candidate asked to stop</p>`) {
				t.Error("the stage's reason is not in words")
			}
		})
	}
	list := ts.reviewerGet(t, "/review")
	if strings.Contains(list, `<td data-label="Plan">default</td>`) || strings.Contains(list, "candidate_left<") {
		t.Error("the list shows codes")
	}
}

// TestReviewTurnsInTrueOrder: a turn recorded after its successor (the
// candidate still speaking as the interviewer's reply began) is shown in
// the order spoken.
func TestReviewTurnsInTrueOrder(t *testing.T) {
	ts := newTestServer(t)
	r := detailRecord(t, ts, interviews.StatusInProgress)
	t0 := *r.StartedAt
	r.AppendTurn(interviews.Turn{Role: interviews.RoleAgent, Stage: "intro", Text: "REPLY-AT-47-14", StartedAt: t0.Add(94 * time.Second), EndedAt: t0.Add(96 * time.Second), Interrupted: true})
	r.AppendTurn(interviews.Turn{Role: interviews.RoleCandidate, Stage: "intro", Text: "ANSWER-AT-47-13", StartedAt: t0.Add(93 * time.Second), EndedAt: t0.Add(99 * time.Second)})
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	body := ts.reviewerGet(t, "/review/"+r.ID)
	first, second := strings.Index(body, "ANSWER-AT-47-13"), strings.Index(body, "REPLY-AT-47-14")
	if first < 0 || second < 0 || first > second {
		t.Errorf("turns out of order: answer at %d, reply at %d", first, second)
	}
	turns := r.TurnsInOrder()
	if turns[len(turns)-2].Text != "ANSWER-AT-47-13" {
		t.Errorf("TurnsInOrder: %q", turns[len(turns)-2].Text)
	}
}

// TestReviewAssessmentBesideAnswer: an assessment sits in the turn of
// the answer it judges (the analysis's answer to its question, else the
// answer after the question was asked); one with no answer stays with its
// stage.
func TestReviewAssessmentBesideAnswer(t *testing.T) {
	ts := newTestServer(t)
	r := detailRecord(t, ts, interviews.StatusInProgress)
	t0 := *r.StartedAt
	// q1 is answered by turn 2, which the analysis says.
	r.Answers = append(r.Answers, interviews.Answer{QuestionID: "q1", TurnSeq: 2, At: t0.Add(7 * time.Second)})
	r.Assessments = append(r.Assessments,
		interviews.Assessment{QuestionID: "q1", Stage: "greeting", DepthScore: 2, KeyPoints: []string{"ASSESS-Q1"}, At: t0.Add(8 * time.Second)},
		interviews.Assessment{Stage: "intro", DepthScore: 3, KeyPoints: []string{"ASSESS-NONE"}, At: t0.Add(90 * time.Second)})
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	body := ts.reviewerGet(t, "/review/"+r.ID)
	turnOf := func(marker string) string {
		i := strings.Index(body, marker)
		if i < 0 {
			return ""
		}
		start := strings.LastIndex(body[:i], "<li id=\"turn-")
		if start < 0 || strings.LastIndex(body[:i], "</ol>") > start {
			return ""
		}
		return body[start : start+len(`<li id="turn-N"`)]
	}
	if got := turnOf("ASSESS-Q1"); got != `<li id="turn-2"` {
		t.Errorf("q1's assessment is in %q, want beside turn 2", got)
	}
	if got := turnOf("mechanical computation"); got != `<li id="turn-4"` {
		t.Errorf("q2's assessment is in %q, want beside turn 4 (the answer after q2 was asked)", got)
	}
	if !strings.Contains(body, "Assessments of no recorded answer") || turnOf("ASSESS-NONE") != "" {
		t.Error("an assessment of no answer is not kept with its stage")
	}
}

// TestReviewLive: while the interview runs, the live address answers the
// summary and timeline as fragments with the turns added since; once it
// has ended the fragment says the page need not poll any more.
func TestReviewLive(t *testing.T) {
	ts := newTestServer(t)
	r := detailRecord(t, ts, interviews.StatusInProgress)
	live := "/review/" + r.ID + "/live"
	r.AppendTurn(interviews.Turn{Role: interviews.RoleAgent, Stage: "intro", Text: "A TURN ADDED LATER", StartedAt: ts.clock.Now().Add(100 * time.Second)})
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	frag := ts.reviewerGet(t, live)
	for _, want := range []string{`id="summary" data-live-part="summary"`, `id="timeline" data-live-part="timeline" data-live-url="` + live + `"`, "A TURN ADDED LATER", "<dt>Answers</dt><dd>2</dd>"} {
		if !strings.Contains(frag, want) {
			t.Errorf("live fragment lacks %q", want)
		}
	}
	if strings.Contains(frag, "<html") || strings.Contains(frag, "site-header") {
		t.Error("the live fragment is a whole page")
	}
	r.Finish(interviews.StatusCompleted, interviews.EndedClosingDelivered, ts.clock.Now().Add(3*time.Minute))
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	if frag := ts.reviewerGet(t, live); strings.Contains(frag, "data-live-url") || !strings.Contains(frag, `data-live-part="timeline"`) {
		t.Error("the fragment of a finished interview still asks to be polled")
	}
	if rec := ts.get(live); rec.Code == 200 {
		t.Error("the live fragment is served without signing in")
	}
}
