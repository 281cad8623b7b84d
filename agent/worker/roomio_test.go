package worker

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/livekit/protocol/auth"
	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/agent/spoken"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/lkagent"
	"github.com/viva-interviews/viva/testrig/lktest"
)

// unencodable is an event JSON cannot encode.
type unencodable struct{ F func() }

func (unencodable) EventType() EventType { return "unencodable" }

// barrier is an event with no members, sent to see earlier packets arrive.
type barrier struct{}

func (barrier) EventType() EventType { return "barrier" }

// TestEventsEncodeAsBefore: typed events encode byte for byte as the room
// page has always read them (the members in alphabetical order, as
// encoding/json writes a map).
func TestEventsEncodeAsBefore(t *testing.T) {
	deadline := time.UnixMilli(1_767_225_600_000)
	for _, tc := range []struct {
		ev   Event
		want map[string]any
	}{
		{StageChanged{Name: "experience", Title: "Your experience", Index: 2, Count: 4, Deadline: deadline, Forced: true},
			map[string]any{"type": "stage_change", "stage": "experience", "title": "Your experience", "index": 2, "count": 4, "deadline": deadline.UnixMilli(), "forced": true}},
		{StageChanged{Name: "closing"},
			map[string]any{"type": "stage_change", "stage": "closing", "title": "", "index": 0, "count": 0, "deadline": time.Time{}.UnixMilli(), "forced": false}},
		{InterviewEnding{InterviewID: "abc", Status: interviews.StatusCompleted, EndedBy: interviews.EndedClosingDelivered},
			map[string]any{"type": "interview_ending", "interview_id": "abc", "status": interviews.StatusCompleted, "ended_by": interviews.EndedClosingDelivered}},
		{InterviewSaved{InterviewID: "abc", Status: interviews.StatusCandidateLeft},
			map[string]any{"type": "interview_saved", "interview_id": "abc", "status": interviews.StatusCandidateLeft}},
		{barrier{}, map[string]any{"type": "barrier"}},
	} {
		got, err := EncodeEvent(tc.ev)
		if err != nil {
			t.Fatalf("%T: %v", tc.ev, err)
		}
		want, _ := json.Marshal(tc.want)
		if string(got) != string(want) {
			t.Errorf("%T encodes as\n%s\nwant\n%s", tc.ev, got, want)
		}
	}
}

// TestSpokenStatesAreAgentStates: each state of the spoken session is
// shown as its own lk.agent.state value, one LiveKit's frontends read.
func TestSpokenStatesAreAgentStates(t *testing.T) {
	want := map[spoken.State]string{spoken.StateListening: lkagent.StateListening,
		spoken.StateThinking: lkagent.StateThinking, spoken.StateSpeaking: lkagent.StateSpeaking}
	for st, value := range want {
		if agentStates[st] != value {
			t.Errorf("spoken state %d is shown as %q, want %q", st, agentStates[st], value)
		}
		if err := SetAgentState(nil, agentStates[st]); err == nil || !strings.Contains(err.Error(), "no room") {
			t.Errorf("spoken state %d: SetAgentState(%q) = %v, want only the missing room refused", st, agentStates[st], err)
		}
	}
}

func TestRoomIOValidation(t *testing.T) {
	big := StageChanged{Name: "intro", Title: strings.Repeat("a", MaxEventBytes)}
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"unknown agent state", func() error { return SetAgentState(nil, "sleeping") }, `agent state "sleeping"`},
		{"agent state without room", func() error { return SetAgentState(nil, lkagent.StateListening) }, "no room"},
		{"stage without name", func() error { return SetStage(nil, agent.StageChange{Count: 4}) }, "stage name is empty"},
		{"stage index past count", func() error { return SetStage(nil, agent.StageChange{Name: "intro", Index: 4, Count: 4}) }, "index 4 of 4"},
		{"stage negative index", func() error { return SetStage(nil, agent.StageChange{Name: "intro", Index: -1, Count: 4}) }, "index -1 of 4"},
		{"caption without room", func() error { return PublishTranscription(nil, Segment{ID: "s"}) }, "no room"},
		{"event too big", func() error { return SendEvent(&lksdk.Room{}, big) }, "over the 15000-byte limit"},
		{"event not JSON", func() error { return SendEvent(&lksdk.Room{}, unencodable{}) }, "encode"},
		{"end room without client", func() error { return EndRoom(context.Background(), nil, "r") }, "no room service client"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
		})
	}
}

// gotStream is a text stream a client received.
type gotStream struct {
	sender string
	attrs  map[string]string
	text   string
}

// candidateView is what a client (as the candidate's browser would) sees.
type candidateView struct {
	room         *lksdk.Room
	captions     chan gotStream
	legacy       chan string // "identity|segment id|text|final"
	events       chan string // "sender|payload"
	attrs        chan struct{}
	disconnected chan struct{}
}

func joinAsCandidate(t *testing.T, srv *lktest.Server, identity, room string) *candidateView {
	t.Helper()
	v := &candidateView{
		captions:     make(chan gotStream, 16),
		legacy:       make(chan string, 16),
		events:       make(chan string, 16),
		attrs:        make(chan struct{}, 64),
		disconnected: make(chan struct{}),
	}
	cb := &lksdk.RoomCallback{
		OnDisconnected: func() { close(v.disconnected) },
		ParticipantCallback: lksdk.ParticipantCallback{
			OnTranscriptionReceived: func(segs []*lksdk.TranscriptionSegment, p lksdk.Participant, _ lksdk.TrackPublication) {
				for _, s := range segs {
					v.legacy <- strings.Join([]string{p.Identity(), s.ID, s.Text, boolString(s.Final)}, "|")
				}
			},
			OnDataPacket: func(data lksdk.DataPacket, params lksdk.DataReceiveParams) {
				if u, ok := data.(*lksdk.UserDataPacket); ok && u.Topic == TopicEvents {
					v.events <- params.SenderIdentity + "|" + string(u.Payload)
				}
			},
			OnAttributesChanged: func(map[string]string, lksdk.Participant) { v.attrs <- struct{}{} },
		},
	}
	v.room = srv.Connect(t, identity, room, cb)
	err := v.room.RegisterTextStreamHandler(TopicTranscription, func(r *lksdk.TextStreamReader, sender string) {
		v.captions <- gotStream{sender: sender, attrs: maps.Clone(r.Info.Attributes), text: r.ReadAll()}
	})
	if err != nil {
		t.Fatalf("register caption handler: %v", err)
	}
	return v
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10s", what)
		var zero T
		return zero
	}
}

// canUpdateOwnMetadata lets a test participant set its own attributes, as
// the job token does for the agent.
func canUpdateOwnMetadata(g *auth.VideoGrant) {
	yes := true
	g.CanUpdateOwnMetadata = &yes
}

func TestLiveRoomIO(t *testing.T) {
	t.Parallel()
	srv := lktest.Start(t)
	const room = "interview-io"
	agentRoom := srv.Connect(t, "agent-AJ_1", room, nil,
		lktest.WithKind(livekit.ParticipantInfo_AGENT), lktest.WithGrant(canUpdateOwnMetadata))
	chats := make(chan [2]string, 4)
	if err := OnChat(agentRoom, func(sender, text string) { chats <- [2]string{sender, text} }); err != nil {
		t.Fatalf("OnChat: %v", err)
	}
	cand := joinAsCandidate(t, srv, "candidate", room)

	t.Run("captions", func(t *testing.T) {
		long := strings.Repeat("é", 10_000) // 20 000 bytes: two chunks
		tests := []struct {
			name       string
			seg        Segment
			wantSender string
		}{
			{name: "agent caption under the agent's identity",
				seg:        Segment{ID: "SG_a1", TrackID: "TR_agent", Text: "Hello, welcome to the interview.", Final: true},
				wantSender: "agent-AJ_1"},
			{name: "agent caption cut off by the candidate, marked interrupted",
				seg:        Segment{ID: "SG_a2", TrackID: "TR_agent", Text: "Describe", Final: true, Interrupted: true},
				wantSender: "agent-AJ_1"},
			{name: "candidate interim under the candidate's identity",
				seg:        Segment{ID: "SG_c1", SpeakerIdentity: "candidate", TrackID: "TR_mic", Text: "I have worked", Final: false},
				wantSender: "candidate"},
			{name: "candidate final, long and multibyte",
				seg:        Segment{ID: "SG_c1", SpeakerIdentity: "candidate", TrackID: "TR_mic", Text: "I have worked " + long, Final: true},
				wantSender: "candidate"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				if err := PublishTranscription(agentRoom, tc.seg); err != nil {
					t.Fatalf("PublishTranscription: %v", err)
				}
				got := recv(t, cand.captions, "caption stream")
				want := map[string]string{
					AttrSegmentID: tc.seg.ID, AttrTranscriptionFinal: boolString(tc.seg.Final), AttrTranscribedTrackID: tc.seg.TrackID,
				}
				if tc.seg.Interrupted {
					want[AttrInterrupted] = "true"
				}
				if got.sender != tc.wantSender || !maps.Equal(got.attrs, want) || got.text != tc.seg.Text {
					t.Errorf("stream from %q attrs %v text %d bytes; want from %q attrs %v text %d bytes",
						got.sender, got.attrs, len(got.text), tc.wantSender, want, len(tc.seg.Text))
				}
				legacy := recv(t, cand.legacy, "legacy transcription")
				if want := strings.Join([]string{tc.wantSender, tc.seg.ID, tc.seg.Text, boolString(tc.seg.Final)}, "|"); legacy != want {
					t.Errorf("legacy transcription = %.80q…, want %.80q…", legacy, want)
				}
			})
		}
	})

	t.Run("sender override needs an agent", func(t *testing.T) {
		// The same packets from an ordinary participant: the server puts the
		// sender's own identity on the stream and drops the legacy packet.
		plain := srv.Connect(t, "not-an-agent", room, nil)
		if err := PublishTranscription(plain, Segment{ID: "SG_x", SpeakerIdentity: "candidate", TrackID: "TR_mic", Text: "spoofed"}); err != nil {
			t.Fatalf("PublishTranscription: %v", err)
		}
		if got := recv(t, cand.captions, "caption stream"); got.sender != "not-an-agent" {
			t.Errorf("stream sender = %q, want the server to override it to not-an-agent", got.sender)
		}
		// Reliable packets from one sender arrive in order: once this event
		// is in, a forwarded legacy packet would have been too.
		if err := SendEvent(plain, barrier{}); err != nil {
			t.Fatalf("SendEvent: %v", err)
		}
		recv(t, cand.events, "barrier event")
		select {
		case l := <-cand.legacy:
			t.Errorf("legacy transcription from a non-agent was forwarded: %q", l)
		default:
		}
	})

	t.Run("attributes", func(t *testing.T) {
		deadline := time.UnixMilli(1_767_225_600_000)
		if err := SetAgentState(agentRoom, lkagent.StateListening); err != nil {
			t.Fatalf("SetAgentState: %v", err)
		}
		if err := SetStage(agentRoom, agent.StageChange{Name: "experience", Title: "Your experience", Index: 2, Count: 4, Deadline: deadline}); err != nil {
			t.Fatalf("SetStage: %v", err)
		}
		want := map[string]string{
			lkagent.AttrAgentState: lkagent.StateListening, AttrStage: "experience", AttrStageTitle: "Your experience",
			AttrStageIndex: "2", AttrStageCount: "4", AttrStageDeadline: "1767225600000",
		}
		waitAttrs(t, cand, "agent-AJ_1", want)

		// A stage without a deadline removes the old one.
		if err := SetStage(agentRoom, agent.StageChange{Name: "closing", Title: "Wrap-up", Index: 3, Count: 4}); err != nil {
			t.Fatalf("SetStage: %v", err)
		}
		want[AttrStage], want[AttrStageTitle], want[AttrStageIndex] = "closing", "Wrap-up", "3"
		delete(want, AttrStageDeadline)
		waitAttrs(t, cand, "agent-AJ_1", want)
	})

	t.Run("events", func(t *testing.T) {
		ev := StageChanged{Name: "intro", Index: 1}
		if err := SendEvent(agentRoom, ev); err != nil {
			t.Fatalf("SendEvent: %v", err)
		}
		got := recv(t, cand.events, "event")
		sender, payload, _ := strings.Cut(got, "|")
		var decoded map[string]any
		if err := json.Unmarshal([]byte(payload), &decoded); err != nil || sender != "agent-AJ_1" ||
			decoded["type"] != "stage_change" || decoded["stage"] != "intro" || decoded["index"] != 1.0 {
			t.Errorf("event from %q = %s (%v), want the stage_change from agent-AJ_1", sender, payload, err)
		}
	})

	t.Run("typed chat", func(t *testing.T) {
		cand.room.LocalParticipant.SendText("I'd rather type: Go and Postgres.", lksdk.StreamTextOptions{Topic: TopicChat})
		got := recv(t, chats, "chat message")
		if got != [2]string{"candidate", "I'd rather type: Go and Postgres."} {
			t.Errorf("chat = %q", got)
		}
		long := strings.Repeat("x", MaxChatBytes+100)
		cand.room.LocalParticipant.SendText(long, lksdk.StreamTextOptions{Topic: TopicChat})
		if got := recv(t, chats, "long chat message"); len(got[1]) != MaxChatBytes {
			t.Errorf("long message delivered with %d bytes, want cut to %d", len(got[1]), MaxChatBytes)
		}
	})

	t.Run("end room", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := EndRoom(ctx, srv.RoomClient(), room); err != nil {
			t.Fatalf("EndRoom: %v", err)
		}
		recv(t, cand.disconnected, "candidate disconnect")
		if err := EndRoom(ctx, srv.RoomClient(), room); err != nil {
			t.Errorf("EndRoom of an ended room = %v, want nil", err)
		}
	})
}

// waitAttrs waits until the candidate sees identity's attributes include want
// (and lack the keys want lacks among viva's stage keys).
func waitAttrs(t *testing.T, v *candidateView, identity string, want map[string]string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		var got map[string]string
		if p := v.room.GetParticipantByIdentity(identity); p != nil {
			got = p.Attributes()
		}
		ok := true
		for k, val := range want {
			ok = ok && got[k] == val
		}
		if _, has := want[AttrStageDeadline]; !has {
			_, present := got[AttrStageDeadline]
			ok = ok && !present
		}
		if ok {
			return
		}
		select {
		case <-v.attrs:
		case <-deadline:
			t.Fatalf("attributes of %s = %v, want %v", identity, got, want)
		}
	}
}
