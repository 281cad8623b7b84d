package worker_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent/recording"
	"github.com/viva-interviews/viva/internal/retry"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/recordings"
	"github.com/viva-interviews/viva/interviews/recordings/s3"
	"github.com/viva-interviews/viva/testrig/s3test"
)

// TestSessionRecordingWaitsForTheStore: the object store does not answer
// from before an interview until after it. The session still records, ends
// and names its recording in the record; the recording waits in the
// worker's directory; once the store answers again the worker's Uploader
// puts it there, whole, and removes the local copy.
func TestSessionRecordingWaitsForTheStore(t *testing.T) {
	srv := s3test.Start(t)
	link := s3test.StartRelay(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	objects, err := s3.Open(ctx, s3.Options{Endpoint: link.Endpoint, Bucket: s3test.Bucket, Region: srv.Region,
		AccessKeyID: srv.AccessKeyID, SecretAccessKey: srv.SecretAccessKey})
	if err != nil {
		t.Fatal(err)
	}
	local, err := recordings.Open(filepath.Join(t.TempDir(), "recordings"))
	if err != nil {
		t.Fatal(err)
	}
	dir := local.WithObjects(objects)
	_, sessions := startFakes(t, fullAnswers, interviewerPolicy(""))
	sessions.Recordings = dir
	h := startHarness(t, sessions)
	// The worker's Uploader, as viva agent runs it (a short interval, so
	// the test need not wait a minute for the store's return).
	upCtx, stopUp := context.WithCancel(ctx)
	upDone := make(chan struct{})
	go func() {
		defer close(upDone)
		up := &recordings.Uploader{Dir: dir, Backoff: retry.Backoff{First: 50 * time.Millisecond, Max: 200 * time.Millisecond}, Attempts: 2}
		up.Run(upCtx, 300*time.Millisecond)
	}()
	defer func() { stopUp(); <-upDone }()

	link.Cut()
	room := leaveAfterFirstAnswer(t, ctx, h)
	rec := h.record(t, ctx, room, func(r *interviews.Record) bool { return r.Status.Finished() && len(r.Recordings) > 0 })
	entry := rec.Recordings[0]
	waiting := filepath.Join(dir.Path(), entry.Name)
	if _, err := os.Stat(waiting); err != nil {
		t.Fatalf("with the store down, the recording is not waiting in the directory: %v", err)
	}

	link.Restore(t)
	var data []byte
	for {
		if ctx.Err() != nil {
			t.Fatal("the recording never reached the store once it answered again")
		}
		_, statErr := os.Stat(waiting)
		if o, err := objects.Open(ctx, entry.Name); err == nil {
			data, err = io.ReadAll(o)
			o.Close()
			if err != nil {
				t.Fatal(err)
			}
			if errors.Is(statErr, fs.ErrNotExist) {
				break
			}
		}
		time.Sleep(100 * time.Millisecond) // polling the store, not a timer under test
	}
	if int64(len(data)) != entry.Bytes {
		t.Fatalf("the store holds %d bytes, the record says %d", len(data), entry.Bytes)
	}
	s, err := recording.Inspect(data)
	if err != nil {
		t.Fatal(err)
	}
	if s.Duration() != entry.Duration() {
		t.Fatalf("the stored recording plays %v, the record says %v", s.Duration(), entry.Duration())
	}
}
