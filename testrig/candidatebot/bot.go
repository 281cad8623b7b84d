// Package candidatebot is a simulated interview candidate for end-to-end
// tests against a real livekit-server. A Bot joins a room the way a
// candidate's browser does: it publishes a 16 kHz mono microphone track,
// speaks utterances into it (raw PCM or flite speech), types on the lk.chat
// topic, and records everything the interviewer agent shows a LiveKit
// frontend: the agent's audio (how much of it was voiced, and when),
// lk.transcription captions under their sender's identity, legacy
// transcription packets, viva.events JSON events, and the agent's
// participant attributes (lk.agent.state, viva.stage, …).
//
// Every observation is safe for concurrent use, and every Wait method
// blocks on a change notification (no polling), returning early with
// ErrDisconnected when the room goes away before the condition holds.
package candidatebot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/livekit/protocol/livekit"
	protologger "github.com/livekit/protocol/logger"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/viva-interviews/viva/agent/tts/flite"
	"github.com/viva-interviews/viva/agent/worker"
)

// LiveKit topics and attribute keys the bot reads and writes, as LiveKit's
// own frontends and agents use them.
const (
	topicTranscription     = "lk.transcription"
	topicChat              = "lk.chat"
	topicEvents            = "viva.events"
	attrSegmentID          = "lk.segment_id"
	attrTranscriptionFinal = "lk.transcription_final"
	attrTranscribedTrackID = "lk.transcribed_track_id"
	attrPublishOnBehalf    = "lk.publish_on_behalf"
)

const (
	// MicSampleRateHz is the rate of the PCM that Say plays (mono PCM16)
	// and of the agent audio the bot analyses.
	MicSampleRateHz = 16000
	// MicTrackName is the name of the published microphone track.
	MicTrackName = "microphone"
	// micStartTimeout bounds how long Join waits for the microphone track
	// to be bound to the publisher connection (samples written before that
	// are dropped by the track).
	micStartTimeout = 10 * time.Second
)

// ErrDisconnected is returned (wrapped, with the reason) by Say and by the
// Wait methods when the bot is no longer in the room.
var ErrDisconnected = errors.New("candidatebot: not connected to the room")

// Options configures a Bot.
type Options struct {
	// URL is the LiveKit signal URL (ws://host:port).
	URL string
	// Token is a join token for the candidate's identity and room. The bot
	// never logs it.
	Token string
	// Logger receives the bot's and the LiveKit SDK's log lines; nil means
	// slog.Default().
	Logger *slog.Logger
	// Agent reports whether a remote participant is the interviewer agent,
	// whose identity and attributes AgentIdentity, AgentAttributes and
	// WaitAttribute report. nil means what LiveKit's frontends look for: a
	// participant of kind AGENT without an lk.publish_on_behalf attribute
	// (an avatar worker publishing for the agent has one).
	Agent func(p *lksdk.RemoteParticipant) bool
	// ListenTo reports whether a remote participant's audio tracks count as
	// agent audio (AgentAudio and the speech/silence waits). nil means Agent.
	// Tests without an agent use it to listen to another bot.
	ListenTo func(p *lksdk.RemoteParticipant) bool
	// VoicedRMS is the RMS level (PCM16 units, full scale 32767) at or above
	// which a 20 ms frame of agent audio counts as voiced; 0 means
	// DefaultVoicedRMS.
	VoicedRMS float64
	// ManualSubscribe joins without subscribing to anything: the bot
	// receives the agent's audio only after SubscribeAgent, as a browser
	// that is slow to set up its audio would.
	ManualSubscribe bool
}

// IsInterviewer is the default Options.Agent: a participant of kind AGENT
// that does not publish on behalf of another (LiveKit's rule for finding
// the agent in a room).
func IsInterviewer(p *lksdk.RemoteParticipant) bool {
	return p.Kind() == lksdk.ParticipantAgent && p.Attributes()[attrPublishOnBehalf] == ""
}

// Bot is one simulated candidate in one room. Create it with Join and end it
// with Leave.
type Bot struct {
	log       *slog.Logger
	agent     func(*lksdk.RemoteParticipant) bool
	listenTo  func(*lksdk.RemoteParticipant) bool
	voicedRMS float64
	joinedAt  time.Time

	sdkLog  protologger.Logger
	room    *lksdk.Room
	mic     *micTrack
	micSID  string
	sayTurn chan struct{} // holds a token while an utterance plays
	ttsOnce sync.Once
	tts     *flite.Engine
	ttsErr  error

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every observation
	audio   AudioStats
	spans   []VoicedSpan
	// lastArrival is when agent audio last arrived, and lastArrivalAudio
	// how long that audio lasts, for LateFrames.
	lastArrival      time.Time
	lastArrivalAudio time.Duration
	captions         []Caption
	legacy           []Caption
	chats            []Chat
	events           []map[string]any
	left             bool
	reason           livekit.DisconnectReason

	disconnected chan struct{}
	disconnect   sync.Once
}

// newBot resolves opts into a Bot that is not yet connected.
func newBot(opts Options) *Bot {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	agent := opts.Agent
	if agent == nil {
		agent = IsInterviewer
	}
	listenTo := opts.ListenTo
	if listenTo == nil {
		listenTo = agent
	}
	rms := opts.VoicedRMS
	if rms <= 0 {
		rms = DefaultVoicedRMS
	}
	return &Bot{
		log:          log.With("component", "candidatebot"),
		agent:        agent,
		listenTo:     listenTo,
		voicedRMS:    rms,
		joinedAt:     time.Now(),
		changed:      make(chan struct{}),
		sayTurn:      make(chan struct{}, 1),
		disconnected: make(chan struct{}),
	}
}

// Join connects to the room as the candidate, publishes the microphone track
// (16 kHz mono PCM encoded to opus, source MICROPHONE, name "microphone")
// and subscribes to every remote track, decoding the audio of the
// participants Options.ListenTo selects. It returns once the microphone is
// sending (silence until Say), or an error if ctx ends first.
func Join(ctx context.Context, opts Options) (*Bot, error) {
	if opts.URL == "" || opts.Token == "" {
		return nil, errors.New("candidatebot: join: URL and Token are required (a LiveKit signal URL and a join token)")
	}
	start := time.Now()
	b := newBot(opts)
	sdkLog := worker.SDKLogger(b.log, opts.Token)
	b.sdkLog = sdkLog

	cb := lksdk.NewRoomCallback()
	cb.OnTrackSubscribed = b.onTrackSubscribed
	cb.OnTranscriptionReceived = b.onTranscription
	cb.OnDataPacket = b.onDataPacket
	cb.OnAttributesChanged = func(map[string]string, lksdk.Participant) { b.notify() }
	cb.OnParticipantConnected = func(*lksdk.RemoteParticipant) { b.notify() }
	cb.OnParticipantDisconnected = func(*lksdk.RemoteParticipant) { b.notify() }
	cb.OnTrackPublished = func(*lksdk.RemoteTrackPublication, *lksdk.RemoteParticipant) { b.notify() }
	cb.OnDisconnected = b.onDisconnected
	b.room = lksdk.NewRoom(cb)
	for topic, handler := range map[string]lksdk.TextStreamHandler{
		topicTranscription: b.onCaptionStream,
		topicChat:          b.onChatStream,
	} {
		if err := b.room.RegisterTextStreamHandler(topic, handler); err != nil {
			return nil, fmt.Errorf("candidatebot: join: register %s handler: %w", topic, err)
		}
	}
	if err := b.room.JoinWithContextAndToken(ctx, opts.URL, opts.Token, lksdk.WithLogger(sdkLog), lksdk.WithAutoSubscribe(!opts.ManualSubscribe)); err != nil {
		return nil, fmt.Errorf("candidatebot: join %s: %w (is livekit-server running there, and is the token valid?)", opts.URL, err)
	}
	b.joinedAt = time.Now()
	if err := b.publishMic(ctx); err != nil {
		b.Leave()
		return nil, err
	}
	b.log.Info("candidate bot joined", "room", b.room.Name(), "identity", b.Identity(), "mic_track", b.micSID,
		"took", time.Since(start).Round(time.Millisecond))
	return b, nil
}

// publishMic publishes the microphone track and waits until it is bound to
// the publisher connection, from when on it sends as a browser does (see
// micTrack): the agent must see the end of an utterance from a pause that
// sends almost nothing.
func (b *Bot) publishMic(ctx context.Context) error {
	mic, err := newMicTrack(b.disconnected)
	if err != nil {
		return fmt.Errorf("candidatebot: create microphone track: %w", err)
	}
	b.mic = mic
	pub, err := b.room.LocalParticipant.PublishTrack(b.mic, &lksdk.TrackPublicationOptions{
		Name:   MicTrackName,
		Source: livekit.TrackSource_MICROPHONE,
	})
	if err != nil {
		return fmt.Errorf("candidatebot: publish microphone track: %w", err)
	}
	b.micSID = pub.SID()
	timer := time.NewTimer(micStartTimeout)
	defer timer.Stop()
	select {
	case <-b.mic.bound:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("candidatebot: waiting for the microphone track to start: %w", ctx.Err())
	case <-b.disconnected:
		return fmt.Errorf("candidatebot: waiting for the microphone track to start: %w", b.disconnectErr())
	case <-timer.C:
		return fmt.Errorf("candidatebot: microphone track not connected within %s: check that livekit-server's RTC ports are reachable", micStartTimeout)
	}
}

// Identity is the bot's participant identity (from its token).
func (b *Bot) Identity() string { return b.room.LocalParticipant.Identity() }

// MicTrackID is the SID of the bot's microphone track: what an agent puts
// in lk.transcribed_track_id of the candidate's captions.
func (b *Bot) MicTrackID() string { return b.micSID }

// Room is the underlying SDK room, for tests that need to act in ways the
// bot does not model (for example publishing as an agent would).
func (b *Bot) Room() *lksdk.Room { return b.room }

// Leave disconnects from the room (a client-initiated leave, as a candidate
// closing the tab); decoding ends with the connection. It is idempotent;
// observations stay readable afterwards.
func (b *Bot) Leave() {
	b.mu.Lock()
	already := b.left
	b.left = true
	b.mu.Unlock()
	if already {
		return
	}
	b.markDisconnected(livekit.DisconnectReason_CLIENT_INITIATED)
	b.room.Disconnect()
}

// Disconnected is closed when the bot is no longer in the room: the server
// disconnected it (for example the room was deleted) or Leave was called.
func (b *Bot) Disconnected() <-chan struct{} { return b.disconnected }

// DisconnectReason is why the bot left the room (ROOM_DELETED when the room
// was deleted, CLIENT_INITIATED after Leave), UNKNOWN_REASON while connected.
func (b *Bot) DisconnectReason() livekit.DisconnectReason {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.reason
}

// onDisconnected runs when the server or the connection ends the session.
func (b *Bot) onDisconnected() {
	reason := b.room.DisconnectReason()
	b.log.Info("candidate bot disconnected", "reason", reason.String())
	b.markDisconnected(reason)
}

// markDisconnected records the first reason and closes Disconnected.
func (b *Bot) markDisconnected(reason livekit.DisconnectReason) {
	b.disconnect.Do(func() {
		b.mu.Lock()
		b.reason = reason
		b.mu.Unlock()
		close(b.disconnected)
		b.notify()
	})
}

// disconnectErr is ErrDisconnected with the reason.
func (b *Bot) disconnectErr() error {
	return fmt.Errorf("%w (%s)", ErrDisconnected, b.DisconnectReason())
}

// AgentIdentity is the identity of the remote participant Options.Agent
// selects ("" until one is in the room; the first by identity if several).
func (b *Bot) AgentIdentity() string {
	if p := b.agentParticipant(); p != nil {
		return p.Identity()
	}
	return ""
}

// AgentAttributes is a copy of the agent's participant attributes (empty
// until the agent is in the room).
func (b *Bot) AgentAttributes() map[string]string {
	if p := b.agentParticipant(); p != nil {
		return p.Attributes()
	}
	return map[string]string{}
}

// agentParticipant is the agent, or nil.
func (b *Bot) agentParticipant() *lksdk.RemoteParticipant {
	var agents []*lksdk.RemoteParticipant
	for _, p := range b.room.GetRemoteParticipants() {
		if b.agent(p) {
			agents = append(agents, p)
		}
	}
	if len(agents) == 0 {
		return nil
	}
	return slices.MinFunc(agents, func(x, y *lksdk.RemoteParticipant) int {
		return strings.Compare(x.Identity(), y.Identity())
	})
}

// SubscribeAgent waits until the agent publishes a track and subscribes to
// its tracks (see Options.ManualSubscribe).
func (b *Bot) SubscribeAgent(ctx context.Context) error {
	var pubs []*lksdk.RemoteTrackPublication
	err := b.wait(ctx, func() bool {
		pubs = pubs[:0]
		if p := b.agentParticipant(); p != nil {
			for _, pub := range p.TrackPublications() {
				if rp, ok := pub.(*lksdk.RemoteTrackPublication); ok {
					pubs = append(pubs, rp)
				}
			}
		}
		return len(pubs) > 0
	})
	if err != nil {
		return fmt.Errorf("candidatebot: waiting for the agent's tracks: %w", err)
	}
	for _, pub := range pubs {
		if err := pub.SetSubscribed(true); err != nil {
			return fmt.Errorf("candidatebot: subscribing to %s: %w", pub.SID(), err)
		}
	}
	return nil
}

// WaitAgent waits until the agent is in the room and returns its identity.
func (b *Bot) WaitAgent(ctx context.Context) (string, error) {
	var id string
	err := b.wait(ctx, func() bool {
		id = b.AgentIdentity()
		return id != ""
	})
	if err != nil {
		return "", fmt.Errorf("candidatebot: waiting for the agent to join: %w", err)
	}
	return id, nil
}

// WaitAttribute waits until the agent has attribute key with a value pred
// accepts (any value if pred is nil) and returns that value. The current
// value counts, so there is no race with an update made before the call.
func (b *Bot) WaitAttribute(ctx context.Context, key string, pred func(string) bool) (string, error) {
	var v string
	var ok bool
	err := b.wait(ctx, func() bool {
		v, ok = b.AgentAttributes()[key]
		return ok && (pred == nil || pred(v))
	})
	if err != nil {
		if ok {
			return "", fmt.Errorf("candidatebot: waiting for agent attribute %s (now %q): %w", key, v, err)
		}
		return "", fmt.Errorf("candidatebot: waiting for agent attribute %s (not set): %w", key, err)
	}
	return v, nil
}
