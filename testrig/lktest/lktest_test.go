package lktest

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/livekit/protocol/livekit"
	"google.golang.org/protobuf/proto"
)

func TestServersRunInParallelAndAcceptParticipants(t *testing.T) {
	t.Parallel()
	urls := make(chan string, 2)
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := Start(t)
			urls <- s.URL
			room := "room-" + name
			s.Connect(t, "alice", room, nil, WithName("Alice"))

			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			res, err := s.RoomClient().ListParticipants(ctx, &livekit.ListParticipantsRequest{Room: room})
			if err != nil {
				t.Fatalf("ListParticipants: %v", err)
			}
			if len(res.Participants) != 1 || res.Participants[0].Identity != "alice" || res.Participants[0].Name != "Alice" {
				t.Fatalf("participants = %v, want alice (Alice)", res.Participants)
			}
			if got := s.WaitLog(t, 5*time.Second, "starting LiveKit server"); !strings.Contains(got, `"nodeIP": "127.0.0.1"`) {
				t.Errorf("server advertises %q, want node IP 127.0.0.1", got)
			}
		})
	}
	t.Cleanup(func() {
		close(urls)
		seen := map[string]bool{}
		for u := range urls {
			if seen[u] {
				t.Errorf("two servers on %s", u)
			}
			seen[u] = true
		}
	})
}

func TestStopAndRestartOnSamePort(t *testing.T) {
	t.Parallel()
	s := Start(t)
	first := s.LogPath()
	if !answers(s.HTTPURL) {
		t.Fatalf("server does not answer after Start")
	}
	s.Stop()
	if answers(s.HTTPURL) {
		t.Fatalf("server still answers after Stop")
	}
	s.Stop() // idempotent

	url := s.URL
	s.Restart()
	if s.URL != url {
		t.Fatalf("URL changed on restart: %s → %s", url, s.URL)
	}
	if !answers(s.HTTPURL) {
		t.Fatalf("server does not answer after Restart")
	}
	if s.LogPath() == first {
		t.Fatalf("restart reuses log file %s", first)
	}
	s.WaitLog(t, 5*time.Second, "starting LiveKit server")
}

func TestFindBinaryMissingSaysHowToBuild(t *testing.T) {
	_, err := findBinary(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "bin/livekit-server missing: run `make bin/livekit-server`") {
		t.Fatalf("findBinary error = %v, want the build hint", err)
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatalf("repoRoot: %v", err)
	}
	if _, err := findBinary(root); err != nil {
		t.Fatalf("findBinary(%s): %v", root, err)
	}
}

func answers(httpURL string) bool {
	c := &http.Client{Timeout: time.Second}
	resp, err := c.Get(httpURL + "/")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// TestJoinNamesNoServerToLookUp: what the server hands a joining client
// as its ICE servers names every host by address, so no client of a test
// server (the worker, a test participant, a browser) resolves a name: on a
// machine without DNS such lookups hang, outlive the connection and fail
// leak checks.
func TestJoinNamesNoServerToLookUp(t *testing.T) {
	t.Parallel()
	s := Start(t)
	u := s.URL + "/rtc?auto_subscribe=0&protocol=16&access_token=" + url.QueryEscape(s.Token("alice", "stun-room"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.DefaultDialer.DialContext(ctx, u, nil)
	if err != nil {
		t.Fatalf("join %s: %v", s.URL, err)
	}
	defer conn.Close()
	if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	_, msg, err := conn.ReadMessage()
	if err != nil {
		t.Fatalf("read join response: %v", err)
	}
	var res livekit.SignalResponse
	if err := proto.Unmarshal(msg, &res); err != nil {
		t.Fatalf("decode join response: %v", err)
	}
	join := res.GetJoin()
	if join == nil {
		t.Fatalf("first signal message is %T, want a join response", res.Message)
	}
	var urls []string
	for _, ice := range join.IceServers {
		urls = append(urls, ice.Urls...)
	}
	if len(urls) == 0 {
		t.Fatal("join response names no ICE server; want the local STUN server")
	}
	for _, raw := range urls {
		_, hostPort, _ := strings.Cut(raw, ":")
		hostPort, _, _ = strings.Cut(hostPort, "?")
		host, _, err := net.SplitHostPort(hostPort)
		if err != nil || net.ParseIP(host) == nil {
			t.Errorf("ICE server %q names a host to look up; want an IP address", raw)
		}
	}
}
