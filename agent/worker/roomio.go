package worker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/twitchtv/twirp"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/internal/utf8cut"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/lkagent"
)

// Data topics and attribute keys shared with LiveKit's frontends and viva's
// room page.
const (
	// TopicTranscription carries captions as text streams.
	TopicTranscription = "lk.transcription"
	// TopicChat carries typed candidate input as text streams.
	TopicChat = "lk.chat"
	// TopicEvents carries viva's JSON events (stage_change,
	// interview_ending, interview_saved) as reliable data packets.
	TopicEvents = "viva.events"

	// RPCEndInterview is the RPC method the candidate's page calls when the
	// candidate ends the interview, before it leaves the room: the
	// interview is then over at once instead of waiting for a rejoin.
	RPCEndInterview = "viva.end_interview"

	// AttrSegmentID names the caption segment a stream updates.
	AttrSegmentID = "lk.segment_id"
	// AttrTranscriptionFinal is "true" on a segment's last update.
	AttrTranscriptionFinal = "lk.transcription_final"
	// AttrTranscribedTrackID is the audio track the caption transcribes.
	AttrTranscribedTrackID = "lk.transcribed_track_id"
	// AttrInterrupted is "true" on the final caption of an interviewer
	// turn the candidate cut off; absent otherwise. LiveKit's own
	// frontends ignore it.
	AttrInterrupted = "viva.interrupted"

	// AttrStage is the current stage's name (greeting, intro, …).
	AttrStage = "viva.stage"
	// AttrStageTitle is the stage's human title.
	AttrStageTitle = "viva.stage_title"
	// AttrStageIndex is the stage's zero-based position.
	AttrStageIndex = "viva.stage_index"
	// AttrStageCount is the number of stages.
	AttrStageCount = "viva.stage_count"
	// AttrStageDeadline is the stage deadline in unix milliseconds.
	AttrStageDeadline = "viva.stage_deadline"
	// AttrThinking is "true" while the interviewer waits out the
	// candidate's thinking pause (the room page says "Take your time"),
	// "" otherwise.
	AttrThinking = "viva.thinking"

	// MaxChatBytes bounds one typed message; longer ones are cut at a rune
	// boundary, and streams announcing more than 4× this are dropped unread
	// (see OnChat).
	MaxChatBytes = 16 << 10
	// MaxEventBytes bounds one encoded event: LiveKit delivers reliable
	// data packets up to about 15 KiB.
	MaxEventBytes = 15_000

	// streamChunkBytes is the largest text stream chunk, as LiveKit SDKs send.
	streamChunkBytes = 15_000
)

// Segment is one caption update. Each publish carries the segment's whole
// text so far; frontends replace the text of a segment id with each update.
type Segment struct {
	// ID identifies the utterance; interim updates reuse it.
	ID string
	// SpeakerIdentity is whose words these are: the agent's own identity (or
	// empty) for the agent, the candidate's identity for the candidate.
	SpeakerIdentity string
	// TrackID is the transcribed audio track: the candidate's microphone or
	// the agent's own audio track.
	TrackID string
	// Text is the segment's text so far.
	Text string
	// Final marks the segment's last update.
	Final bool
	// Interrupted marks the final update of an interviewer turn the
	// candidate cut off (AttrInterrupted).
	Interrupted bool
}

// packet adapts a prepared protobuf data packet to lksdk.DataPacket.
type packet struct{ p *livekit.DataPacket }

// ToProto returns the packet unchanged.
func (p packet) ToProto() *livekit.DataPacket { return p.p }

// PublishTranscription publishes one caption update as LiveKit frontends
// read it: a text stream on lk.transcription whose sender is the speaker,
// with lk.segment_id, lk.transcription_final and lk.transcribed_track_id,
// and a legacy Transcription packet for older components. The room must be
// joined as an AGENT participant: livekit-server keeps a stream header's
// sender identity only when an agent sends it, and forwards transcription
// packets only from agents.
//
// The stream is built from header, chunk and trailer packets here because
// the SDK's text stream writer cannot set the sender identity (and sends
// asynchronously, dropping errors).
func PublishTranscription(room *lksdk.Room, seg Segment) error {
	if room == nil {
		return errors.New("worker: publish transcription: no room")
	}
	if seg.ID == "" {
		return errors.New("worker: publish transcription: segment id is empty")
	}
	speaker := seg.SpeakerIdentity
	if speaker == "" {
		speaker = room.LocalParticipant.Identity()
	}
	final := strconv.FormatBool(seg.Final)
	streamID, err := newStreamID()
	if err != nil {
		return fmt.Errorf("worker: publish transcription: %w", err)
	}
	text := []byte(seg.Text)
	total := uint64(len(text))
	attrs := map[string]string{
		AttrSegmentID:          seg.ID,
		AttrTranscriptionFinal: final,
		AttrTranscribedTrackID: seg.TrackID,
	}
	if seg.Interrupted && seg.Final {
		attrs[AttrInterrupted] = "true"
	}

	packets := []*livekit.DataPacket{{
		ParticipantIdentity: speaker,
		Value: &livekit.DataPacket_StreamHeader{StreamHeader: &livekit.DataStream_Header{
			StreamId:    streamID,
			Timestamp:   time.Now().UnixMilli(),
			Topic:       TopicTranscription,
			MimeType:    "text/plain",
			TotalLength: &total,
			Attributes:  attrs,
			ContentHeader: &livekit.DataStream_Header_TextHeader{TextHeader: &livekit.DataStream_TextHeader{
				OperationType: livekit.DataStream_CREATE,
			}},
		}},
	}}
	for i, chunk := range utf8cut.Chunks(text, streamChunkBytes) {
		packets = append(packets, &livekit.DataPacket{
			ParticipantIdentity: speaker,
			Value: &livekit.DataPacket_StreamChunk{StreamChunk: &livekit.DataStream_Chunk{
				StreamId:   streamID,
				ChunkIndex: uint64(i),
				Content:    chunk,
			}},
		})
	}
	packets = append(packets,
		&livekit.DataPacket{
			ParticipantIdentity: speaker,
			Value:               &livekit.DataPacket_StreamTrailer{StreamTrailer: &livekit.DataStream_Trailer{StreamId: streamID}},
		},
		&livekit.DataPacket{Value: &livekit.DataPacket_Transcription{Transcription: &livekit.Transcription{
			TranscribedParticipantIdentity: speaker,
			TrackId:                        seg.TrackID,
			// Start and end times stay zero, as LiveKit's own agents send:
			// components order segments by arrival.
			Segments: []*livekit.TranscriptionSegment{{Id: seg.ID, Text: seg.Text, Final: seg.Final}},
		}}},
	)
	for _, p := range packets {
		if err := room.LocalParticipant.PublishDataPacket(packet{p}, lksdk.WithDataPublishReliable(true)); err != nil {
			return fmt.Errorf("worker: publish transcription: %w", err)
		}
	}
	return nil
}

// newStreamID returns a random text stream id.
func newStreamID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("stream id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// SetAgentState sets the lk.agent.state attribute frontends read
// (lkagent.StateInitializing, StateListening, StateThinking or
// StateSpeaking).
// One of the last three must appear within 20 s of joining or LiveKit's
// useAgent reports the agent as failed.
func SetAgentState(room *lksdk.Room, state string) error {
	switch state {
	case lkagent.StateInitializing, lkagent.StateListening, lkagent.StateThinking, lkagent.StateSpeaking:
	default:
		return fmt.Errorf("worker: agent state %q is not one of initializing, listening, thinking, speaking", state)
	}
	if room == nil {
		return errors.New("worker: set agent state: no room")
	}
	room.LocalParticipant.SetAttributes(map[string]string{lkagent.AttrAgentState: state})
	return nil
}

// SetThinking sets or clears the agent's AttrThinking attribute.
func SetThinking(room *lksdk.Room, on bool) error {
	if room == nil {
		return errors.New("worker: set thinking: no room")
	}
	v := ""
	if on {
		v = "true"
	}
	room.LocalParticipant.SetAttributes(map[string]string{AttrThinking: v})
	return nil
}

// SetStage publishes the current stage as the agent's attributes
// viva.stage, viva.stage_title, viva.stage_index, viva.stage_count and
// viva.stage_deadline (unix ms; removed when Deadline is zero).
func SetStage(room *lksdk.Room, s agent.StageChange) error {
	switch {
	case s.Name == "":
		return errors.New("worker: set stage: stage name is empty")
	case s.Count <= 0 || s.Index < 0 || s.Index >= s.Count:
		return fmt.Errorf("worker: set stage: index %d of %d stages is out of range", s.Index, s.Count)
	case room == nil:
		return errors.New("worker: set stage: no room")
	}
	deadline := "" // an empty value removes the attribute
	if !s.Deadline.IsZero() {
		deadline = strconv.FormatInt(s.Deadline.UnixMilli(), 10)
	}
	room.LocalParticipant.SetAttributes(map[string]string{
		AttrStage:         s.Name,
		AttrStageTitle:    s.Title,
		AttrStageIndex:    strconv.Itoa(s.Index),
		AttrStageCount:    strconv.Itoa(s.Count),
		AttrStageDeadline: deadline,
	})
	return nil
}

// EventType names an event of the viva.events topic: the "type" member
// the room page switches on.
type EventType string

// The events a room session sends.
const (
	// EventStageChange: the interview entered a stage (StageChanged).
	EventStageChange EventType = "stage_change"
	// EventInterviewEnding: the interview is over and the room is about to
	// close (InterviewEnding).
	EventInterviewEnding EventType = "interview_ending"
	// EventInterviewSaved: the final record is saved (InterviewSaved).
	EventInterviewSaved EventType = "interview_saved"
)

// Event is one message of the viva.events topic. Its JSON members are its
// fields, then "type". Fields are declared in alphabetical order of their
// JSON names, so the encoding is byte for byte what clients have always
// read.
type Event interface {
	// EventType is the event's "type" member.
	EventType() EventType
}

// StageChanged tells the room page which stage the interview is in.
type StageChanged agent.StageChange

// MarshalJSON encodes the stage as the room page reads it: count,
// deadline (unix ms), forced, index, stage (the name) and title.
func (e StageChanged) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Count    int    `json:"count"`
		Deadline int64  `json:"deadline"`
		Forced   bool   `json:"forced"`
		Index    int    `json:"index"`
		Stage    string `json:"stage"`
		Title    string `json:"title"`
	}{e.Count, e.Deadline.UnixMilli(), e.Forced, e.Index, e.Name, e.Title})
}

// EventType is EventStageChange.
func (StageChanged) EventType() EventType { return EventStageChange }

// InterviewEnding tells the room page the interview is over: it shows its
// closing screen before the room is deleted.
type InterviewEnding struct {
	// EndedBy is what ended the interview.
	EndedBy interviews.EndReason `json:"ended_by"`
	// InterviewID identifies the record.
	InterviewID string `json:"interview_id"`
	// Message, when set, is one sentence the room page shows the
	// candidate instead of its usual closing words: why the interview
	// could not run.
	Message string `json:"message,omitempty"`
	// Status is the record's final status.
	Status interviews.Status `json:"status"`
}

// EventType is EventInterviewEnding.
func (InterviewEnding) EventType() EventType { return EventInterviewEnding }

// InterviewSaved tells the room page the final record is saved.
type InterviewSaved struct {
	// InterviewID identifies the record.
	InterviewID string `json:"interview_id"`
	// Status is the record's final status.
	Status interviews.Status `json:"status"`
}

// EventType is EventInterviewSaved.
func (InterviewSaved) EventType() EventType { return EventInterviewSaved }

// EncodeEvent encodes ev as the JSON object clients read: its members,
// then "type".
func EncodeEvent(ev Event) ([]byte, error) {
	b, err := json.Marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", ev.EventType(), err)
	}
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return nil, fmt.Errorf("encode %s: %T is not a JSON object", ev.EventType(), ev)
	}
	typ, err := json.Marshal(ev.EventType())
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", ev.EventType(), err)
	}
	out := make([]byte, 0, len(b)+len(`,"type":`)+len(typ))
	out = append(out, b[:len(b)-1]...)
	if len(b) > 2 {
		out = append(out, ',')
	}
	out = append(out, `"type":`...)
	out = append(out, typ...)
	return append(out, '}'), nil
}

// SendEvent sends ev as JSON on the viva.events topic to everyone in the
// room, reliably.
func SendEvent(room *lksdk.Room, ev Event) error {
	if room == nil {
		return errors.New("worker: send event: no room")
	}
	b, err := EncodeEvent(ev)
	if err != nil {
		return fmt.Errorf("worker: send event: %w", err)
	}
	if len(b) > MaxEventBytes {
		return fmt.Errorf("worker: send event: %d bytes is over the %d-byte limit: send an id and let clients fetch the rest", len(b), MaxEventBytes)
	}
	err = room.LocalParticipant.PublishDataPacket(lksdk.UserData(b),
		lksdk.WithDataPublishTopic(TopicEvents), lksdk.WithDataPublishReliable(true))
	if err != nil {
		return fmt.Errorf("worker: send event: %w", err)
	}
	return nil
}

// Limits on typed input (lk.chat text streams), so a participant cannot
// make the worker hold more than a few messages' worth of memory.
const (
	// maxOpenChatStreams bounds the lk.chat streams one participant may
	// have open at once; further ones are dropped unread.
	maxOpenChatStreams = 4
	// chatStreamTimeout is how long a stream may stay open: one that never
	// ends is cut then, and what arrived is its message.
	chatStreamTimeout = 30 * time.Second
)

// OnChat calls fn with the sender's identity and the text of every message
// typed into the room (text streams on lk.chat). fn runs on its own
// goroutine per message.
//
// A stream is read as it arrives, never buffered whole: one announcing
// more than 4×MaxChatBytes is dropped at its header; any other is cut at
// MaxChatBytes (at a rune boundary) or after chatStreamTimeout, whichever
// comes first, and the rest of it is discarded as it arrives. A
// participant with maxOpenChatStreams streams open has further ones
// dropped unread.
func OnChat(room *lksdk.Room, fn func(sender, text string)) error {
	_, err := onChat(room, fn)
	return err
}

// onChat is OnChat, returning the count of open streams it keeps.
func onChat(room *lksdk.Room, fn func(sender, text string)) (*streamCounter, error) {
	if room == nil {
		return nil, errors.New("worker: chat handler: no room")
	}
	open := &streamCounter{open: map[string]int{}}
	err := room.RegisterTextStreamHandler(TopicChat, func(r *lksdk.TextStreamReader, sender string) {
		// The SDK buffers a stream's chunks until it sees the trailer;
		// handing it one now makes it drop the stream and its later chunks.
		drop := func() { room.OnStreamTrailer(&livekit.DataStream_Trailer{StreamId: r.Info.Id}) }
		if size := r.Info.Size; size != nil && *size > 4*MaxChatBytes {
			drop()
			return
		}
		if !open.acquire(sender) {
			drop()
			return
		}
		defer open.release(sender)
		timer := time.AfterFunc(chatStreamTimeout, drop)
		defer timer.Stop()
		fn(sender, readChat(r, MaxChatBytes, drop))
	})
	if err != nil {
		return nil, fmt.Errorf("worker: chat handler: %w", err)
	}
	return open, nil
}

// readChat reads r until it ends or limit bytes have come, then calls
// drop, and returns the text cut to limit at a rune boundary.
func readChat(r io.Reader, limit int, drop func()) string {
	buf := make([]byte, 0, min(limit, 4<<10))
	chunk := make([]byte, 4<<10)
	for len(buf) <= limit {
		n, err := r.Read(chunk)
		buf = append(buf, chunk[:min(n, limit+1-len(buf))]...)
		if err != nil {
			break
		}
	}
	drop()
	return utf8cut.Truncate(string(buf), limit)
}

// streamCounter counts each participant's open streams.
type streamCounter struct {
	mu      sync.Mutex
	open    map[string]int
	refused int // streams refused for being one too many
}

// acquire counts one more stream of sender, unless sender already has
// maxOpenChatStreams open.
func (c *streamCounter) acquire(sender string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open[sender] >= maxOpenChatStreams {
		c.refused++
		return false
	}
	c.open[sender]++
	return true
}

// counts are the number of streams sender has open, and of streams
// refused so far.
func (c *streamCounter) counts(sender string) (open, refused int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open[sender], c.refused
}

// release counts one stream of sender less.
func (c *streamCounter) release(sender string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open[sender]--; c.open[sender] <= 0 {
		delete(c.open, sender)
	}
}

// OnEndRequest answers RPCEndInterview: fn gets the caller's identity and
// returns once the interview is saved as over (or why it could not be).
func OnEndRequest(room *lksdk.Room, fn func(caller string) error) error {
	if room == nil {
		return errors.New("worker: end request handler: no room")
	}
	err := room.RegisterRpcMethod(RPCEndInterview, func(d lksdk.RpcInvocationData) (string, error) {
		if err := fn(d.CallerIdentity); err != nil {
			return "", err
		}
		return "saved", nil
	})
	if err != nil {
		return fmt.Errorf("worker: end request handler: %w", err)
	}
	return nil
}

// EndRoom deletes the room so every participant is disconnected cleanly
// (an agent that merely leaves looks like a failure to LiveKit frontends).
// A room that no longer exists counts as ended.
func EndRoom(ctx context.Context, rc *lksdk.RoomServiceClient, name string) error {
	if rc == nil {
		return errors.New("worker: end room: no room service client")
	}
	_, err := rc.DeleteRoom(ctx, &livekit.DeleteRoomRequest{Room: name})
	var terr twirp.Error
	if errors.As(err, &terr) && terr.Code() == twirp.NotFound {
		return nil
	}
	if err != nil {
		return fmt.Errorf("worker: end room %s: %w", name, err)
	}
	return nil
}
