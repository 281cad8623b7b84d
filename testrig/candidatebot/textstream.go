package candidatebot

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/viva-interviews/viva/internal/utf8cut"
)

// maxStreamChunkBytes is the largest chunk of a text stream, as the SDKs
// chunk them.
const maxStreamChunkBytes = 15_000

// SendChat types text as the candidate: a text stream on topic lk.chat, as
// LiveKit's chat components send it. It returns once the stream's packets
// are handed to the data channel.
func (b *Bot) SendChat(ctx context.Context, text string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("candidatebot: send chat: %w", err)
	}
	select {
	case <-b.disconnected:
		return fmt.Errorf("candidatebot: send chat: %w", b.disconnectErr())
	default:
	}
	if err := publishTextStream(b.room.LocalParticipant, topicChat, text, nil, ""); err != nil {
		return fmt.Errorf("candidatebot: send chat: %w", err)
	}
	return nil
}

// publishTextStream sends text as one reliable text stream (header, chunks,
// trailer) on topic with attrs in the header. A non-empty onBehalfOf sets
// the packets' participant identity, which livekit-server keeps as the
// stream's sender only when the publisher is an agent. Unlike the SDK's
// SendText it reports publishing errors.
func publishTextStream(lp *lksdk.LocalParticipant, topic, text string, attrs map[string]string, onBehalfOf string) error {
	id := rand.Text()
	header := &livekit.DataStream_Header{
		StreamId:    id,
		Timestamp:   time.Now().UnixMilli(),
		Topic:       topic,
		MimeType:    "text/plain",
		TotalLength: ptr(uint64(len(text))),
		Attributes:  attrs,
		ContentHeader: &livekit.DataStream_Header_TextHeader{
			TextHeader: &livekit.DataStream_TextHeader{OperationType: livekit.DataStream_CREATE},
		},
	}
	send := func(what string, p *livekit.DataPacket) error {
		p.ParticipantIdentity = onBehalfOf
		if err := lp.PublishDataPacket(rawPacket{p}, lksdk.WithDataPublishReliable(true)); err != nil {
			return fmt.Errorf("publish %s stream %s: %w", topic, what, err)
		}
		return nil
	}
	if err := send("header", &livekit.DataPacket{Value: &livekit.DataPacket_StreamHeader{StreamHeader: header}}); err != nil {
		return err
	}
	for i, chunk := range utf8cut.Chunks(text, maxStreamChunkBytes) {
		c := &livekit.DataStream_Chunk{StreamId: id, ChunkIndex: uint64(i), Content: []byte(chunk)}
		if err := send("chunk", &livekit.DataPacket{Value: &livekit.DataPacket_StreamChunk{StreamChunk: c}}); err != nil {
			return err
		}
	}
	return send("trailer", &livekit.DataPacket{Value: &livekit.DataPacket_StreamTrailer{
		StreamTrailer: &livekit.DataStream_Trailer{StreamId: id},
	}})
}

// rawPacket publishes a prepared livekit.DataPacket through the SDK.
type rawPacket struct{ p *livekit.DataPacket }

// ToProto implements lksdk.DataPacket.
func (r rawPacket) ToProto() *livekit.DataPacket { return r.p }

func ptr[T any](v T) *T { return &v }
