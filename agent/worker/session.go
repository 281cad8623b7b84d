package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/livekit/protocol/livekit"
	protologger "github.com/livekit/protocol/logger"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/agent/recording"
	"github.com/viva-interviews/viva/agent/spoken"
	"github.com/viva-interviews/viva/agent/voice"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
	"github.com/viva-interviews/viva/lkagent"
	"github.com/viva-interviews/viva/stages"
)

// session is one interview in one room: the room's transport of the
// conversation loop (agent.Loop). It turns the candidate's speech, typed
// text and presence into the loop's inputs and plays, captions and shows
// what the loop says; the loop decides who speaks. Room updates go through
// one ops goroutine so neither the loop nor the audio path waits on the
// network.
type session struct {
	s   *Sessions
	eng Engines // the interview's engines
	job lkagent.Job
	log *slog.Logger
	bp  *stages.Blueprint
	// language is the language the interview is held in.
	language string
	tpl      *stages.Template // nil for none

	room  *lksdk.Room
	voice *spoken.Session // the audio, and the loop's transport
	c     *agent.Conductor
	audio *recording.Recorder // nil when not recording

	ops     chan func() // room updates, in order
	opsDone chan struct{}
	// chat joins typed messages into turns at a pace the loop keeps up
	// with.
	chat *chatGate
	// signals bounds the room page's integrity reports (dataPacket).
	signals signalGate
	// done is closed when the session ends: late posts and room updates
	// from callbacks and playback goroutines are then dropped, not blocked.
	done chan struct{}

	candidate    atomic.Value // string: the candidate's identity
	candidateMic atomic.Value // string: the candidate's microphone track sid
	away         atomic.Bool  // the candidate left the room and may come back
	micMu        sync.Mutex   // guards connecting a microphone to the listener
	sdkLog       protologger.Logger
}

// post hands an input to the loop without blocking a callback forever.
func (ss *session) post(in agent.Input) { ss.voice.Post(in) }

// op queues a room update; interim captions may be dropped when the queue
// is full, nothing else.
func (ss *session) op(f func(), droppable bool) {
	if droppable {
		select {
		case ss.ops <- f:
		default:
		}
		return
	}
	select {
	case ss.ops <- f:
	case <-ss.done:
	}
}

// runOps applies room updates in order until the session ends, then the
// ones still queued.
func (ss *session) runOps() {
	defer close(ss.opsDone)
	for {
		select {
		case f := <-ss.ops:
			f()
		case <-ss.done:
			for {
				select {
				case f := <-ss.ops:
					f()
				default:
					return
				}
			}
		}
	}
}

func (ss *session) run(ctx context.Context, rec *interviews.Record) (err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go ss.runOps()
	defer func() {
		close(ss.done)
		<-ss.opsDone
	}()

	loop, err := ss.newLoop(rec)
	if err != nil {
		return err
	}
	c := loop.Conductor()
	ss.c = c
	if err := c.Recorder().Save(); err != nil {
		return fmt.Errorf("saving the interview record: %w", err)
	}

	track, err := NewOpusTrack("viva_voice")
	if err != nil {
		return ss.fail(fmt.Errorf("creating the agent's audio track: %w", err), "livekit")
	}
	ss.audio = ss.startRecording(ctx, c.Recorder())
	defer ss.audio.Discard() // unless kept below
	ss.voice, err = spoken.New(ctx, spoken.Options{STT: ss.eng.STT, TTS: ss.eng.TTS, Listener: ss.s.Listener,
		Pacer: ss.s.pacer(), Out: track, Display: ss, Segment: ss.job.ID, Logger: ss.log,
		CandidateTap: ss.audio.Candidate, AgentTap: ss.audio.Agent, AgentCleared: ss.audio.AgentCleared})
	switch {
	case errors.Is(err, spoken.ErrSTT):
		return ss.fail(err, "stt")
	case err != nil:
		return ss.fail(err, "tts")
	}
	defer ss.voice.Close()

	ss.sdkLog = SDKLogger(ss.log, ss.job.Token)
	room, err := lksdk.ConnectToRoomWithToken(ss.job.URL, ss.job.Token, ss.roomCallback(), lksdk.WithAutoSubscribe(true), lksdk.WithLogger(ss.sdkLog))
	if err != nil {
		return ss.fail(fmt.Errorf("joining room %s: %w", ss.job.RoomName, err), "livekit")
	}
	ss.room = room
	defer room.Disconnect()
	if err := ss.joined(room, track); err != nil {
		return err
	}
	ss.log.Info("waiting for the candidate", "stt", ss.eng.STT.Name(), "tts", ss.eng.TTS.Name())
	if err := loop.Run(ctx, ss.voice); err != nil {
		ss.log.Error("interview failed", "err", err)
	}
	ss.keepRecording(c.Recorder())
	rec = c.Recorder().Snapshot()
	saveErr := c.Recorder().Close()
	switch rec.EndedBy {
	case interviews.EndedCandidateLeft, interviews.EndedCandidateNeverJoined, interviews.EndedWorkerStopped:
		// Nobody is left to see the ending, or the worker is going away.
		ss.logSaved(rec, saveErr)
		return saveErr
	}
	return errors.Join(ss.end(ctx, rec, saveErr), saveErr)
}

// newLoop sets up the conversation loop of the interview rec.
func (ss *session) newLoop(rec *interviews.Record) (*agent.Loop, error) {
	s := ss.s
	wait := s.CandidateTimeout
	if wait <= 0 {
		wait = DefaultCandidateTimeout
	}
	return agent.NewLoop(agent.Setup{Blueprint: ss.bp, Record: rec, Store: observeStore(s.Store, s.Metrics, rec), TimeScale: s.TimeScale,
		Models: ss.eng.Models, Template: ss.tpl, Logger: ss.log},
		agent.LoopOptions{JoinTimeout: wait, RejoinGrace: s.RejoinGrace,
			HearingTimeout:           positiveOr(s.HearingTimeout, config.DefaultHearingTimeout),
			FalseInterruptionTimeout: positiveOr(s.FalseInterruptionTimeout, config.DefaultFalseInterruptionTimeout),
			AwayAfter:                positiveOr(s.AwayAfter, config.DefaultAwayAfter)})
}

// roomCallback turns the room's events into the loop's inputs.
func (ss *session) roomCallback() *lksdk.RoomCallback {
	cb := lksdk.NewRoomCallback()
	cb.OnParticipantConnected = func(p *lksdk.RemoteParticipant) {
		if p.Kind() != lksdk.ParticipantAgent {
			ss.arrived(p)
		}
	}
	cb.OnParticipantDisconnected = func(p *lksdk.RemoteParticipant) {
		if id := ss.candidateID(); id != "" && p.Identity() == id {
			ss.away.Store(true)
			ss.post(agent.Left{})
		}
	}
	cb.OnDataPacket = ss.dataPacket
	cb.OnDisconnected = func() {
		ss.post(agent.Closed{Status: interviews.StatusCandidateLeft, Reason: interviews.EndedCandidateLeft})
	}
	cb.ParticipantCallback.OnTrackSubscribed = func(track *webrtc.TrackRemote, pub *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
		ss.subscribed(track, pub, rp)
	}
	// LiveKit tells the publisher when its track is first subscribed: the
	// candidate can hear the interviewer, and the greeting may start.
	cb.OnLocalTrackSubscribed = func(pub *lksdk.LocalTrackPublication, _ *lksdk.LocalParticipant) {
		if pub.Kind() == lksdk.TrackKindAudio {
			ss.post(agent.Hearing{})
		}
	}
	return cb
}

// joined readies the room the agent has just joined: its state, typed
// input, end requests, its voice, and a candidate already there.
func (ss *session) joined(room *lksdk.Room, track *OpusTrack) error {
	ss.op(func() { _ = SetAgentState(room, lkagent.StateInitializing) }, false)
	if err := OnChat(room, ss.typed); err != nil {
		ss.log.Warn("typed input unavailable", "err", err)
	}
	if err := OnEndRequest(room, ss.endRequested); err != nil {
		ss.log.Warn("ending from the room page unavailable", "err", err)
	}

	if _, err := room.LocalParticipant.PublishTrack(track.TrackLocalStaticRTP, &lksdk.TrackPublicationOptions{Name: "interviewer", Source: livekit.TrackSource_MICROPHONE}); err != nil {
		return ss.fail(fmt.Errorf("publishing the agent's audio: %w", err), "livekit")
	}

	// The candidate may already be in the room.
	for _, p := range room.GetRemoteParticipants() {
		if p.Kind() != lksdk.ParticipantAgent {
			ss.arrived(p)
			break
		}
	}
	return nil
}

// final is the record as the session left it, nil when the loop never
// started.
func (ss *session) final() *interviews.Record {
	if ss.c == nil {
		return nil
	}
	return ss.c.Recorder().Snapshot()
}

func (ss *session) candidateID() string { id, _ := ss.candidate.Load().(string); return id }

// errNotCandidate answers an end request from anyone but the candidate.
var errNotCandidate = errors.New("only the candidate can end the interview")

// endRequested is the candidate ending the interview from the room page:
// it returns once the loop has saved the record as over.
func (ss *session) endRequested(caller string) error {
	if caller == "" || caller != ss.candidateID() {
		return errNotCandidate
	}
	saved := make(chan struct{})
	ss.post(agent.EndRequested{Saved: saved})
	select {
	case <-saved:
		return nil
	case <-ss.done:
		return nil
	case <-time.After(5 * time.Second):
		return errors.New("the interview could not be saved in time")
	}
}

// typed takes a message the candidate typed into the room: captioned as
// theirs when the chat gate keeps it, and passed to the loop as part of a
// turn (see chatGate).
func (ss *session) typed(sender, text string) {
	text = strings.TrimSpace(text)
	if text == "" || sender != ss.candidateID() {
		return
	}
	if !ss.chat.Add(text) {
		ss.log.Debug("typed message dropped: the candidate types faster than the chat's limits")
		return
	}
	now := time.Now()
	ss.Caption(voice.Transcript{SegmentID: fmt.Sprintf("chat-%d", now.UnixNano()), Text: text, Final: true, At: now})
}

// typedTurn passes what the candidate typed to the loop as one turn.
func (ss *session) typedTurn(text string, startedAt, endedAt time.Time) {
	ss.post(agent.CandidateTurn{Text: text, Source: agent.SourceText, StartedAt: startedAt, EndedAt: endedAt})
}

// chatNotice tells the candidate the catalogue's sentence key, in the
// interview's language, in the interviewer's captions, without speaking
// it or recording it as said.
func (ss *session) chatNotice(key lang.Key) {
	ss.log.Warn("typed messages dropped: the candidate was asked to slow down")
	ss.AgentCaption(fmt.Sprintf("chat-notice-%d", time.Now().UnixNano()), lang.Text(ss.language, key), true, false)
}

// arrived takes a participant who joined as the candidate: the first one,
// or anyone once the candidate has left (they may come back under a new
// identity). Others are left alone.
func (ss *session) arrived(p *lksdk.RemoteParticipant) {
	if ss.candidateID() != "" && !ss.away.Load() {
		return
	}
	ss.away.Store(false)
	ss.adopt(p)
	ss.post(agent.Joined{})
}

// adopt makes p the candidate and connects the microphone it already
// publishes: at the start, and when the candidate rejoins (possibly under
// a new identity).
func (ss *session) adopt(p *lksdk.RemoteParticipant) {
	ss.candidate.Store(p.Identity())
	for _, pub := range p.TrackPublications() {
		if rpub, ok := pub.(*lksdk.RemoteTrackPublication); ok && rpub.TrackRemote() != nil {
			ss.subscribed(rpub.TrackRemote(), rpub, p)
		}
	}
}

// subscribed connects the candidate's microphone to the listener, once per
// track: a candidate who rejoins brings a new one.
func (ss *session) subscribed(track *webrtc.TrackRemote, pub *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
	if track.Kind() != webrtc.RTPCodecTypeAudio || rp.Kind() == lksdk.ParticipantAgent {
		return
	}
	if id := ss.candidateID(); id != "" && id != rp.Identity() {
		return
	}
	ss.micMu.Lock()
	if mic, _ := ss.candidateMic.Load().(string); mic == pub.SID() {
		ss.micMu.Unlock()
		return
	}
	ss.candidate.Store(rp.Identity())
	ss.candidateMic.Store(pub.SID())
	// The previous microphone's track (if any) ends with its participant.
	in, err := ss.voice.NewCandidateInput()
	ss.micMu.Unlock()
	if err != nil {
		ss.log.Error("cannot decode the candidate's microphone", "err", err)
		return
	}
	if track.Codec().MimeType != webrtc.MimeTypeOpus {
		ss.log.Error("cannot decode the candidate's microphone: it is not Opus", "codec", track.Codec().MimeType)
		return
	}
	go readMicrophone(track, in, ss.log)
	ss.post(agent.Joined{})
}

// Thinking shows (or stops showing) that the interviewer waits while
// the candidate thinks mid-answer: the room page says "Take your time".
func (ss *session) Thinking(on bool) {
	room := ss.room
	ss.op(func() {
		if err := SetThinking(room, on); err != nil {
			ss.log.Debug("thinking attribute not set", "err", err)
		}
	}, false)
}

// Caption publishes the candidate's words under the candidate's identity.
func (ss *session) Caption(t voice.Transcript) {
	id := ss.candidateID()
	mic, _ := ss.candidateMic.Load().(string)
	room := ss.room
	seg := Segment{ID: t.SegmentID, SpeakerIdentity: id, TrackID: mic, Text: t.Text, Final: t.Final}
	ss.op(func() {
		if err := PublishTranscription(room, seg); err != nil {
			ss.log.Debug("caption not sent", "err", err)
		}
	}, !t.Final)
}

// AgentCaption publishes the agent's words under its own identity;
// interrupted marks a final caption cut off by the candidate.
func (ss *session) AgentCaption(segment, text string, final, interrupted bool) {
	room := ss.room
	trackID := ""
	for _, pub := range room.LocalParticipant.TrackPublications() {
		trackID = pub.SID()
	}
	seg := Segment{ID: segment, TrackID: trackID, Text: strings.TrimSpace(text), Final: final, Interrupted: interrupted}
	ss.op(func() {
		if err := PublishTranscription(room, seg); err != nil {
			ss.log.Debug("caption not sent", "err", err)
		}
	}, !final)
}

// State sets the agent's lk.agent.state attribute, and tells the chat
// gate whether the interviewer is replying.
func (ss *session) State(state spoken.State) {
	ss.chat.Replying(state == spoken.StateThinking || state == spoken.StateSpeaking)
	room := ss.room
	ss.op(func() { _ = SetAgentState(room, agentStates[state]) }, false)
}

// agentStates are the lk.agent.state values of the spoken session's states.
var agentStates = map[spoken.State]string{
	spoken.StateListening: lkagent.StateListening,
	spoken.StateThinking:  lkagent.StateThinking,
	spoken.StateSpeaking:  lkagent.StateSpeaking,
}

// StageEntered shows the new stage in the agent's attributes and sends a
// stage_change event.
func (ss *session) StageEntered(sc agent.StageChange) {
	room := ss.room
	ss.op(func() {
		if err := SetStage(room, sc); err != nil {
			ss.log.Warn("stage attributes not set", "err", err)
		}
		_ = SendEvent(room, StageChanged(sc))
	}, false)
}

// end closes a finished interview: the ending event, the saved event, the
// job reported, then the room deleted so every client disconnects cleanly.
func (ss *session) end(ctx context.Context, rec *interviews.Record, saveErr error) error {
	room := ss.room
	done := make(chan struct{})
	ss.op(func() {
		_ = SendEvent(room, InterviewEnding{InterviewID: rec.ID, Status: rec.Status, EndedBy: rec.EndedBy})
		_ = SendEvent(room, InterviewSaved{InterviewID: rec.ID, Status: rec.Status})
		close(done)
	}, false)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	// Data packets are sent asynchronously: the events need time to reach
	// the clients before the room is deleted under them.
	ss.s.closeRoom(ctx, ss.log, ss.job.RoomName, func() {
		ss.logSaved(rec, saveErr)
		ss.job.Complete(saveErr)
	})
	return nil
}

// logSaved is the session's last word on the record: "interview saved"
// only when its last save succeeded, an error naming the failed saves
// otherwise.
func (ss *session) logSaved(rec *interviews.Record, saveErr error) {
	if saveErr != nil {
		ss.log.Error("interview NOT saved: the last save of the record failed", "failed_saves", ss.c.Recorder().Failures(),
			"status", rec.Status, "ended_by", rec.EndedBy, "turns", len(rec.Turns), "err", saveErr)
		return
	}
	ss.log.Info("interview saved", "status", rec.Status, "ended_by", rec.EndedBy, "turns", len(rec.Turns),
		"failed_saves_retried", ss.c.Recorder().Failures())
}

// fail ends the record as failed by a provider and returns err.
func (ss *session) fail(err error, provider string) error {
	ss.log.Error("interview failed", "err", err)
	if ss.c != nil {
		ss.c.Finish(interviews.StatusFailed, interviews.EndedByProviderError(provider))
	}
	return err
}
