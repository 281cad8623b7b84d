package candidatebot

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"
)

// Caption is one transcription the bot received: a whole lk.transcription
// text stream, or one segment of a legacy livekit.Transcription packet.
type Caption struct {
	// Sender is who spoke: for a text stream the sender identity the SDK
	// reports for it (an agent may send on behalf of the candidate), for a
	// legacy packet its transcribed_participant_identity.
	Sender string
	// SegmentID is lk.segment_id (legacy: the segment's id). Interim
	// updates of one segment share it.
	SegmentID string
	// TrackID is lk.transcribed_track_id (legacy: the track_id, when the
	// bot knows that track).
	TrackID string
	// Final is lk.transcription_final == "true" (legacy: the segment's final
	// flag).
	Final bool
	// Text is the stream's whole text (legacy: the segment's text).
	Text string
	// Attributes are the stream's attributes, header and trailer merged
	// (nil for legacy packets).
	Attributes map[string]string
	// StartedAt is when the stream's header arrived (legacy: as At).
	StartedAt time.Time
	// At is when the stream completed (legacy: when the packet arrived).
	At time.Time
}

// Chat is one lk.chat text stream the bot received from another participant.
type Chat struct {
	// Sender is the sender identity the SDK reports.
	Sender string
	// Text is the message.
	Text string
	// At is when it arrived in full.
	At time.Time
}

// Captions is every lk.transcription text stream received so far, in order
// of completion.
func (b *Bot) Captions() []Caption {
	b.mu.Lock()
	defer b.mu.Unlock()
	return cloneCaptions(b.captions)
}

// FinalCaptions is the final lk.transcription captions whose sender is
// sender, in order of completion.
func (b *Bot) FinalCaptions(sender string) []Caption {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Caption
	for _, c := range b.captions {
		if c.Final && c.Sender == sender {
			out = append(out, cloneCaption(c))
		}
	}
	return out
}

// LegacyTranscriptions is every segment of the livekit.Transcription packets
// received so far, in order of arrival.
func (b *Bot) LegacyTranscriptions() []Caption {
	b.mu.Lock()
	defer b.mu.Unlock()
	return cloneCaptions(b.legacy)
}

// WaitCaption waits for an lk.transcription caption that match accepts and
// returns it; captions received before the call count.
func (b *Bot) WaitCaption(ctx context.Context, match func(Caption) bool) (Caption, error) {
	found, err := waitFirst(ctx, b, b.Captions, match)
	if err != nil {
		return Caption{}, fmt.Errorf("candidatebot: waiting for a caption (%d received): %w", len(b.Captions()), err)
	}
	return found, nil
}

// Chats is every lk.chat message received from other participants.
func (b *Bot) Chats() []Chat {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Chat(nil), b.chats...)
}

// WaitChat waits for an lk.chat message that match accepts and returns it;
// messages received before the call count.
func (b *Bot) WaitChat(ctx context.Context, match func(Chat) bool) (Chat, error) {
	found, err := waitFirst(ctx, b, b.Chats, match)
	if err != nil {
		return Chat{}, fmt.Errorf("candidatebot: waiting for a chat message: %w", err)
	}
	return found, nil
}

// Events is every JSON object received on the viva.events data topic, in
// order of arrival. The maps are copies only at the top level; do not
// modify nested values.
func (b *Bot) Events() []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]map[string]any, len(b.events))
	for i, e := range b.events {
		out[i] = maps.Clone(e)
	}
	return out
}

// WaitEvent waits for a viva.events event whose "type" is typ and returns
// the first such event; events received before the call count.
func (b *Bot) WaitEvent(ctx context.Context, typ string) (map[string]any, error) {
	ev, err := b.WaitEventFunc(ctx, func(e map[string]any) bool { return e["type"] == typ })
	if err != nil {
		return nil, fmt.Errorf("candidatebot: waiting for event %q: %w", typ, err)
	}
	return ev, nil
}

// WaitEventFunc waits for a viva.events event that match accepts and returns
// the first one; events received before the call count.
func (b *Bot) WaitEventFunc(ctx context.Context, match func(map[string]any) bool) (map[string]any, error) {
	found, err := waitFirst(ctx, b, b.Events, match)
	if err != nil {
		return nil, fmt.Errorf("candidatebot: %d events received: %w", len(b.Events()), err)
	}
	return found, nil
}

// onCaptionStream records one lk.transcription stream once it completes.
func (b *Bot) onCaptionStream(r *lksdk.TextStreamReader, sender string) {
	started := time.Now()
	text := r.ReadAll()
	// Trailer attributes are merged into Info.Attributes before the stream
	// closes, so they are safe to read only after ReadAll.
	attrs := maps.Clone(r.Info.Attributes)
	c := Caption{
		Sender:     sender,
		SegmentID:  attrs[attrSegmentID],
		TrackID:    attrs[attrTranscribedTrackID],
		Final:      attrs[attrTranscriptionFinal] == "true",
		Text:       text,
		Attributes: attrs,
		StartedAt:  started,
		At:         time.Now(),
	}
	b.log.Debug("caption received", "sender", sender, "segment", c.SegmentID, "final", c.Final, "chars", len(text))
	b.mu.Lock()
	b.captions = append(b.captions, c)
	b.notifyLocked()
	b.mu.Unlock()
}

// onChatStream records one lk.chat stream once it completes.
func (b *Bot) onChatStream(r *lksdk.TextStreamReader, sender string) {
	text := r.ReadAll()
	b.mu.Lock()
	b.chats = append(b.chats, Chat{Sender: sender, Text: text, At: time.Now()})
	b.notifyLocked()
	b.mu.Unlock()
}

// onTranscription records a legacy transcription packet, one Caption per
// segment.
func (b *Bot) onTranscription(segments []*lksdk.TranscriptionSegment, p lksdk.Participant, pub lksdk.TrackPublication) {
	now := time.Now()
	sender := ""
	if p != nil {
		sender = p.Identity()
	}
	trackID := publicationSID(pub)
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range segments {
		b.legacy = append(b.legacy, Caption{
			Sender: sender, SegmentID: s.ID, TrackID: trackID, Final: s.Final, Text: s.Text,
			StartedAt: now, At: now,
		})
	}
	b.notifyLocked()
}

// publicationSID is pub's SID, or "" when the SDK passes no publication
// (it passes a typed nil when the transcribed track is unknown).
func publicationSID(pub lksdk.TrackPublication) string {
	switch p := pub.(type) {
	case *lksdk.RemoteTrackPublication:
		if p == nil {
			return ""
		}
	case *lksdk.LocalTrackPublication:
		if p == nil {
			return ""
		}
	case nil:
		return ""
	}
	return pub.SID()
}

// onDataPacket records viva.events JSON objects.
func (b *Bot) onDataPacket(pkt lksdk.DataPacket, params lksdk.DataReceiveParams) {
	u, ok := pkt.(*lksdk.UserDataPacket)
	if !ok || u.Topic != topicEvents {
		return
	}
	var ev map[string]any
	if err := json.Unmarshal(u.Payload, &ev); err != nil || ev == nil {
		b.log.Warn("ignoring viva.events packet that is not a JSON object", "sender", params.SenderIdentity, "bytes", len(u.Payload))
		return
	}
	b.log.Debug("event received", "sender", params.SenderIdentity, "type", ev["type"])
	b.mu.Lock()
	b.events = append(b.events, ev)
	b.notifyLocked()
	b.mu.Unlock()
}

func cloneCaption(c Caption) Caption {
	c.Attributes = maps.Clone(c.Attributes)
	return c
}

func cloneCaptions(cs []Caption) []Caption {
	out := make([]Caption, len(cs))
	for i, c := range cs {
		out[i] = cloneCaption(c)
	}
	return out
}
