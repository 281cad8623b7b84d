package candidatebot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/livekit/protocol/auth"
	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/viva-interviews/viva/agent/worker"

	"github.com/viva-interviews/viva/testrig/lktest"
)

// join connects a bot as identity to room on srv and leaves when the test
// ends.
func join(t *testing.T, srv *lktest.Server, identity, room string, opts Options, tokenOpts ...lktest.TokenOption) *Bot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	opts.URL = srv.URL
	opts.Token = srv.Token(identity, room, tokenOpts...)
	b, err := Join(ctx, opts)
	if err != nil {
		t.Fatalf("%s joins %s: %v", identity, room, err)
	}
	t.Cleanup(b.Leave)
	return b
}

var (
	asAgent       = lktest.WithKind(livekit.ParticipantInfo_AGENT)
	canSetOwnAttr = lktest.WithGrant(func(g *auth.VideoGrant) { g.SetCanUpdateOwnMetadata(true) })
)

func identityIs(id string) func(*lksdk.RemoteParticipant) bool {
	return func(p *lksdk.RemoteParticipant) bool { return p.Identity() == id }
}

// agentAndCandidate joins a bot playing the agent and one playing the
// candidate to room and returns them with a context for the test's waits.
func agentAndCandidate(t *testing.T, srv *lktest.Server, room string) (agent, cand *Bot, ctx context.Context) {
	t.Helper()
	agent = join(t, srv, "agent", room, Options{}, asAgent)
	cand = join(t, srv, "candidate", room, Options{})
	return agent, cand, testContext(t, 30*time.Second)
}

func testContext(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestLiveKit runs the bot against a real livekit-server, one room per
// behaviour, other bots and SDK participants playing the agent.
func TestLiveKit(t *testing.T) {
	srv := lktest.Start(t)
	t.Run("audio", func(t *testing.T) { testAudio(t, srv) })
	t.Run("captions", func(t *testing.T) { testCaptions(t, srv) })
	t.Run("legacy transcriptions", func(t *testing.T) { testLegacyTranscriptions(t, srv) })
	t.Run("chat", func(t *testing.T) { testChat(t, srv) })
	t.Run("events", func(t *testing.T) { testEvents(t, srv) })
	t.Run("agent attributes", func(t *testing.T) { testAgentAttributes(t, srv) })
	t.Run("room deleted", func(t *testing.T) { testRoomDeleted(t, srv) })
	t.Run("join errors", func(t *testing.T) { testJoinErrors(t, srv) })
}

// testJoinErrors: a join that cannot succeed fails with a hint, promptly.
func testJoinErrors(t *testing.T, srv *lktest.Server) {
	badSecret, err := auth.NewAccessToken(srv.APIKey, "not-the-secret").
		SetIdentity("candidate").SetVideoGrant(&auth.VideoGrant{RoomJoin: true, Room: "errors"}).ToJWT()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no URL", Options{Token: srv.Token("candidate", "errors")}, "URL and Token are required"},
		{"token signed with another secret", Options{URL: srv.URL, Token: badSecret}, "is the token valid?"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Join(testContext(t, 20*time.Second), tc.opts)
			if err == nil {
				b.Leave()
				t.Fatal("Join succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
}

// testAudio: an agent bot and a standard participant bot speak in turn;
// each listener measures only the participants it listens to, the voiced
// duration it hears matches what was sent, and silence keeps flowing
// between utterances.
func testAudio(t *testing.T, srv *lktest.Server) {
	const room = "audio"
	agent := join(t, srv, "agent", room, Options{}, asAgent)
	peer := join(t, srv, "peer", room, Options{})

	listeners := []struct {
		name      string
		opts      Options
		hearAgent bool
		hearPeer  bool
	}{
		{"default listens to the agent", Options{}, true, false},
		{"ListenTo a standard participant", Options{ListenTo: identityIs("peer")}, false, true},
		{"ListenTo nobody", Options{ListenTo: func(*lksdk.RemoteParticipant) bool { return false }}, false, false},
	}
	bots := make([]*Bot, len(listeners))
	for i, l := range listeners {
		bots[i] = join(t, srv, fmt.Sprintf("listener-%d", i), room, l.opts)
	}
	ctx := testContext(t, 60*time.Second)

	// The microphone tracks carry silence before anyone speaks.
	for i, l := range listeners {
		if !l.hearAgent && !l.hearPeer {
			continue
		}
		if err := bots[i].wait(ctx, func() bool { return bots[i].AgentAudio().Received >= 300*time.Millisecond }); err != nil {
			t.Fatalf("%s: no silence frames before speech: %v", l.name, err)
		}
		if v := bots[i].AgentAudio().Voiced; v != 0 {
			t.Errorf("%s: %s voiced before anyone spoke", l.name, v)
		}
	}

	utterances := []struct {
		speaker *Bot
		text    string
		heard   func(i int) bool
	}{
		{agent, "hello there this is a test", func(i int) bool { return listeners[i].hearAgent }},
		{peer, "one two three four five six seven eight nine ten", func(i int) bool { return listeners[i].hearPeer }},
	}
	for _, u := range utterances {
		pcm, err := u.speaker.Speech(ctx, u.text)
		if err != nil {
			t.Fatal(err)
		}
		sent := VoicedDuration(pcm, DefaultVoicedRMS)
		before := make([]AudioStats, len(bots))
		for i, b := range bots {
			before[i] = b.AgentAudio()
		}
		start := time.Now()
		said := make(chan error, 1)
		go func() { said <- u.speaker.Say(ctx, pcm) }()

		for i, b := range bots {
			if !u.heard(i) {
				continue
			}
			if err := b.WaitAgentSpeech(ctx, 200*time.Millisecond); err != nil {
				t.Fatalf("%s: %q: %v", listeners[i].name, u.text, err)
			}
			if !b.AgentSpeaking() {
				t.Errorf("%s: AgentSpeaking = false while %s speaks", listeners[i].name, u.speaker.Identity())
			}
		}
		if err := <-said; err != nil {
			t.Fatalf("%s says %q: %v", u.speaker.Identity(), u.text, err)
		}
		if took, dur := time.Since(start), pcmDuration16kHz(len(pcm)); took < dur-50*time.Millisecond {
			t.Errorf("Say returned after %s, before the %s utterance could play out", took, dur)
		}
		for i, b := range bots {
			if err := b.WaitAgentSilence(ctx, 400*time.Millisecond); err != nil {
				t.Fatalf("%s: %v", listeners[i].name, err)
			}
			got := b.AgentAudio()
			heard := got.Voiced - before[i].Voiced
			t.Logf("%s: %q: sent %s voiced (%s long), heard %s voiced; received %s in %s", listeners[i].name, u.text, sent, pcmDuration16kHz(len(pcm)), heard, got.Received-before[i].Received, time.Since(start))
			if !u.heard(i) {
				if heard != 0 {
					t.Errorf("%s: heard %s of %s's speech, want none", listeners[i].name, heard, u.speaker.Identity())
				}
				continue
			}
			// Opus and 20 ms framing move a few frames either way; a loaded
			// machine can lose a burst of packets. Counting silence as
			// speech, or a sample-rate mix-up, falls far outside.
			if heard < sent*6/10 || heard > sent*11/10 {
				t.Errorf("%s: heard %s voiced, want 60%%-110%% of the %s sent", listeners[i].name, heard, sent)
			}
			// The speech is timed at the packets' arrival, and a client's
			// jitter buffer lets its first packet go no earlier.
			for _, sp := range b.VoicedSpans() {
				if sp.Start.Before(start) {
					continue
				}
				if sp.Buffered.IsZero() || sp.Buffered.Before(sp.Start) {
					t.Errorf("%s: a voiced span arrived at %s and left the jitter buffer at %s", listeners[i].name,
						sp.Start.Sub(start), sp.Buffered.Sub(start))
				}
				break
			}
			if b.AgentSpeaking() {
				t.Errorf("%s: AgentSpeaking = true after 400 ms of silence", listeners[i].name)
			}
			// Silence keeps arriving after the utterance: the track flows.
			mark := got.Received
			if err := b.wait(ctx, func() bool { return b.AgentAudio().Received >= mark+200*time.Millisecond }); err != nil {
				t.Errorf("%s: no audio after the utterance: %v", listeners[i].name, err)
			}
		}
	}

	// Cancelling Say stops the candidate mid-utterance: the rest of the
	// audio is dropped at once.
	pcm, err := peer.Speech(ctx, utterances[1].text)
	if err != nil {
		t.Fatal(err)
	}
	before := bots[1].AgentAudio().Voiced
	sayCtx, cancel := context.WithTimeout(ctx, 600*time.Millisecond)
	err = peer.Say(sayCtx, pcm)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Say cancelled after 600ms of a %s utterance: %v, want a deadline error", pcmDuration16kHz(len(pcm)), err)
	}
	if err := bots[1].WaitAgentSilence(ctx, 400*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if heard := bots[1].AgentAudio().Voiced - before; heard == 0 || heard > 700*time.Millisecond {
		t.Errorf("heard %s of a cut-off utterance, want some and at most the 600 ms played", heard)
	}

	for i, l := range listeners {
		if !l.hearAgent && !l.hearPeer {
			if got := bots[i].AgentAudio(); got.Received != 0 {
				t.Errorf("%s: received %s of audio, want none", l.name, got.Received)
			}
		}
	}
}

// testCaptions: lk.transcription streams arrive with their sender identity
// as livekit-server delivers it and their attributes.
func testCaptions(t *testing.T, srv *lktest.Server) {
	const room = "captions"
	agent := join(t, srv, "agent", room, Options{}, asAgent)
	other := join(t, srv, "other", room, Options{})
	cand := join(t, srv, "candidate", room, Options{})
	ctx := testContext(t, 30*time.Second)

	long := ""
	for len(long) < 2*maxStreamChunkBytes+100 {
		long += "réponse très longue, "
	}
	tests := []struct {
		name       string
		from       *Bot
		onBehalfOf string
		segment    string
		final      string
		text       string
		wantSender string
	}{
		{"agent's own interim caption", agent, "", "seg-a1", "false", "Hello and", "agent"},
		{"agent's own final caption", agent, "", "seg-a2", "true", "Hello and welcome.", "agent"},
		{"agent captions the candidate", agent, "candidate", "seg-c1", "true", "I build payment systems.", "candidate"},
		{"a standard participant cannot caption for another", other, "candidate", "seg-o1", "true", "spoofed", "other"},
		{"multi-chunk text arrives whole", agent, "", "seg-a3", "true", long, "agent"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			track := tc.from.MicTrackID()
			if tc.onBehalfOf == "candidate" {
				track = cand.MicTrackID()
			}
			attrs := map[string]string{attrSegmentID: tc.segment, attrTranscriptionFinal: tc.final, attrTranscribedTrackID: track}
			if err := publishTextStream(tc.from.Room().LocalParticipant, topicTranscription, tc.text, attrs, tc.onBehalfOf); err != nil {
				t.Fatal(err)
			}
			c, err := cand.WaitCaption(ctx, func(c Caption) bool { return c.SegmentID == tc.segment })
			if err != nil {
				t.Fatal(err)
			}
			if c.Sender != tc.wantSender || c.Text != tc.text || c.TrackID != track || c.Final != (tc.final == "true") {
				t.Errorf("caption = {sender %q, track %q, final %v, %d chars}, want {%q, %q, %s, %d chars}",
					c.Sender, c.TrackID, c.Final, len(c.Text), tc.wantSender, track, tc.final, len(tc.text))
			}
			if c.At.Before(c.StartedAt) {
				t.Errorf("caption completed at %v before it started at %v", c.At, c.StartedAt)
			}
		})
	}
	var agentFinals []string
	for _, c := range cand.FinalCaptions("agent") {
		agentFinals = append(agentFinals, c.SegmentID)
	}
	if fmt.Sprint(agentFinals) != "[seg-a2 seg-a3]" {
		t.Errorf("FinalCaptions(agent) segments = %v, want [seg-a2 seg-a3]", agentFinals)
	}
	if got := cand.FinalCaptions("candidate"); len(got) != 1 || got[0].SegmentID != "seg-c1" {
		t.Errorf("FinalCaptions(candidate) = %+v, want only seg-c1", got)
	}
}

// testLegacyTranscriptions: livekit.Transcription packets from the agent are
// reported per segment under the transcribed participant.
func testLegacyTranscriptions(t *testing.T, srv *lktest.Server) {
	agent, cand, ctx := agentAndCandidate(t, srv, "legacy")

	tests := []struct {
		name        string
		participant string
		track       string
		segments    []*livekit.TranscriptionSegment
	}{
		{"agent speech", "agent", agent.MicTrackID(), []*livekit.TranscriptionSegment{
			{Id: "L1", Text: "Hello", Final: false}, {Id: "L2", Text: "Hello there.", Final: true},
		}},
		{"candidate speech", "candidate", cand.MicTrackID(), []*livekit.TranscriptionSegment{
			{Id: "L3", Text: "Hi.", Final: true},
		}},
	}
	var want []Caption
	for _, tc := range tests {
		pkt := &livekit.DataPacket{Value: &livekit.DataPacket_Transcription{Transcription: &livekit.Transcription{
			TranscribedParticipantIdentity: tc.participant, TrackId: tc.track, Segments: tc.segments,
		}}}
		if err := agent.Room().LocalParticipant.PublishDataPacket(rawPacket{pkt}, lksdk.WithDataPublishReliable(true)); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, s := range tc.segments {
			want = append(want, Caption{Sender: tc.participant, TrackID: tc.track, SegmentID: s.Id, Text: s.Text, Final: s.Final})
		}
	}
	if err := cand.wait(ctx, func() bool { return len(cand.LegacyTranscriptions()) >= len(want) }); err != nil {
		t.Fatalf("legacy transcriptions: %v (have %+v)", err, cand.LegacyTranscriptions())
	}
	got := cand.LegacyTranscriptions()
	for i := range want {
		g := got[i]
		if g.Sender != want[i].Sender || g.TrackID != want[i].TrackID || g.SegmentID != want[i].SegmentID || g.Text != want[i].Text || g.Final != want[i].Final {
			t.Errorf("segment %d = %+v, want %+v", i, g, want[i])
		}
	}
}

// testChat: SendChat is an lk.chat text stream from the candidate.
func testChat(t *testing.T, srv *lktest.Server) {
	agent, cand, ctx := agentAndCandidate(t, srv, "chat")
	for _, text := range []string{"I'd rather type this answer.", "Ünïcödé — ok"} {
		if err := cand.SendChat(ctx, text); err != nil {
			t.Fatal(err)
		}
		got, err := agent.WaitChat(ctx, func(c Chat) bool { return c.Text == text })
		if err != nil {
			t.Fatal(err)
		}
		if got.Sender != "candidate" {
			t.Errorf("chat %q from %q, want candidate", text, got.Sender)
		}
	}
	if n := len(cand.Chats()); n != 0 {
		t.Errorf("the sender recorded %d of its own chats", n)
	}
}

// testEvents: viva.events JSON objects arrive in order; other packets are
// ignored.
func testEvents(t *testing.T, srv *lktest.Server) {
	agent, cand, ctx := agentAndCandidate(t, srv, "events")
	send := func(topic, payload string) {
		t.Helper()
		err := agent.Room().LocalParticipant.PublishDataPacket(lksdk.UserData([]byte(payload)),
			lksdk.WithDataPublishTopic(topic), lksdk.WithDataPublishReliable(true))
		if err != nil {
			t.Fatal(err)
		}
	}
	send(topicEvents, `{"type":"stage_change","stage":"intro","stage_index":1}`)
	send("other.topic", `{"type":"stage_change","stage":"wrong"}`)
	send(topicEvents, `not json`)
	send(topicEvents, `{"type":"interview_ending"}`)

	ev, err := cand.WaitEvent(ctx, "interview_ending")
	if err != nil {
		t.Fatal(err)
	}
	if ev["type"] != "interview_ending" {
		t.Errorf("WaitEvent returned %v", ev)
	}
	ev, err = cand.WaitEvent(ctx, "stage_change")
	if err != nil || ev["stage"] != "intro" || ev["stage_index"] != 1.0 {
		t.Errorf("stage_change = %v, %v; want stage intro, index 1", ev, err)
	}
	all, _ := json.Marshal(cand.Events())
	if want := `[{"stage":"intro","stage_index":1,"type":"stage_change"},{"type":"interview_ending"}]`; string(all) != want {
		t.Errorf("Events() = %s, want %s", all, want)
	}
}

// testAgentAttributes: the agent is the AGENT participant without
// lk.publish_on_behalf, unless Options.Agent says otherwise; its attribute
// updates are seen as they happen.
func testAgentAttributes(t *testing.T, srv *lktest.Server) {
	const room = "attributes"
	ctx := testContext(t, 30*time.Second)
	imp := join(t, srv, "impostor", room, Options{}, canSetOwnAttr)
	imp.Room().LocalParticipant.SetAttributes(map[string]string{"viva.stage": "bogus"})
	join(t, srv, "avatar", room, Options{}, asAgent,
		lktest.WithAttributes(map[string]string{attrPublishOnBehalf: "agent", "viva.stage": "avatar"}))

	tests := []struct {
		name      string
		opts      Options
		wantAgent string
		wantStage string
	}{
		{"default agent rule", Options{}, "agent", "intro"},
		{"custom Agent rule", Options{Agent: identityIs("impostor")}, "impostor", "bogus"},
	}
	cands := make([]*Bot, len(tests))
	for i, tc := range tests {
		cands[i] = join(t, srv, fmt.Sprintf("candidate-%d", i), room, tc.opts)
		if id := cands[i].AgentIdentity(); tc.wantAgent == "agent" && id != "" {
			t.Errorf("%s: AgentIdentity = %q before the agent joined", tc.name, id)
		}
	}
	agent := join(t, srv, "agent", room, Options{}, asAgent, canSetOwnAttr,
		lktest.WithAttributes(map[string]string{"lk.agent.state": "initializing"}))

	for i, tc := range tests {
		id, err := cands[i].WaitAgent(ctx)
		if err != nil || id != tc.wantAgent {
			t.Errorf("%s: WaitAgent = %q, %v; want %q", tc.name, id, err, tc.wantAgent)
		}
	}
	if st, err := cands[0].WaitAttribute(ctx, "lk.agent.state", nil); err != nil || st != "initializing" {
		t.Errorf("initial lk.agent.state = %q, %v; want initializing (from the token)", st, err)
	}
	agent.Room().LocalParticipant.SetAttributes(map[string]string{
		"lk.agent.state": "listening", "viva.stage": "intro", "viva.stage_index": "1", "viva.stage_count": "4",
	})
	for i, tc := range tests {
		stage, err := cands[i].WaitAttribute(ctx, "viva.stage", func(v string) bool { return v == tc.wantStage })
		if err != nil {
			t.Errorf("%s: %v (attributes %v)", tc.name, err, cands[i].AgentAttributes())
		} else if stage != tc.wantStage {
			t.Errorf("%s: viva.stage = %q, want %q", tc.name, stage, tc.wantStage)
		}
	}
	if got := cands[0].AgentAttributes(); got["viva.stage_count"] != "4" || got["lk.agent.state"] != "listening" {
		t.Errorf("AgentAttributes = %v, want stage_count 4 and state listening", got)
	}
	// A predicate waits for a later value.
	go agent.Room().LocalParticipant.SetAttributes(map[string]string{"lk.agent.state": "speaking"})
	if st, err := cands[0].WaitAttribute(ctx, "lk.agent.state", func(v string) bool { return v == "speaking" }); err != nil || st != "speaking" {
		t.Errorf("lk.agent.state = %q, %v; want speaking", st, err)
	}
}

// testRoomDeleted: deleting the room (how the agent ends an interview)
// disconnects the bot with ROOM_DELETED and ends its waits; Leave is a
// client-initiated disconnection.
func testRoomDeleted(t *testing.T, srv *lktest.Server) {
	const room = "deleted"
	cand := join(t, srv, "candidate", room, Options{})
	leaver := join(t, srv, "leaver", room, Options{})
	ctx := testContext(t, 30*time.Second)

	leaver.Leave()
	leaver.Leave() // idempotent
	if got := leaver.DisconnectReason(); got != livekit.DisconnectReason_CLIENT_INITIATED {
		t.Errorf("after Leave: reason %s, want CLIENT_INITIATED", got)
	}

	waitErr := make(chan error, 1)
	go func() {
		_, err := cand.WaitEvent(ctx, "never_sent")
		waitErr <- err
	}()
	if _, err := srv.RoomClient().DeleteRoom(ctx, &livekit.DeleteRoomRequest{Room: room}); err != nil {
		t.Fatalf("DeleteRoom: %v", err)
	}
	select {
	case <-cand.Disconnected():
	case <-ctx.Done():
		t.Fatalf("not disconnected after DeleteRoom")
	}
	if got := cand.DisconnectReason(); got != livekit.DisconnectReason_ROOM_DELETED {
		t.Errorf("reason %s, want ROOM_DELETED", got)
	}
	if err := <-waitErr; !errors.Is(err, ErrDisconnected) {
		t.Errorf("pending WaitEvent = %v, want ErrDisconnected", err)
	}
	if err := cand.Say(ctx, make([]int16, MicSampleRateHz/10)); !errors.Is(err, ErrDisconnected) {
		t.Errorf("Say after disconnection = %v, want ErrDisconnected", err)
	}
	if err := cand.SendChat(ctx, "hello?"); !errors.Is(err, ErrDisconnected) {
		t.Errorf("SendChat after disconnection = %v, want ErrDisconnected", err)
	}
}

// TestMain quiets the SDK's process-wide logger (pion's connection steps at
// info level) the same way the bot treats its own SDK lines.
func TestMain(m *testing.M) {
	lksdk.SetLogger(worker.SDKLogger(slog.Default(), ""))
	os.Exit(m.Run())
}
