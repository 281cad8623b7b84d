package worker

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/viva-interviews/viva/testrig/lktest"
)

// rawStream sends lk.chat text stream packets as a hostile client can:
// a header that declares any length (or none), chunks, and a trailer only
// if it wants.
type rawStream struct {
	t    *testing.T
	room *lksdk.Room
	id   string
	n    uint64
}

func (s *rawStream) send(p *livekit.DataPacket) {
	s.t.Helper()
	if err := s.room.LocalParticipant.PublishDataPacket(packet{p}, lksdk.WithDataPublishReliable(true)); err != nil {
		s.t.Fatalf("stream %s: %v", s.id, err)
	}
}

func openRawStream(t *testing.T, room *lksdk.Room, id string, declared *uint64) *rawStream {
	t.Helper()
	s := &rawStream{t: t, room: room, id: id}
	s.send(&livekit.DataPacket{Value: &livekit.DataPacket_StreamHeader{StreamHeader: &livekit.DataStream_Header{
		StreamId: id, Topic: TopicChat, MimeType: "text/plain", TotalLength: declared,
		ContentHeader: &livekit.DataStream_Header_TextHeader{TextHeader: &livekit.DataStream_TextHeader{OperationType: livekit.DataStream_CREATE}},
	}}})
	return s
}

func (s *rawStream) write(text string) {
	s.t.Helper()
	s.send(&livekit.DataPacket{Value: &livekit.DataPacket_StreamChunk{StreamChunk: &livekit.DataStream_Chunk{
		StreamId: s.id, ChunkIndex: s.n, Content: []byte(text)}}})
	s.n++
}

// flood writes total bytes in chunks as large as LiveKit SDKs send.
func (s *rawStream) flood(total int) {
	s.t.Helper()
	chunk := strings.Repeat("a", streamChunkBytes)
	for sent := 0; sent < total; sent += len(chunk) {
		s.write(chunk)
	}
}

func (s *rawStream) close() {
	s.t.Helper()
	s.send(&livekit.DataPacket{Value: &livekit.DataPacket_StreamTrailer{StreamTrailer: &livekit.DataStream_Trailer{StreamId: s.id}}})
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestLiveChatStreamsAreReadWithABound floods the worker's lk.chat
// handler as a hostile candidate would, through a real LiveKit server:
// a stream declaring 600 MB, a stream that never ends, and more open
// streams than allowed. The worker holds none of the flood: its heap
// stays within a few MB of where it was, the never-ending stream is
// delivered cut at MaxChatBytes, the oversized and the excess streams are
// never delivered, and ordinary messages still are.
func TestLiveChatStreamsAreReadWithABound(t *testing.T) {
	t.Parallel()
	srv := lktest.Start(t)
	const room = "chat-flood"
	agentRoom := srv.Connect(t, "agent-AJ_9", room, nil, lktest.WithKind(livekit.ParticipantInfo_AGENT))
	chats := make(chan string, 16)
	open, err := onChat(agentRoom, func(_, text string) { chats <- text })
	if err != nil {
		t.Fatal(err)
	}
	cand := srv.Connect(t, "candidate", room, nil)
	marker := func(text string) {
		t.Helper()
		cand.LocalParticipant.SendText(text, lksdk.StreamTextOptions{Topic: TopicChat})
		for {
			got := recv(t, chats, "message "+text)
			if got == text {
				return
			}
			t.Fatalf("got %.40q… (%d bytes) before %q", got, len(got), text)
		}
	}
	marker("warm up") // the connection's own buffers are in place
	before := heapInUse()

	const floodBytes = 8 << 20
	huge := uint64(600 << 20)
	declared := openRawStream(t, cand, "declared-600MB", &huge)
	declared.flood(floodBytes / 2)
	endless := openRawStream(t, cand, "never-ends", nil)
	endless.flood(floodBytes)
	got := recv(t, chats, "the endless stream, cut")
	if len(got) != MaxChatBytes || strings.Trim(got, "a") != "" {
		t.Errorf("the endless stream delivered %d bytes, want it cut to %d", len(got), MaxChatBytes)
	}
	marker("after the flood") // every flood packet has reached the handler
	grew := int64(heapInUse()) - int64(before)
	t.Logf("heap grew by %d KiB while %d MiB of chat streams arrived", grew>>10, (floodBytes+floodBytes/2)>>20)
	if grew > 3<<20 {
		t.Errorf("heap grew by %d KiB while %d MiB of chat streams arrived; want under 3 MiB", grew>>10, (floodBytes+floodBytes/2)>>20)
	}

	var streams []*rawStream
	for i := range maxOpenChatStreams {
		s := openRawStream(t, cand, fmt.Sprintf("open-%d", i), nil)
		s.write(fmt.Sprintf("message %d", i))
		streams = append(streams, s)
	}
	// Stream handlers start on goroutines of their own: wait for each
	// step to be taken before the next.
	waitCounts := func(wantOpen, wantRefused int) {
		t.Helper()
		for range 1000 {
			if o, r := open.counts("candidate"); o == wantOpen && r == wantRefused {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		o, r := open.counts("candidate")
		t.Fatalf("%d streams open, %d refused; want %d and %d", o, r, wantOpen, wantRefused)
	}
	waitCounts(maxOpenChatStreams, 0)
	extra := openRawStream(t, cand, "one-too-many", nil)
	extra.write("message beyond the limit")
	extra.close()
	waitCounts(maxOpenChatStreams, 1)
	for _, s := range streams {
		s.close()
	}
	var delivered []string
	for {
		got := recv(t, chats, "an open stream's message")
		if got == "marker" {
			break
		}
		delivered = append(delivered, got)
		if len(delivered) == maxOpenChatStreams {
			cand.LocalParticipant.SendText("marker", lksdk.StreamTextOptions{Topic: TopicChat})
		}
	}
	slices.Sort(delivered)
	if want := []string{"message 0", "message 1", "message 2", "message 3"}; !slices.Equal(delivered, want) {
		t.Errorf("open streams delivered %q, want %q", delivered, want)
	}
}
