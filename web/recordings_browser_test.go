package web

import (
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/viva-interviews/viva/agent/recording"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/recordings"
)

// TestBrowserPlaysRecordings loads the reviewer page in headless Chromium:
// each player reads its recording's length from the file (within 5 %), and
// a turn's Play control seeks the right part to the turn's moment.
func TestBrowserPlaysRecordings(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped with -short")
	}
	dir := recordings.At(t.TempDir())
	ts := newTestServer(t, func(o *Options) { o.Recordings = dir })
	r := detailRecord(t, ts, interviews.StatusCompleted)
	t0 := ts.clock.Now()

	// Two parts of 20 s of audio: from the start, and from 64 s on.
	const length = 20 * time.Second
	pcm := make([]int16, int(length/time.Second)*recording.SampleRateHz)
	for i := range pcm {
		pcm[i] = int16(3000 * math.Sin(2*math.Pi*220*float64(i)/recording.SampleRateHz))
	}
	starts := []time.Duration{0, 64 * time.Second}
	_, err := ts.store.Update(t.Context(), r.ID, func(rec *interviews.Record) error {
		for i, start := range starts {
			name := recordings.Name(rec.ID, i+1)
			f, err := os.Create(filepath.Join(dir.Path(), name))
			if err != nil {
				return err
			}
			d, err := recording.Encode(f, pcm)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			info, _ := os.Stat(f.Name())
			rec.Recordings = append(rec.Recordings, interviews.Recording{Name: name, ContentType: interviews.RecordingContentType,
				StartedAt: t0.Add(start), DurationMS: d.Milliseconds(), Bytes: info.Size()})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(ts.Handler())
	t.Cleanup(web.Close)
	b := newReportBrowser(t)

	var durations []float64
	b.run(t, "reviewer page with recordings",
		network.SetExtraHTTPHeaders(network.Headers{"Authorization": "Bearer " + testReviewerToken}),
		chromedp.Navigate(web.URL+"/review/"+r.ID),
		chromedp.WaitVisible("#recording-2", chromedp.ByQuery),
		chromedp.Poll(`Array.from(document.querySelectorAll("audio.recording-player")).every(a => a.readyState >= 1 && isFinite(a.duration))`, nil,
			chromedp.WithPollingTimeout(30*time.Second)),
		chromedp.Evaluate(`Array.from(document.querySelectorAll("audio.recording-player")).map(a => a.duration)`, &durations),
	)
	if len(durations) != 2 {
		t.Fatalf("players: %v", durations)
	}
	for i, d := range durations {
		if math.Abs(d-length.Seconds()) > 0.05*length.Seconds() {
			t.Errorf("player %d reports %.2f s, the recording lasts %v", i+1, d, length)
		}
	}
	b.shot(t, "review-recordings")

	// The typed answer was given 71 s in: 7 s into part 2. The greeting,
	// 1 s in: part 1.
	for _, c := range []struct {
		turn   string
		player string
		at     float64
	}{
		{"#turn-4", "recording-2", 7},
		{"#turn-1", "recording-1", 1},
	} {
		var got float64
		var paused bool
		b.run(t, "play "+c.turn,
			chromedp.Click(c.turn+" button.play-at", chromedp.ByQuery),
			chromedp.Poll(`document.getElementById("`+c.player+`").readyState >= 1`, nil, chromedp.WithPollingTimeout(10*time.Second)),
			chromedp.Evaluate(`document.getElementById("`+c.player+`").currentTime`, &got),
			chromedp.Evaluate(`document.getElementById("`+c.player+`").paused`, &paused),
		)
		if math.Abs(got-c.at) > 0.5 {
			t.Errorf("%s: %s at %.2f s, want %.1f", c.turn, c.player, got, c.at)
		}
		t.Logf("%s: %s at %.2f s, paused %v", c.turn, c.player, got, paused)
	}
	var otherPaused bool
	b.run(t, "the other player", chromedp.Evaluate(`document.getElementById("recording-2").paused`, &otherPaused))
	if !otherPaused {
		t.Error("playing part 1 left part 2 playing")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		t.Errorf("browser: %s", p)
	}
}
