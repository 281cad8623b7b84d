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
	lkmedia "github.com/livekit/server-sdk-go/v2/pkg/media"
	"github.com/pion/webrtc/v4"

	media "github.com/livekit/media-sdk"
	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/agent/tts"
	"github.com/viva-interviews/viva/agent/voice"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/lkagent"
	"github.com/viva-interviews/viva/stages"
)

// Sessions runs spoken interviews: it is the worker's Handler, one session
// per job.
type Sessions struct {
	// Store holds the interview records. Required.
	Store *interviews.Store
	// Blueprint returns a blueprint by name (default stages.Builtin).
	Blueprint func(name string) (*stages.Blueprint, error)
	// NewLLM makes the interviewer model of one interview. Required.
	NewLLM func(m *fsm.Machine, bp *stages.Blueprint, p stages.Profile) llm.Client
	// STT and TTS are the speech engines. Required.
	STT stt.Engine
	TTS tts.Engine
	// Engines names the engines in the record.
	Engines interviews.Engines
	// TimeScale multiplies every stage limit and gate (0 means 1).
	TimeScale float64
	// Listener is the template of the input pipeline's options (its STT is
	// set per session).
	Listener voice.ListenerOptions
	// Rooms deletes rooms when an interview ends. Required.
	Rooms *lksdk.RoomServiceClient
	// EndGrace is the pause between the ending events and deleting the room
	// (default DefaultEndGrace).
	EndGrace time.Duration
	// CandidateTimeout bounds the wait for the candidate to join (default 10 min).
	CandidateTimeout time.Duration
	// RejoinGrace is how long an interview waits for a candidate who left
	// the room to come back and continue. The record is saved
	// candidate_left as they leave either way. Zero ends the interview at
	// once.
	RejoinGrace time.Duration
	// Logger is the worker's logger.
	Logger *slog.Logger
}

// DefaultEndGrace is how long a finished session waits after its ending
// events before it deletes the room.
const DefaultEndGrace = time.Second

// record loads or creates the interview record a job's dispatch metadata
// (interviews.Dispatch) names.
func (s *Sessions) record(meta, room string) (*interviews.Record, *stages.Blueprint, error) {
	d, err := interviews.ParseDispatch(meta)
	if err != nil {
		return nil, nil, err
	}
	return d.Open(s.Store, room, s.Blueprint)
}

// HandleJob holds one spoken interview in the job's room.
func (s *Sessions) HandleJob(ctx context.Context, job lkagent.Job) error {
	log := s.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("room", job.RoomName, "job", job.ID)
	rec, bp, err := s.record(job.Metadata, job.RoomName)
	if err != nil {
		log.Error("rejecting job", "err", err)
		return err
	}
	log = log.With("interview_id", rec.ID)
	engines := s.Engines
	rec.Engines = &engines
	sess := &session{s: s, job: job, log: log, bp: bp,
		events: make(chan any, 64), ops: make(chan func(), 256), opsDone: make(chan struct{}), done: make(chan struct{})}
	return sess.run(ctx, rec)
}

// session is one interview in one room. Its run loop owns the turn-taking
// state; room updates go through one ops goroutine so neither the loop nor
// the audio path waits on the network.
type session struct {
	s   *Sessions
	job lkagent.Job
	log *slog.Logger
	bp  *stages.Blueprint

	room     *lksdk.Room
	track    *lkmedia.PCMLocalTrack
	listener *voice.Listener
	speaker  *voice.Speaker
	c        *agent.Conductor

	events  chan any    // from callbacks, listener, speaker, timer → run loop
	ops     chan func() // room updates, in order
	opsDone chan struct{}
	// done is closed when the session ends: late posts and room updates
	// from callbacks and playback goroutines are then dropped, not blocked.
	done chan struct{}

	candidate    atomic.Value // string: the candidate's identity
	candidateMic atomic.Value // string: the candidate's microphone track sid
	micMu        sync.Mutex   // guards connecting a microphone to the listener
	sdkLog       protologger.Logger

	// Loop state.
	speaking          *speech // the reply being spoken, nil when quiet
	candidateSpeaking bool
	turnStarted       time.Time // first speech of the candidate turn being heard
	ackDue            bool
	away              bool // the candidate left and may rejoin
	llmFailures       int
	segments          int
	closingSince      time.Time
}

// speech is one agent reply on its way out.
type speech struct {
	reply     *agent.Reply
	utt       *voice.Utterance
	segment   string
	heardEnd  time.Time // end of the candidate speech it answers (voice turns)
	delivered bool
}

// Events the run loop receives.
type (
	evCandidateJoined struct{ identity string }
	evCandidateLeft   struct{}
	evDisconnected    struct{}
	evChat            struct{ sender, text string }
	evEndRequested    struct{ saved chan struct{} }
	evSpoken          struct{ sp *speech }
	evForced          struct{ tr fsm.Transition }
	evStage           struct{ ev fsm.Event }
)

// post hands an event to the run loop without blocking a callback forever.
func (ss *session) post(ev any) {
	select {
	case ss.events <- ev:
	case <-ss.done:
	case <-time.After(5 * time.Second):
		ss.log.Warn("session loop is not keeping up; dropped an event", "event", fmt.Sprintf("%T", ev))
	}
}

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

type listenerWriter struct{ l *voice.Listener }

// WriteSample feeds the listener; audio arriving after the session closed
// its listener is dropped quietly.
func (w listenerWriter) WriteSample(s media.PCM16Sample) error {
	if err := w.l.WriteSample(s); err != nil && !errors.Is(err, voice.ErrClosed) {
		return err
	}
	return nil
}
func (w listenerWriter) Close() error { return nil }

type trackSink struct{ *lkmedia.PCMLocalTrack }

func (t trackSink) WriteSample(pcm []int16) error { return t.PCMLocalTrack.WriteSample(pcm) }

func (ss *session) run(ctx context.Context, rec *interviews.Record) (err error) {
	s := ss.s
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go ss.runOps()
	defer func() {
		close(ss.done)
		<-ss.opsDone
	}()

	c, err := agent.NewInterview(agent.Setup{Blueprint: ss.bp, Record: rec, Store: s.Store, TimeScale: s.TimeScale,
		NewLLM: s.NewLLM, Logger: ss.log, OnEvent: func(ev fsm.Event) {
			if ev.Kind == fsm.EventStageEntered {
				ss.post(evStage{ev})
			}
		}})
	if err != nil {
		return err
	}
	ss.c = c
	if err := c.Recorder().Save(); err != nil {
		return fmt.Errorf("saving the interview record: %w", err)
	}

	lopts := s.Listener
	lopts.STT = s.STT
	if lopts.Logger == nil {
		lopts.Logger = ss.log
	}
	if ss.listener, err = voice.NewListener(ctx, lopts); err != nil {
		return ss.fail(fmt.Errorf("starting speech recognition: %w", err), "stt")
	}
	defer ss.listener.Close()

	cb := lksdk.NewRoomCallback()
	cb.OnParticipantConnected = func(p *lksdk.RemoteParticipant) {
		if p.Kind() != lksdk.ParticipantAgent {
			ss.post(evCandidateJoined{p.Identity()})
		}
	}
	cb.OnParticipantDisconnected = func(p *lksdk.RemoteParticipant) {
		if id, _ := ss.candidate.Load().(string); id != "" && p.Identity() == id {
			ss.post(evCandidateLeft{})
		}
	}
	cb.OnDisconnected = func() { ss.post(evDisconnected{}) }
	cb.ParticipantCallback.OnTrackSubscribed = func(track *webrtc.TrackRemote, pub *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
		ss.subscribed(track, pub, rp)
	}
	sdkLog := SDKLogger(ss.log, ss.job.Token)
	ss.sdkLog = sdkLog
	room, err := lksdk.ConnectToRoomWithToken(ss.job.URL, ss.job.Token, cb, lksdk.WithAutoSubscribe(true), lksdk.WithLogger(sdkLog))
	if err != nil {
		return ss.fail(fmt.Errorf("joining room %s: %w", ss.job.RoomName, err), "livekit")
	}
	ss.room = room
	defer room.Disconnect()
	ss.op(func() { _ = SetAgentState(room, lkagent.StateInitializing) }, false)
	if err := OnChat(room, func(sender, text string) { ss.post(evChat{sender, text}) }); err != nil {
		ss.log.Warn("typed input unavailable", "err", err)
	}
	if err := OnEndRequest(room, ss.endRequested); err != nil {
		ss.log.Warn("ending from the room page unavailable", "err", err)
	}

	track, err := lkmedia.NewPCMLocalTrack(s.TTS.SampleRate(), 1, sdkLog)
	if err != nil {
		return ss.fail(fmt.Errorf("creating the agent's audio track: %w", err), "livekit")
	}
	defer track.Close()
	ss.track = track
	if _, err := room.LocalParticipant.PublishTrack(track, &lksdk.TrackPublicationOptions{Name: "interviewer", Source: livekit.TrackSource_MICROPHONE}); err != nil {
		return ss.fail(fmt.Errorf("publishing the agent's audio: %w", err), "livekit")
	}
	if ss.speaker, err = voice.NewSpeaker(voice.SpeakerOptions{TTS: s.TTS, Sink: trackSink{track}, Logger: ss.log}); err != nil {
		return ss.fail(err, "tts")
	}

	// Wait for the candidate (who may already be in the room).
	for _, p := range room.GetRemoteParticipants() {
		if p.Kind() != lksdk.ParticipantAgent {
			ss.adopt(p)
			break
		}
	}
	wait := s.CandidateTimeout
	if wait <= 0 {
		wait = 10 * time.Minute
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for ss.candidateID() == "" {
		select {
		case ev := <-ss.events:
			if j, ok := ev.(evCandidateJoined); ok {
				ss.candidate.Store(j.identity)
			}
		case <-deadline.C:
			c.Finish(interviews.StatusCandidateLeft, "candidate_never_joined")
			ss.log.Info("the candidate never joined")
			return nil
		case <-ctx.Done():
			c.Finish(interviews.StatusFailed, interviews.EndedWorkerStopped)
			return nil
		}
	}
	ss.log.Info("candidate joined; starting the interview", "stt", s.STT.Name(), "tts", s.TTS.Name())
	ss.setState(lkagent.StateListening)

	timerCtx, stopTimer := context.WithCancel(ctx)
	defer stopTimer()
	go c.RunTimer(timerCtx, func(tr fsm.Transition) { ss.post(evForced{tr}) })

	ss.speak(ctx, c.Greet(ctx), time.Time{})
	return ss.loop(ctx)
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
	ss.post(evEndRequested{saved})
	select {
	case <-saved:
		return nil
	case <-ss.done:
		return nil
	case <-time.After(5 * time.Second):
		return errors.New("the interview could not be saved in time")
	}
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
	_, err := lkmedia.NewPCMRemoteTrack(track, listenerWriter{ss.listener},
		lkmedia.WithTargetSampleRate(stt.SampleRate), lkmedia.WithTargetChannels(1), lkmedia.WithLogger(ss.sdkLog))
	ss.micMu.Unlock()
	if err != nil {
		ss.log.Error("cannot decode the candidate's microphone", "err", err)
		return
	}
	ss.post(evCandidateJoined{rp.Identity()})
}

// loop is the session's turn-taking: one goroutine decides who speaks.
func (ss *session) loop(ctx context.Context) error {
	c := ss.c
	lev := ss.listener.Events()
	var safety, rejoin <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			ss.stopSpeaking()
			c.Finish(interviews.StatusFailed, interviews.EndedWorkerStopped)
			ss.log.Info("worker stopping: interview saved", "status", interviews.StatusFailed)
			return nil

		case <-c.Ended():
			if ss.speaking != nil && !ss.speaking.delivered {
				// The last deadline passed while the agent spoke: let it finish.
				if res := ss.speaking.utt.Wait(); res.Started {
					ss.delivered(ss.speaking, res)
				}
			}
			return ss.end(ctx)

		case <-rejoin:
			c.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateLeft)
			ss.log.Info("the candidate did not come back: interview saved")
			return nil

		case <-safety:
			ss.log.Warn("closing words did not finish in time; ending the interview")
			ss.stopSpeaking()
			c.Finish(interviews.StatusCompleted, interviews.EndedDeadline)

		case ev, ok := <-lev:
			if !ok {
				lev = nil
				continue
			}
			switch e := ev.(type) {
			case voice.SpeechStarted:
				ss.candidateSpeaking = true
				if ss.turnStarted.IsZero() {
					ss.turnStarted = e.At
				}
			case voice.SpeechEnded:
				ss.candidateSpeaking = false
				ss.maybeInterject(ctx)
			case voice.Transcript:
				ss.caption(voice.Transcript(e))
			case voice.STTStopped:
				ss.stopSpeaking()
				c.Finish(interviews.StatusFailed, interviews.EndedByProviderError("stt"))
				ss.log.Error("the speech recogniser failed: interview saved as failed")
				return ss.end(ctx)
			case voice.Interruption:
				if ss.speaking != nil {
					ss.log.Debug("barge-in: stopping the agent's audio", "speech", e.Speech)
					ss.speaking.utt.Interrupt()
					ss.speaking.reply.Cancel()
				}
			case voice.EndOfTurn:
				if strings.TrimSpace(e.Text) == "" {
					continue
				}
				ss.stopSpeaking()
				started := ss.turnStarted
				ss.turnStarted = time.Time{}
				if started.IsZero() {
					started = e.SpeechEndedAt
				}
				r := c.Respond(ctx, agent.CandidateTurn{Text: e.Text, Source: "voice", StartedAt: started, EndedAt: e.SpeechEndedAt,
					EndOfUtterance: e.Metrics.EndOfUtterance, STTFinal: e.Metrics.STTFinalDelay})
				ss.speak(ctx, r, e.SpeechEndedAt)
			}

		case ev := <-ss.events:
			switch e := ev.(type) {
			case evCandidateLeft:
				if ss.away {
					continue
				}
				ss.stopSpeaking()
				if grace := ss.s.RejoinGrace; grace > 0 && !c.Machine().Done() {
					// Saved candidate_left now; continued if they come back.
					c.Leave(grace)
					ss.away = true
					ss.candidateSpeaking, ss.turnStarted = false, time.Time{}
					rejoin = time.After(grace)
					ss.setState(lkagent.StateListening)
					continue
				}
				c.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateLeft)
				ss.log.Info("the candidate left: interview saved")
				return nil
			case evDisconnected:
				ss.stopSpeaking()
				c.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateLeft)
				ss.log.Info("disconnected from the room: interview saved")
				return nil
			case evEndRequested:
				ss.stopSpeaking()
				c.Finish(interviews.StatusCandidateLeft, interviews.EndedCandidateRequest)
				close(e.saved)
				ss.log.Info("the candidate ended the interview: saved")
				return ss.end(ctx)
			case evChat:
				text := strings.TrimSpace(e.text)
				if text == "" || e.sender != ss.candidateID() {
					continue
				}
				ss.stopSpeaking()
				now := time.Now()
				ss.caption(voice.Transcript{SegmentID: fmt.Sprintf("chat-%d", now.UnixNano()), Text: text, Final: true, At: now})
				ss.speak(ctx, c.Respond(ctx, agent.CandidateTurn{Text: text, Source: "text", StartedAt: now, EndedAt: now}), time.Time{})
			case evSpoken:
				if e.sp == ss.speaking {
					ss.speaking = nil
					ss.listener.SetAgentSpeaking(false)
					ss.setState(lkagent.StateListening)
				}
				if !e.sp.delivered {
					ss.delivered(e.sp, e.sp.utt.Wait())
				}
				ss.maybeInterject(ctx)
			case evForced:
				if !c.Machine().Done() {
					ss.ackDue = true
					ss.maybeInterject(ctx)
				}
			case evStage:
				ss.stageChanged(e.ev)
				if ss.bp.IsLast(e.ev.Stage) && safety == nil {
					scale := ss.s.TimeScale
					if scale <= 0 {
						scale = 1
					}
					safety = time.After(max(time.Duration(float64(ss.bp.ClosingSafetyTimeout())*scale), 5*time.Second))
				}
			case evCandidateJoined:
				if !ss.away {
					continue
				}
				if p := ss.room.GetParticipantByIdentity(e.identity); p != nil {
					ss.adopt(p)
				}
				r, err := c.Rejoin(ctx)
				if err != nil {
					ss.log.Warn("the candidate came back too late", "err", err)
					continue
				}
				ss.away, rejoin = false, nil
				ss.speak(ctx, r, time.Time{})
			}
		}
	}
}

// maybeInterject speaks a pending stage-change acknowledgement when nobody
// is speaking.
func (ss *session) maybeInterject(ctx context.Context) {
	if !ss.ackDue || ss.speaking != nil || ss.candidateSpeaking || ss.away {
		return
	}
	ss.ackDue = false
	if r, ok := ss.c.Interject(ctx); ok {
		ss.speak(ctx, r, time.Time{})
	}
}

// stopSpeaking interrupts the reply being spoken (if any) and records what
// was played of it.
func (ss *session) stopSpeaking() {
	sp := ss.speaking
	if sp == nil {
		return
	}
	ss.speaking = nil
	sp.reply.Cancel()
	sp.utt.Interrupt()
	ss.delivered(sp, sp.utt.Wait())
	ss.listener.SetAgentSpeaking(false)
}

// speak plays a reply: its text streams to the speaker as it is generated,
// and to the agent's captions.
func (ss *session) speak(ctx context.Context, r *agent.Reply, heardEnd time.Time) {
	ss.segments++
	sp := &speech{reply: r, segment: fmt.Sprintf("%s-agent-%d", ss.job.ID, ss.segments), heardEnd: heardEnd}
	ss.setState(lkagent.StateThinking)
	deltas := make(chan string, 64)
	go func() {
		defer close(deltas)
		var text strings.Builder
		for d := range r.Deltas() {
			text.WriteString(d)
			select {
			case deltas <- d:
			case <-ctx.Done():
				return
			}
			if strings.ContainsAny(d, ".?!") {
				ss.agentCaption(sp.segment, text.String(), false)
			}
		}
	}()
	sp.utt = ss.speaker.Say(ctx, deltas)
	ss.speaking = sp
	ss.listener.SetAgentSpeaking(true)
	go func() {
		select {
		case <-sp.utt.Started():
			ss.setState(lkagent.StateSpeaking)
		case <-sp.utt.Done():
		}
		<-sp.utt.Done()
		ss.post(evSpoken{sp})
	}()
}

// delivered tells the conductor what was actually played of a reply and
// publishes the final caption.
func (ss *session) delivered(sp *speech, res voice.Result) {
	if sp.delivered {
		return
	}
	sp.delivered = true
	text, err := sp.reply.Wait()
	if err != nil && !errors.Is(err, context.Canceled) {
		ss.llmFailures++
		ss.log.Error("the interviewer model failed", "err", err, "failures", ss.llmFailures)
		if ss.llmFailures >= 3 {
			ss.c.Finish(interviews.StatusFailed, interviews.EndedByProviderError("llm"))
		}
	} else if err == nil {
		ss.llmFailures = 0
	}
	played := res.PlayedText
	if !res.Interrupted && res.Err == nil {
		played = res.Text
		if played == "" {
			played = text
		}
	}
	d := agent.Delivery{Text: played, Interrupted: res.Interrupted, StartedAt: res.FirstAudioAt, EndedAt: time.Now(), TTSFirstByte: res.TTSFirstByte}
	if !sp.heardEnd.IsZero() && res.Started {
		d.EndToEnd = res.FirstAudioAt.Sub(sp.heardEnd)
	}
	sp.reply.Delivered(d)
	if played != "" {
		ss.agentCaption(sp.segment, played, true)
	}
}

// caption publishes the candidate's words under the candidate's identity.
func (ss *session) caption(t voice.Transcript) {
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

// agentCaption publishes the agent's words under its own identity.
func (ss *session) agentCaption(segment, text string, final bool) {
	room := ss.room
	trackID := ""
	for _, pub := range room.LocalParticipant.TrackPublications() {
		trackID = pub.SID()
	}
	seg := Segment{ID: segment, TrackID: trackID, Text: strings.TrimSpace(text), Final: final}
	ss.op(func() {
		if err := PublishTranscription(room, seg); err != nil {
			ss.log.Debug("caption not sent", "err", err)
		}
	}, !final)
}

func (ss *session) setState(state string) {
	room := ss.room
	ss.op(func() { _ = SetAgentState(room, state) }, false)
}

// stageChanged shows the new stage in the agent's attributes and sends a
// stage_change event.
func (ss *session) stageChanged(ev fsm.Event) {
	m := ss.c.Machine()
	st, _, _ := ss.bp.Stage(ev.Stage)
	info := StageInfo{Name: ev.Stage, Title: st.Title, Index: m.Index(), Count: m.Count(), Deadline: m.Deadline()}
	forced := ev.Transition != nil && ev.Transition.Forced
	room := ss.room
	ss.op(func() {
		if err := SetStage(room, info); err != nil {
			ss.log.Warn("stage attributes not set", "err", err)
		}
		_ = SendEvent(room, map[string]any{"type": "stage_change", "stage": info.Name, "title": info.Title,
			"index": info.Index, "count": info.Count, "deadline": info.Deadline.UnixMilli(), "forced": forced})
	}, false)
}

// end closes a finished interview: the ending event, the record saved,
// the saved event, the job reported, then the room deleted so every
// client disconnects cleanly.
func (ss *session) end(ctx context.Context) error {
	rec := ss.c.Recorder().Snapshot()
	room := ss.room
	done := make(chan struct{})
	ss.op(func() {
		_ = SendEvent(room, map[string]any{"type": "interview_ending", "interview_id": rec.ID, "status": rec.Status, "ended_by": rec.EndedBy})
		_ = SendEvent(room, map[string]any{"type": "interview_saved", "interview_id": rec.ID, "status": rec.Status})
		close(done)
	}, false)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	// Data packets are sent asynchronously: give the events time to reach
	// the clients (and their closing screens time to show) before the room
	// is deleted under them.
	grace := ss.s.EndGrace
	if grace <= 0 {
		grace = DefaultEndGrace
	}
	select {
	case <-time.After(grace):
	case <-ctx.Done():
	}
	ss.log.Info("interview over", "status", rec.Status, "ended_by", rec.EndedBy, "turns", len(rec.Turns))
	ss.job.Complete(nil)
	if ss.s.Rooms != nil {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := EndRoom(dctx, ss.s.Rooms, ss.job.RoomName); err != nil {
			ss.log.Warn("could not delete the room", "err", err)
		}
	}
	return nil
}

// fail ends the record as failed by a provider and returns err.
func (ss *session) fail(err error, provider string) error {
	ss.log.Error("interview failed", "err", err)
	if ss.c != nil {
		ss.c.Finish(interviews.StatusFailed, interviews.EndedByProviderError(provider))
	}
	return err
}
