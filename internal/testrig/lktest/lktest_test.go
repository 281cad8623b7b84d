package lktest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/livekit/protocol/livekit"
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

func TestLogSinkWait(t *testing.T) {
	tests := []struct {
		name    string
		writes  []string // written one by one, 1 s apart
		want    string
		found   bool
		elapsed time.Duration
	}{
		{name: "already logged", writes: []string{"a\nworker registered x\n"}, want: "worker registered x", found: true},
		{name: "logged later in pieces", writes: []string{"a\nwork", "er regis", "tered y\n"}, want: "worker registered y", found: true, elapsed: 2 * time.Second},
		{name: "partial line does not count", writes: []string{"worker registered"}, found: false, elapsed: 5 * time.Second},
		{name: "never logged", writes: []string{"other\n"}, found: false, elapsed: 5 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sink, err := newLogSink(t.TempDir() + "/log")
				if err != nil {
					t.Fatal(err)
				}
				defer sink.Close()
				sink.Write([]byte(tc.writes[0]))
				go func() {
					for _, w := range tc.writes[1:] {
						time.Sleep(time.Second)
						sink.Write([]byte(w))
					}
				}()
				start := time.Now()
				line, ok := sink.wait(5*time.Second, func(l string) bool { return strings.Contains(l, "registered") })
				if ok != tc.found || line != tc.want {
					t.Fatalf("wait = %q, %v; want %q, %v", line, ok, tc.want, tc.found)
				}
				if got := time.Since(start); got != tc.elapsed {
					t.Fatalf("wait took %s, want %s", got, tc.elapsed)
				}
				synctest.Wait()
			})
		})
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
