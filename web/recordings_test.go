package web

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/recordings"
	"github.com/viva-interviews/viva/interviews/recordings/s3"
	"github.com/viva-interviews/viva/testrig/s3test"
)

// recordingRecord is detailRecord with three recordings: part 1 from the
// start for a minute, part 2 from 64 s on for a minute, part 3 deleted.
func recordingRecord(t *testing.T, ts *testServer, dir *recordings.Dir) (*interviews.Record, []byte) {
	t.Helper()
	r := detailRecord(t, ts, interviews.StatusCompleted)
	t0 := ts.clock.Now()
	audio := []byte("OggS-not-really-but-bytes-0123456789")
	deleted := t0.Add(time.Hour)
	_, err := ts.store.Update(t.Context(), r.ID, func(rec *interviews.Record) error {
		for i, start := range []time.Duration{0, 64 * time.Second, 130 * time.Second} {
			e := interviews.Recording{Name: recordings.Name(rec.ID, i+1), ContentType: interviews.RecordingContentType,
				StartedAt: t0.Add(start), DurationMS: 60000, Bytes: int64(len(audio))}
			if i == 2 {
				e.DeletedAt = &deleted
			} else if err := os.WriteFile(filepath.Join(dir.Path(), e.Name), audio, 0o600); err != nil {
				return err
			}
			rec.Recordings = append(rec.Recordings, e)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return r, audio
}

func TestReviewDetailPlaysRecordings(t *testing.T) {
	dir := recordings.At(t.TempDir())
	ts := newTestServer(t, func(o *Options) { o.Recordings = dir })
	r, _ := recordingRecord(t, ts, dir)
	res := ts.get("/review/"+r.ID, "Authorization", "Bearer "+testReviewerToken)
	if res.Code != 200 {
		t.Fatalf("status %d", res.Code)
	}
	body := res.Body.String()
	for _, want := range []string{
		`<audio id="recording-1" class="recording-player" controls preload="metadata" src="/review/` + r.ID + `/recordings/` + r.ID + `-1.ogg">`,
		`<audio id="recording-2" class="recording-player" controls preload="metadata" src="/review/` + r.ID + `/recordings/` + r.ID + `-2.ogg">`,
		"Part 2 — from 09:31:04",
		"was deleted on",
		`<script src="/static/recordings.js" defer></script>`,
		// The greeting (1 s in) plays in part 1; the timer's turn (66 s
		// in) 2 s into part 2; the typed answer (71 s in) 7 s into it.
		`data-player="recording-1" data-seconds="1.00" aria-label="Play the recording from 0:01"`,
		`data-player="recording-2" data-seconds="2.00"`,
		`data-player="recording-2" data-seconds="7.00"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(body, "recording-3") {
		t.Error("the deleted recording has a player")
	}
	if ts.get("/static/recordings.js").Code != 200 {
		t.Error("the player's script is not served")
	}
}

func TestRecordingIsServedWithRanges(t *testing.T) {
	dir := recordings.At(t.TempDir())
	ts := newTestServer(t, func(o *Options) { o.Recordings = dir })
	r, audio := recordingRecord(t, ts, dir)
	auth := []string{"Authorization", "Bearer " + testReviewerToken}
	url := "/review/" + r.ID + "/recordings/" + r.ID + "-1.ogg"
	res := ts.get(url, auth...)
	if res.Code != 200 || res.Body.String() != string(audio) {
		t.Fatalf("GET: %d, %q", res.Code, res.Body.String())
	}
	if ct := res.Header().Get("Content-Type"); !strings.HasPrefix(ct, "audio/ogg") {
		t.Errorf("Content-Type %q", ct)
	}
	if res.Header().Get("Accept-Ranges") != "bytes" {
		t.Errorf("no Accept-Ranges: %v", res.Header())
	}
	res = ts.get(url, append(auth, "Range", "bytes=4-7")...)
	if res.Code != 206 || res.Body.String() != string(audio[4:8]) {
		t.Fatalf("Range: %d, %q", res.Code, res.Body.String())
	}
	for _, c := range []struct{ what, url string }{
		{"a deleted recording", "/review/" + r.ID + "/recordings/" + r.ID + "-3.ogg"},
		{"a name the record lacks", "/review/" + r.ID + "/recordings/" + r.ID + "-9.ogg"},
		{"a path", "/review/" + r.ID + "/recordings/..%2F" + r.ID + ".json"},
		{"another interview's recording", "/review/" + r.ID + "/recordings/other-1.ogg"},
	} {
		if res := ts.get(c.url, auth...); res.Code != 404 {
			t.Errorf("%s: status %d, want 404", c.what, res.Code)
		}
	}
	if res := ts.get(url); res.Code == 200 || strings.Contains(res.Body.String(), string(audio)) {
		t.Errorf("served without signing in: %d", res.Code)
	}
	if res := ts.get(url, "Authorization", "Bearer "+ts.tokens[testRecruiter]); res.Code == 200 {
		t.Errorf("served to a recruiter: %d", res.Code)
	}
	// The file gone (deleted by hand): not found, not an error page.
	if err := os.Remove(filepath.Join(dir.Path(), r.ID+"-1.ogg")); err != nil {
		t.Fatal(err)
	}
	if res := ts.get(url, auth...); res.Code != 404 {
		t.Errorf("missing file: status %d", res.Code)
	}
}

func TestNoRecordingsDirectoryShowsNoPlayer(t *testing.T) {
	ts := newTestServer(t)
	r, _ := recordingRecord(t, ts, recordings.At(t.TempDir()))
	body := ts.get("/review/"+r.ID, "Authorization", "Bearer "+testReviewerToken).Body.String()
	if strings.Contains(body, "<audio") || strings.Contains(body, "play-at") {
		t.Error("a player without a recordings directory")
	}
	if res := ts.get("/review/"+r.ID+"/recordings/"+r.ID+"-1.ogg", "Authorization", "Bearer "+testReviewerToken); res.Code != 404 {
		t.Errorf("status %d", res.Code)
	}
}

// TestRecordingNotUploadedYet: a recording the record names but that
// neither this machine's directory nor the object store holds yet (the
// worker that made it is still uploading it) is said to be on its way,
// with no player; asked for, it is not found with the same words, never
// an error page; once it arrives it plays.
func TestRecordingNotUploadedYet(t *testing.T) {
	dir := recordings.At(t.TempDir())
	ts := newTestServer(t, func(o *Options) { o.Recordings = dir })
	r, audio := recordingRecord(t, ts, dir)
	part1 := filepath.Join(dir.Path(), r.ID+"-1.ogg")
	if err := os.Remove(part1); err != nil {
		t.Fatal(err)
	}
	auth := []string{"Authorization", "Bearer " + testReviewerToken}
	res := ts.get("/review/"+r.ID, auth...)
	body := res.Body.String()
	if res.Code != 200 || !strings.Contains(body, "Part 1 of the recording is being uploaded from the interviewer's machine") {
		t.Errorf("the page (%d) does not say part 1 is being uploaded", res.Code)
	}
	if strings.Contains(body, `id="recording-1"`) || !strings.Contains(body, `id="recording-2"`) {
		t.Error("want a player for part 2 only")
	}
	url := "/review/" + r.ID + "/recordings/" + r.ID + "-1.ogg"
	if res := ts.get(url, auth...); res.Code != 404 || !strings.Contains(res.Body.String(), "being uploaded") {
		t.Errorf("asked for: %d %q, want 404 saying it is being uploaded", res.Code, res.Body.String())
	}
	if err := os.WriteFile(part1, audio, 0o600); err != nil {
		t.Fatal(err)
	}
	if res := ts.get(url, append(auth, "Range", "bytes=4-7")...); res.Code != 206 || res.Body.String() != string(audio[4:8]) {
		t.Errorf("once arrived: %d %q, want 206 %q", res.Code, res.Body.String(), audio[4:8])
	}
	if body := ts.get("/review/"+r.ID, auth...).Body.String(); strings.Contains(body, "being uploaded") || !strings.Contains(body, `id="recording-1"`) {
		t.Error("once arrived, the page still says it is being uploaded, or has no player for it")
	}
}

// TestRecordingStoreDown: while the object store holding a recording does
// not answer, the recording is refused with 503, a Retry-After and words
// that say so (not a 404 that calls it missing, not an error page); once
// the store answers again it plays.
func TestRecordingStoreDown(t *testing.T) {
	srv := s3test.Start(t)
	link := s3test.StartRelay(t, srv)
	objects, err := s3.Open(t.Context(), s3.Options{Endpoint: link.Endpoint, Bucket: s3test.Bucket, Region: srv.Region,
		AccessKeyID: srv.AccessKeyID, SecretAccessKey: srv.SecretAccessKey})
	if err != nil {
		t.Fatal(err)
	}
	dir := recordings.At(t.TempDir()).WithObjects(objects)
	ts := newTestServer(t, func(o *Options) { o.Recordings = dir })
	r, audio := recordingRecord(t, ts, dir)
	name := recordings.Name(r.ID, 1)
	if err := objects.Put(t.Context(), name, bytes.NewReader(audio), int64(len(audio))); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir.Path(), name)); err != nil { // it lives in the bucket only
		t.Fatal(err)
	}
	auth := []string{"Authorization", "Bearer " + testReviewerToken}
	url := "/review/" + r.ID + "/recordings/" + name

	link.Cut()
	res := ts.get(url, auth...)
	if res.Code != http.StatusServiceUnavailable || res.Header().Get("Retry-After") != "60" || !strings.Contains(res.Body.String(), "does not answer right now") {
		t.Errorf("with the store down: %d, Retry-After %q, %q; want 503, 60 and words saying the storage does not answer",
			res.Code, res.Header().Get("Retry-After"), res.Body.String())
	}
	link.Restore(t)
	if res := ts.get(url, append(auth, "Range", "bytes=4-7")...); res.Code != http.StatusPartialContent || res.Body.String() != string(audio[4:8]) {
		t.Errorf("once the store is back: %d %q, want 206 %q", res.Code, res.Body.String(), audio[4:8])
	}
}
