package web

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
)

func TestRoomPage(t *testing.T) {
	ts := newTestServer(t)
	open := registerJSON(t, ts, map[string]string{"name": "Ada Lovelace", "role": "Backend engineer"})
	running := registerJSON(t, ts, map[string]string{"name": "Grace Hopper", "role": "Compiler engineer"})
	r, _ := ts.store.Get(t.Context(), running.ID)
	r.Start(ts.clock.Now())
	r.EnterStage("intro", "Introduction", ts.clock.Now(), false, "")
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	ended := map[interviews.Status]string{}
	for _, st := range []interviews.Status{interviews.StatusCompleted, interviews.StatusCandidateLeft, interviews.StatusFailed} {
		resp := registerJSON(t, ts, map[string]string{"name": "Done " + string(st), "role": "Engineer"})
		r, _ := ts.store.Get(t.Context(), resp.ID)
		r.Start(ts.clock.Now())
		r.Finish(st, "test", ts.clock.Now().Add(time.Minute))
		if err := ts.store.Save(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		ended[st] = resp.ID
	}

	tests := []struct {
		name string
		id   string
		want int
		text []string
	}{
		{"scheduled", open.ID, 200, []string{`data-interview-id="` + open.ID + `"`, "Ada Lovelace", "Backend engineer", `src="/static/dist/room.js"`}},
		{"in progress (rejoin)", running.ID, 200, []string{`data-stage="intro"`, "Grace Hopper"}},
		{"unknown", "0000000000000000", 404, []string{"This interview link is not valid"}},
		{"malformed", "NOT-AN-ID!", 404, []string{"This interview link is not valid"}},
		{"completed", ended[interviews.StatusCompleted], 410, []string{"This interview has ended. Thank you"}},
		{"candidate left", ended[interviews.StatusCandidateLeft], 410, []string{"This interview has ended. Thank you"}},
		{"failed", ended[interviews.StatusFailed], 410, []string{"This interview has ended. Thank you"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := ts.get("/interview/"+tt.id, "Accept", "text/html")
			if rec.Code != tt.want {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.want, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("content type %q", ct)
			}
			for _, want := range tt.text {
				if !strings.Contains(rec.Body.String(), want) {
					t.Errorf("page lacks %q", want)
				}
			}
			if strings.Contains(rec.Body.String(), "eyJ") {
				t.Error("page carries a token; it must fetch one from the join endpoint")
			}
		})
	}

	// Without the room template the page says so instead of failing blankly.
	ts.room.roomPage = nil
	rec := ts.get("/interview/" + open.ID)
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "The interview room page is not available") {
		t.Errorf("missing template: %d %s", rec.Code, rec.Body)
	}
}
