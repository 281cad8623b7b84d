package web

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/livekit/protocol/auth"
	"github.com/livekit/protocol/livekit"

	"github.com/viva-interviews/viva/interviews"
)

// verifyToken checks a candidate token's signature with the test secret and
// returns its claims.
func verifyToken(t *testing.T, token string) (*jwt.RegisteredClaims, *auth.ClaimGrants) {
	t.Helper()
	v, err := auth.ParseAPIToken(token)
	if err != nil {
		t.Fatalf("parse token: %v", err)
	}
	if v.APIKey() != testAPIKey {
		t.Errorf("token issuer %q, want %q", v.APIKey(), testAPIKey)
	}
	claims, grants, err := v.Verify(testAPISecret)
	if err != nil {
		t.Fatalf("verify token: %v", err)
	}
	return claims, grants
}

func TestCandidateTokenClaims(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.AgentName = "viva-test-agent" })
	const resume = "Résumé secret: worked at Analytical Engines Ltd since 1843"
	const jd = "Job secret: maintain the difference engine"
	resp := registerJSON(t, ts, map[string]string{
		"name": "Ada Lovelace", "role": "Backend engineer", "level": "lead",
		"job_description": jd, "resume_text": resume,
	})
	claims, grants := verifyToken(t, resp.Token)

	v := grants.Video
	if v == nil || !v.RoomJoin || v.Room != resp.Room {
		t.Fatalf("video grant %+v, want room join of %q", v, resp.Room)
	}
	if !v.GetCanPublish() || !v.GetCanSubscribe() || !v.GetCanPublishData() {
		t.Errorf("publish %v subscribe %v data %v, want all", v.GetCanPublish(), v.GetCanSubscribe(), v.GetCanPublishData())
	}
	if !v.GetCanPublishSource(livekit.TrackSource_MICROPHONE) || v.GetCanPublishSource(livekit.TrackSource_CAMERA) || v.GetCanPublishSource(livekit.TrackSource_SCREEN_SHARE) {
		t.Errorf("publish sources %v, want the microphone only", v.CanPublishSources)
	}
	if v.GetCanUpdateOwnMetadata() || v.RoomAdmin || v.RoomCreate || v.Agent || v.Hidden {
		t.Errorf("grant has more than a candidate needs: %+v", v)
	}
	if grants.Identity != "candidate-"+resp.ID || claims.Subject != grants.Identity {
		t.Errorf("identity %q subject %q", grants.Identity, claims.Subject)
	}
	if grants.Name != "Ada Lovelace" {
		t.Errorf("name %q", grants.Name)
	}
	wantAttrs := map[string]string{
		"viva.interview_id": resp.ID, "viva.candidate_name": "Ada Lovelace",
		"viva.role": "Backend engineer", "viva.level": "lead",
	}
	if len(grants.Attributes) != len(wantAttrs) {
		t.Errorf("attributes %v, want %v", grants.Attributes, wantAttrs)
	}
	for k, want := range wantAttrs {
		if got := grants.Attributes[k]; got != want {
			t.Errorf("attribute %s = %q, want %q", k, got, want)
		}
	}
	rc := grants.GetRoomConfiguration()
	if rc == nil || len(rc.Agents) != 1 {
		t.Fatalf("room configuration %v, want one agent dispatch", rc)
	}
	if rc.Agents[0].AgentName != "viva-test-agent" {
		t.Errorf("dispatched agent %q", rc.Agents[0].AgentName)
	}
	var meta map[string]string
	if err := json.Unmarshal([]byte(rc.Agents[0].Metadata), &meta); err != nil || len(meta) != 1 || meta["interview_id"] != resp.ID {
		t.Errorf("dispatch metadata %q, want exactly {\"interview_id\": %q}", rc.Agents[0].Metadata, resp.ID)
	}
	if rc.DepartureTimeout != 0 {
		t.Errorf("departure timeout %ds without a rejoin grace, want the server's default (0)", rc.DepartureTimeout)
	}
	if got := claims.ExpiresAt.Sub(claims.IssuedAt.Time); got != 90*time.Minute {
		t.Errorf("token lifetime %s, want the configured 1h30m", got)
	}
	if claims.Issuer != testAPIKey {
		t.Errorf("issuer %q", claims.Issuer)
	}

	// Nothing of the résumé or job description travels in the token.
	parts := strings.Split(resp.Token, ".")
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"secret", "Analytical", "difference engine", "1843"} {
		if strings.Contains(string(payload), secret) {
			t.Errorf("token payload carries %q: %s", secret, payload)
		}
	}
}

func TestJoinMintsFreshTokens(t *testing.T) {
	ts := newTestServer(t)
	resp := registerJSON(t, ts, map[string]string{"name": "Grace Hopper", "role": "Engineer"})
	for range 2 { // a reconnect asks again and gets a valid token again
		rec := ts.postJSON("/api/interviews/"+resp.ID+"/join", ts.agree())
		if rec.Code != http.StatusOK {
			t.Fatalf("join: %d %s", rec.Code, rec.Body)
		}
		got := decodeJSON[joinResponse](t, rec.Body)
		if got.Room != resp.Room || got.Identity != "candidate-"+resp.ID || got.Name != "Grace Hopper" || got.LiveKitURL != testLiveKitURL {
			t.Errorf("join response %+v", got)
		}
		_, grants := verifyToken(t, got.Token)
		if grants.Video.Room != resp.Room || grants.Identity != got.Identity {
			t.Errorf("token for room %q as %q", grants.Video.Room, grants.Identity)
		}
	}
}

func TestJoinUnknownAndFinished(t *testing.T) {
	ts := newTestServer(t)
	done := registerJSON(t, ts, map[string]string{"name": "Done", "role": "Engineer"})
	r, _ := ts.store.Get(t.Context(), done.ID)
	r.Start(ts.clock.Now())
	r.Finish(interviews.StatusCompleted, interviews.EndedClosingDelivered, ts.clock.Now().Add(time.Minute))
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	chat := &interviews.Record{Candidate: interviews.Candidate{Name: "Terminal", Role: "Engineer"}, Blueprint: "default"}
	if err := ts.store.Create(t.Context(), chat); err != nil {
		t.Fatal(err)
	}
	running := &interviews.Record{Candidate: interviews.Candidate{Name: "Running", Role: "Engineer"}, Blueprint: "default"}
	running.Start(ts.clock.Now())
	if err := ts.store.Create(t.Context(), running); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, id string
		want     int
		msg      string
	}{
		{"unknown", "doesnotexist", 404, "This interview link is not valid"},
		{"invalid id", "..%2F..%2Fetc", 404, "This interview link is not valid"},
		{"finished", done.ID, 410, "This interview has ended"},
		{"chat record without room", chat.ID, 200, ""},
		{"terminal interview running", running.ID, 409, "already running outside a room"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := ts.postJSON("/api/interviews/"+tt.id+"/join", ts.agree())
			if rec.Code != tt.want {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.want, rec.Body)
			}
			if tt.msg != "" {
				if got := decodeJSON[apiError](t, rec.Body); !strings.Contains(got.Error, tt.msg) {
					t.Errorf("error %q, want %q", got.Error, tt.msg)
				}
			}
		})
	}
	r, _ = ts.store.Get(t.Context(), chat.ID)
	if !strings.HasPrefix(r.Room, "interview-terminal-") {
		t.Errorf("chat record got room %q", r.Room)
	}
}

func TestRoomNames(t *testing.T) {
	tests := []struct{ name, slug string }{
		{"Ada Lovelace", "ada-lovelace"},
		{"  José  Núñez-García ", "jose-nunez-garcia"},
		{"Seán O'Brien", "sean-obrien"},
		{"Jürgen Straße", "jurgen-strasse"},
		{"Søren Kierkegaard", "soren-kierkegaard"},
		{"李小龙", "candidate"},
		{"", "candidate"},
		{"<script>alert(1)</script>", "script-alert-1-script"},
		{"Maximilian Alexander von Habsburg-Lothringen", "maximilian-alexander"},
		{"Supercalifragilisticexpialidocious", "supercalifragilisticexpi"},
		{"../../etc/passwd", "etc-passwd"},
	}
	valid := regexp.MustCompile(`^interview-[a-z0-9]+(-[a-z0-9]+)*-[a-z2-7]{10}$`)
	for _, tt := range tests {
		if got := slug(tt.name); got != tt.slug {
			t.Errorf("slug(%q) = %q, want %q", tt.name, got, tt.slug)
		}
		room := RoomName(tt.name)
		if !valid.MatchString(room) || !strings.HasPrefix(room, "interview-"+tt.slug+"-") || len(tt.slug) > maxSlugLen {
			t.Errorf("RoomName(%q) = %q", tt.name, room)
		}
	}
	seen := map[string]bool{}
	for range 1000 {
		r := RoomName("Ada")
		if seen[r] {
			t.Fatalf("room name %q repeated", r)
		}
		seen[r] = true
	}
}

// TestJoinAfterLeaving: a candidate who left may rejoin while the record's
// rejoin window is open, and not after; the room outlives their departure
// by the rejoin grace, so the interviewer is still there.
func TestJoinAfterLeaving(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.RejoinGrace = time.Minute })
	resp := registerJSON(t, ts, map[string]string{"name": "Ada Lovelace", "role": "Engineer"})
	r, _ := ts.store.Get(t.Context(), resp.ID)
	now := ts.clock.Now()
	r.Start(now)
	r.Leave(now.Add(time.Minute), now.Add(2*time.Minute))
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	ts.clock.Advance(90 * time.Second)
	join := ts.postJSON("/api/interviews/"+resp.ID+"/join", ts.agree())
	if join.Code != http.StatusOK {
		t.Fatalf("join within the rejoin window: %d %s", join.Code, join.Body)
	}
	got := decodeJSON[joinResponse](t, join.Body)
	_, grants := verifyToken(t, got.Token)
	if rc := grants.GetRoomConfiguration(); rc == nil || rc.DepartureTimeout != 70 {
		t.Errorf("room configuration %v, want a departure timeout of 70 s (grace and margin)", rc)
	}
	if page := ts.get("/interview/"+resp.ID, "Accept", "text/html"); page.Code != http.StatusOK {
		t.Errorf("room page within the rejoin window: %d", page.Code)
	}

	ts.clock.Advance(31 * time.Second)
	if join := ts.postJSON("/api/interviews/"+resp.ID+"/join", ts.agree()); join.Code != http.StatusGone {
		t.Errorf("join after the rejoin window: %d %s", join.Code, join.Body)
	}
	if page := ts.get("/interview/"+resp.ID, "Accept", "text/html"); page.Code != http.StatusGone {
		t.Errorf("room page after the rejoin window: %d", page.Code)
	}

	// The interviewer closing the window ends it at once.
	r, _ = ts.store.Get(t.Context(), resp.ID)
	r.RejoinUntil = ptrTime(ts.clock.Now().Add(time.Hour))
	r.CloseRejoin()
	if err := ts.store.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	if join := ts.postJSON("/api/interviews/"+resp.ID+"/join", ts.agree()); join.Code != http.StatusGone {
		t.Errorf("join after the interviewer gave up: %d %s", join.Code, join.Body)
	}
}

func ptrTime(t time.Time) *time.Time { return &t }
