package web

import (
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// csvExport returns the reviewer's CSV export of the list filtered by
// query, as rows by interview id, with the header.
func csvExport(t *testing.T, ts *testServer, query string) ([]string, map[string][]string) {
	t.Helper()
	raw := ts.reviewerGet(t, "/review.csv"+query)
	rows, err := csv.NewReader(strings.NewReader(raw)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string][]string{}
	for _, row := range rows[1:] {
		cells := map[string]string{}
		for i, h := range rows[0] {
			cells[h] = row[i]
		}
		byID[cells["Interview id"]] = row
	}
	return rows[0], byID
}

// cell is the value of column of row.
func cell(header, row []string, column string) string {
	for i, h := range header {
		if h == column {
			return row[i]
		}
	}
	return "(no column " + column + ")"
}

// TestOneTruth: a withdrawn invitation is "Withdrawn" in the list, the
// CSV and the invitations page; an interview the candidate left before
// the timer moved it on reached the stages it reached everywhere, ended
// in the stage it ended in, and no stage is current after the end; a
// follow-up put down three times is listed once; only the candidate's
// turns are tagged typed; the CSV gives stage titles, the competency
// scores, the decision and its note.
func TestOneTruth(t *testing.T) {
	ts := newTestServer(t)
	now := ts.clock.Now()
	withdrawn := &interviews.Record{Candidate: interviews.Candidate{Name: "Wendy Withdrawn", Role: "Truth"}, Blueprint: "default", CreatedAt: now}
	withdrawn.Revoke(testRecruiter, now)
	if err := ts.store.Create(t.Context(), withdrawn); err != nil {
		t.Fatal(err)
	}
	left := withReport(t, ts, "Lee Left", fixtureReport(now), interviews.DecisionHold)
	left.Candidate.Role = "Truth"
	left.Status, left.EndedAt = interviews.StatusInProgress, nil
	left.Stages[len(left.Stages)-1].LeftAt = nil
	left.Leave(now.Add(100*time.Second), now.Add(100*time.Second))
	// The timer moved the interview on after the candidate had left.
	left.Stages = append(left.Stages, interviews.StageVisit{Name: "experience", Title: "Your experience", EnteredAt: now.Add(150 * time.Second), Forced: true})
	for _, id := range []string{"q2b", "q2c"} {
		left.Questions = append(left.Questions, stages.Question{ID: id, Stage: "intro", Text: "Tell me about a system you built."})
	}
	left.Turns[2].Source = interviews.SourceText // an interviewer's reply in a typed conversation
	if err := ts.store.Save(t.Context(), left); err != nil {
		t.Fatal(err)
	}

	list := ts.reviewerGet(t, "/review?role=Truth")
	for _, want := range []string{`<span class="badge status-withdrawn">Withdrawn</span>`, `<td data-label="Final stage">Introduction</td>`} {
		if !strings.Contains(list, want) {
			t.Errorf("the list lacks %q", want)
		}
	}
	if strings.Contains(list, ">Scheduled</span>") {
		t.Error("the list calls the withdrawn invitation scheduled")
	}
	invitations := ts.reviewerGet(t, invitationsPath)
	if !strings.Contains(invitations, "Withdrawn") {
		t.Error("the invitations page does not say withdrawn")
	}

	page := ts.reviewerGet(t, "/review/"+left.ID)
	for _, want := range []string{"<dd>2 of 4</dd>", "<dt>Final stage</dt><dd>Introduction</dd>", "Ended early"} {
		if !strings.Contains(page, want) {
			t.Errorf("the interview's page lacks %q", want)
		}
	}
	for _, not := range []string{", current", "Your experience", "q2b", "q2c"} {
		if strings.Contains(page, not) {
			t.Errorf("the interview's page shows %q", not)
		}
	}
	if n := strings.Count(page, `<span class="badge">typed</span>`); n != 1 {
		t.Errorf("%d turns tagged typed, want the candidate's one", n)
	}

	header, rows := csvExport(t, ts, "?role=Truth")
	w, l := rows[withdrawn.ID], rows[left.ID]
	for _, c := range []struct {
		row          []string
		column, want string
	}{
		{w, "Status", "Withdrawn"},
		{l, "Status", "Ended early"}, {l, "Final stage", "Introduction"}, {l, "Score", "72"},
		{l, "Communication", "81"}, {l, "Technical depth", "59"}, {l, "Role fit", "75"},
		{l, "Decision", "Hold"}, {l, "Decision note", "note hold"},
		{w, "Communication", ""},
	} {
		if got := cell(header, c.row, c.column); got != c.want {
			t.Errorf("CSV %s of %s: %q, want %q", c.column, cell(header, c.row, "Candidate"), got, c.want)
		}
	}
}

// comparedPair saves two scored candidates for "Backend engineer", the
// weaker one having left before the end.
func comparedPair(t *testing.T, ts *testServer) (complete, early *interviews.Record) {
	t.Helper()
	complete = withReport(t, ts, "Carla Complete", fixtureReport(ts.clock.Now()), interviews.DecisionAdvance)
	low := fixtureReport(ts.clock.Now())
	low.OverallScore = 40
	early = withReport(t, ts, "Eli Early", low)
	early.Status = interviews.StatusCandidateLeft
	if err := ts.store.Save(t.Context(), early); err != nil {
		t.Fatal(err)
	}
	return complete, early
}

// TestCompareFlagsIncomplete: an interview that ended early is flagged
// beside the completed ones, and the comparison without a role says what
// to do and offers the roles there are.
func TestCompareFlagsIncomplete(t *testing.T) {
	ts := newTestServer(t)
	comparedPair(t, ts)
	body := ts.reviewerGet(t, "/review/compare?role=Backend+engineer")
	carla, eli := strings.Index(body, ">Carla Complete</a>"), strings.Index(body, ">Eli Early</a>")
	flag := strings.Index(body, `<span class="badge status-candidate-left incomplete">Ended early</span>`)
	if carla < 0 || eli < carla || flag < eli || strings.Count(body, "incomplete\">") != 1 {
		t.Errorf("the early leaver is not flagged, alone, under their name (%d, %d, %d)", carla, eli, flag)
	}
	if !strings.Contains(body, "Swipe the table sideways to see all 2 candidates") {
		t.Error("no cue that the table scrolls")
	}
	body = ts.reviewerGet(t, "/review/compare")
	for _, want := range []string{"<h1>Compare candidates</h1>", "Choose a role to see its candidates side by side",
		`<a href="/review/compare?role=Backend&#43;engineer">Backend engineer</a>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the comparison without a role lacks %q", want)
		}
	}
	if strings.Contains(body, "Candidates for") {
		t.Error("the comparison without a role shows an empty \"Candidates for\"")
	}
}
