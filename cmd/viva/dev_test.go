package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/testrig/promscrape"
)

// TestDevRunsTheWholeSystem starts `viva dev` as `make run` does: it starts
// livekit-server, a worker and the web app, prints where to go, registers
// candidates, and stops everything on cancel.
func TestDevRunsTheWholeSystem(t *testing.T) {
	root, _ := filepath.Abs("../..")
	bin := filepath.Join(root, "bin", "livekit-server")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s missing: run make deps", bin)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	for _, k := range []string{"LIVEKIT_URL", "LIVEKIT_API_KEY", "LIVEKIT_API_SECRET", "OPENAI_API_KEY", "DEEPGRAM_API_KEY", "VIVA_REVIEWER_TOKEN"} {
		t.Setenv(k, "")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		defer pw.Close()
		done <- run(ctx, []string{"dev", "--addr", "127.0.0.1:0", "--livekit-server", bin, "--livekit-port", strconv.Itoa(port),
			"--data-dir", t.TempDir(), "--log-level", "warn", "--health-addr", "127.0.0.1:0"}, strings.NewReader(""), pw, io.Discard)
	}()
	var url, password, health string
	sc := bufio.NewScanner(pr)
	go func() {
		<-ctx.Done()
		pr.Close()
	}()
	deadline := time.AfterFunc(60*time.Second, cancel)
	defer deadline.Stop()
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if v, ok := strings.CutPrefix(line, "Register a candidate:"); ok {
			url = strings.TrimSuffix(strings.TrimSpace(v), "/")
		}
		if v, ok := strings.CutPrefix(line, "Reviewer password:"); ok {
			password = strings.Fields(v)[0]
		}
		if v, ok := strings.CutPrefix(line, "Worker health:"); ok {
			health = strings.TrimSpace(v)
		}
		if strings.HasPrefix(line, "Engines:") {
			if !strings.Contains(line, "llm=scripted stt=sphinx tts=flite") {
				t.Errorf("engines without keys: %q", line)
			}
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if url == "" || len(password) < 16 {
		t.Fatalf("viva dev printed url %q and password %q", url, password)
	}
	// Without a sign-in nothing is registered; the printed password signs in.
	resp, err := http.Post(url+"/api/interviews", "application/json", strings.NewReader(`{"name":"Ada Lovelace","role":"Backend engineer","level":"senior"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("registering without a sign-in: %s", resp.Status)
	}
	reg, _ := http.NewRequest(http.MethodPost, url+"/api/interviews", strings.NewReader(`{"name":"Ada Lovelace","role":"Backend engineer","level":"senior"}`))
	reg.Header.Set("Content-Type", "application/json")
	reg.Header.Set("Authorization", "Bearer "+password)
	resp, err = http.DefaultClient.Do(reg)
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ ID, JoinURL, LiveKitURL string }
	_ = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || created.ID == "" {
		t.Fatalf("registering: %s %+v", resp.Status, created)
	}
	req, _ := http.NewRequest(http.MethodGet, url+"/api/interviews/"+created.ID, nil)
	req.Header.Set("Authorization", "Bearer "+password)
	resp, err = http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("reviewer API with the printed password: %v %v", resp.Status, err)
	}
	resp.Body.Close()
	// The worker's health check turns 200 once it has registered with
	// LiveKit, and the web app's /metrics shows the worker and the web app
	// of this one process.
	if health == "" {
		t.Fatal("viva dev printed no worker health address")
	}
	healthy := waitStatus(health, http.StatusOK, 10*time.Second)
	if !healthy {
		t.Errorf("the worker's health check at %s never answered 200", health)
	}
	m := promscrape.Get(t, url+"/metrics")
	if m.Sum("viva_interviews_created_total") != 1 || m.Sum("viva_worker_registered") != 1 ||
		m.Sum("viva_http_requests_total", `route="POST /api/interviews"`) != 2 {
		t.Errorf("web app /metrics: created %g, worker registered %g, POST /api/interviews %g; want 1, 1, 2",
			m.Sum("viva_interviews_created_total"), m.Sum("viva_worker_registered"), m.Sum("viva_http_requests_total", `route="POST /api/interviews"`))
	}
	// The LiveKit server it started answers on the chosen port.
	if resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port)); err != nil {
		t.Fatalf("livekit-server not reachable: %v", err)
	} else {
		resp.Body.Close()
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("viva dev exited %d after Ctrl-C", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("viva dev did not stop")
	}
	if _, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port)); err == nil {
		t.Error("livekit-server still running after viva dev stopped")
	}
}

// TestDevSecondInterruptStopsAtOnce: after the first Ctrl-C viva dev waits
// for its parts to drain, and a second one ends the wait at once.
func TestDevSecondInterruptStopsAtOnce(t *testing.T) {
	ctx, interrupt := context.WithCancel(context.Background())
	errc := make(chan error, 2)
	errc <- nil // the web app stopped at once; the worker still drains
	interrupts := make(chan os.Signal, 1)
	done := make(chan bool, 1)
	go func() {
		_, atOnce := awaitStop(ctx, func() {}, errc, 2, func() <-chan os.Signal { return interrupts })
		done <- atOnce
	}()
	interrupt()
	interrupts <- os.Interrupt
	if !<-done {
		t.Error("the second interrupt did not stop viva dev at once")
	}

	// Without a second interrupt the wait lasts until every part returned.
	ctx, interrupt = context.WithCancel(context.Background())
	errc = make(chan error, 2)
	errc <- nil
	errc <- nil
	interrupt()
	first, atOnce := awaitStop(ctx, func() {}, errc, 2, func() <-chan os.Signal { return nil })
	if atOnce || first != nil {
		t.Errorf("awaitStop = %v, %v; want nil, false", first, atOnce)
	}
}

// waitStatus asks url until it answers want, for up to timeout: the
// process under test registers with LiveKit on its own time.
func waitStatus(url string, want int, timeout time.Duration) bool {
	poll := time.NewTicker(100 * time.Millisecond)
	defer poll.Stop()
	giveUp := time.After(timeout)
	for {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == want {
				return true
			}
		}
		select {
		case <-poll.C:
		case <-giveUp:
			return false
		}
	}
}

// TestDevStopsWhenItsLiveKitCannotStart: with the LiveKit port taken
// (here by a listener standing in for another LiveKit server), viva dev
// says which port is taken and how to move it, and stops: it never
// registers its worker with someone else's server.
func TestDevStopsWhenItsLiveKitCannotStart(t *testing.T) {
	root, _ := filepath.Abs("../..")
	bin := filepath.Join(root, "bin", "livekit-server")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s missing: run make deps", bin)
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := taken.Addr().(*net.TCPAddr).Port
	for _, k := range []string{"LIVEKIT_URL", "LIVEKIT_API_KEY", "LIVEKIT_API_SECRET", "OPENAI_API_KEY", "DEEPGRAM_API_KEY"} {
		t.Setenv(k, "")
	}
	t.Setenv("VIVA_LIVEKIT_PORT", strconv.Itoa(port))
	var stdout, stderr strings.Builder
	code := run(context.Background(), []string{"dev", "--addr", "127.0.0.1:0", "--livekit-server", bin,
		"--data-dir", t.TempDir(), "--health-addr", "off"}, strings.NewReader(""), &stdout, &stderr)
	if code == 0 {
		t.Fatalf("viva dev with its LiveKit port taken exited 0; stdout:\n%s", stdout.String())
	}
	msg := stderr.String()
	for _, want := range []string{"TCP port " + strconv.Itoa(port), "taken", "VIVA_LIVEKIT_PORT", "LIVEKIT_URL"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q:\n%s", want, msg)
		}
	}
	if strings.Contains(stdout.String(), "viva is running") || strings.Count(strings.TrimSpace(msg), "\n") > 0 {
		t.Errorf("want one line of error and nothing running; stdout:\n%s\nstderr:\n%s", stdout.String(), msg)
	}
}
