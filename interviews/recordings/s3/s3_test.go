package s3

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/viva-interviews/viva/internal/retry"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/interviews/recordings"
	"github.com/viva-interviews/viva/testrig/s3test"
)

// open opens the bucket of srv.
func open(t *testing.T, srv *s3test.Server) *Store {
	t.Helper()
	s, err := Open(t.Context(), Options{Endpoint: srv.Endpoint, Bucket: s3test.Bucket, Region: srv.Region,
		AccessKeyID: srv.AccessKeyID, SecretAccessKey: srv.SecretAccessKey})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// machine is the recordings directory of one machine, uploading to the
// shared bucket.
func machine(t *testing.T, srv *s3test.Server) *recordings.Dir {
	t.Helper()
	d, err := recordings.Open(filepath.Join(t.TempDir(), "recordings"))
	if err != nil {
		t.Fatal(err)
	}
	return d.WithObjects(open(t, srv))
}

// record writes data as the recording called name on d.
func record(t *testing.T, d *recordings.Dir, name string, data []byte) {
	t.Helper()
	f, err := d.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if n, err := f.Commit(); err != nil || n != int64(len(data)) {
		t.Fatalf("commit: %d bytes, %v", n, err)
	}
}

// TestRecordedOnOneMachinePlayedOnAnother: a worker's recording goes to
// the bucket when its session ends, leaving its directory; the web app on
// another machine finds it, serves it whole and in ranges as a player
// seeks, and an erasure on either removes it for both.
func TestRecordedOnOneMachinePlayedOnAnother(t *testing.T) {
	srv := s3test.Start(t)
	worker, web := machine(t, srv), machine(t, srv)
	audio := bytes.Repeat([]byte("OggS-audio-"), 10_000)
	name := recordings.Name("ada1", 1)
	record(t, worker, name, audio)
	if left, _ := os.ReadDir(worker.Path()); len(left) != 0 {
		t.Errorf("the worker's directory still holds %d files after the upload", len(left))
	}
	if ok, err := web.Exists(t.Context(), name); err != nil || !ok {
		t.Fatalf("the web app does not find the recording: %v %v", ok, err)
	}
	if names, err := web.Of(t.Context(), "ada1"); err != nil || !slices.Equal(names, []string{name}) {
		t.Errorf("Of = %v, %v", names, err)
	}

	serve := func(rangeHeader string) *httptest.ResponseRecorder {
		o, err := web.Open(t.Context(), name)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		req := httptest.NewRequest(http.MethodGet, "/review/ada1/recordings/"+name, nil)
		if rangeHeader != "" {
			req.Header.Set("Range", rangeHeader)
		}
		rec := httptest.NewRecorder()
		http.ServeContent(rec, req, name, o.Info().ModTime, o)
		return rec
	}
	if rec := serve(""); rec.Code != http.StatusOK || !bytes.Equal(rec.Body.Bytes(), audio) {
		t.Errorf("whole recording: %d, %d bytes, want 200 and %d bytes", rec.Code, rec.Body.Len(), len(audio))
	}
	rec := serve("bytes=55000-55010")
	if rec.Code != http.StatusPartialContent || !bytes.Equal(rec.Body.Bytes(), audio[55000:55011]) {
		t.Errorf("a seek: %d %q, want 206 %q", rec.Code, rec.Body.Bytes(), audio[55000:55011])
	}

	if err := web.Remove(t.Context(), name); err != nil {
		t.Fatal(err)
	}
	if _, err := worker.Open(t.Context(), name); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the worker still opens a recording erased on the web app: %v", err)
	}
	if err := web.Remove(t.Context(), name); err != nil {
		t.Errorf("removing it again: %v", err)
	}
}

// TestSweeperExpiresStoredRecordings: past the retention, a recording in
// the bucket is deleted and its record's entry marked, and a recent one
// is kept.
func TestSweeperExpiresStoredRecordings(t *testing.T) {
	srv := s3test.Start(t)
	web := machine(t, srv)
	store, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	old, recent := recordings.Name("ada1", 1), recordings.Name("alan1", 1)
	for _, r := range []struct {
		id, name string
		started  time.Time
	}{{"ada1", old, now.Add(-48 * time.Hour)}, {"alan1", recent, now.Add(20 * time.Hour)}} {
		rec := &interviews.Record{ID: r.id, Candidate: interviews.Candidate{Name: "A", Role: "Engineer", Level: "mid"}, Blueprint: "default",
			Recordings: []interviews.Recording{{Name: r.name, ContentType: interviews.RecordingContentType, StartedAt: r.started, DurationMS: 60_000, Bytes: 3}}}
		if err := store.Create(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
		record(t, web, r.name, []byte("ogg"))
	}
	sw := &recordings.Sweeper{Dir: web, Store: store, Retention: 24 * time.Hour, Now: func() time.Time { return now.Add(25 * time.Hour) }}
	removed, err := sw.Sweep(t.Context())
	if err != nil || !slices.Equal(removed, []string{old}) {
		t.Fatalf("swept %v, %v; want %s", removed, err, old)
	}
	if ok, _ := web.Exists(t.Context(), old); ok {
		t.Error("the expired recording is still in the bucket")
	}
	if ok, _ := web.Exists(t.Context(), recent); !ok {
		t.Error("the recent recording was removed")
	}
	rec, err := store.Get(t.Context(), "ada1")
	if err != nil || rec.Recordings[0].DeletedAt == nil {
		t.Errorf("the expired recording's entry is not marked deleted: %v", err)
	}
}

// TestOpenSaysWhatIsWrong: a bad endpoint, a missing bucket and a wrong
// secret are refused with what to fix, and the secret never shows.
func TestOpenSaysWhatIsWrong(t *testing.T) {
	srv := s3test.Start(t)
	good := Options{Endpoint: srv.Endpoint, Bucket: s3test.Bucket, Region: srv.Region, AccessKeyID: srv.AccessKeyID, SecretAccessKey: srv.SecretAccessKey}
	tests := []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"endpoint without a scheme", func(o *Options) { o.Endpoint = "127.0.0.1:9000" }, "is not a URL such as"},
		{"no bucket", func(o *Options) { o.Bucket = "" }, "no bucket given"},
		{"no keys", func(o *Options) { o.AccessKeyID = "" }, "no access key given"},
		{"missing bucket", func(o *Options) { o.Bucket = "no-such-bucket" }, "does not exist: create it"},
		{"wrong secret", func(o *Options) { o.SecretAccessKey = "wrong-secret-of-forty-characters-0000000" }, "check the endpoint, the region and that the access key may read the bucket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := good
			tt.edit(&o)
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			_, err := Open(ctx, o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Open: %v, want an error saying %q", err, tt.want)
			}
			if strings.Contains(err.Error(), o.SecretAccessKey) && o.SecretAccessKey != "" {
				t.Errorf("the error shows the secret key: %v", err)
			}
		})
	}
}

// TestFailedUploadArrivesLater: while the object store cannot be
// reached, a session's recording is still committed and stays in the
// worker's directory, where it plays from; the Uploader's attempts fail
// and keep it; once the store answers again, a sweep puts it in the
// bucket, empties the directory, and the web app on another machine
// plays it, seeking included.
func TestFailedUploadArrivesLater(t *testing.T) {
	srv := s3test.Start(t)
	link := s3test.StartRelay(t, srv)
	through := *srv
	through.Endpoint = link.Endpoint
	worker, web := machine(t, &through), machine(t, srv)
	up := &recordings.Uploader{Dir: worker, Attempts: 2, Backoff: retry.Backoff{First: time.Millisecond, Max: time.Millisecond}}

	link.Cut()
	audio := bytes.Repeat([]byte("OggS-audio-"), 10_000)
	name := recordings.Name("ada1", 1)
	record(t, worker, name, audio) // the session ends: no error, the file kept
	if _, err := os.Stat(filepath.Join(worker.Path(), name)); err != nil {
		t.Fatalf("the recording is not kept in the worker's directory: %v", err)
	}
	if o, err := worker.Open(t.Context(), name); err != nil {
		t.Errorf("the worker's directory does not play the recording meanwhile: %v", err)
	} else {
		o.Close()
	}
	if ok, err := web.Exists(t.Context(), name); err != nil || ok {
		t.Errorf("another machine finds a recording that never reached the bucket: %v %v", ok, err)
	}
	uploaded, err := up.Sweep(t.Context())
	if err == nil || len(uploaded) != 0 || !strings.Contains(err.Error(), "stays in "+worker.Path()) {
		t.Errorf("a sweep while the store is down: %v, %v; want an error saying the recording stays in %s", uploaded, err, worker.Path())
	}
	if _, err := os.Stat(filepath.Join(worker.Path(), name)); err != nil {
		t.Fatalf("a failed sweep lost the recording: %v", err)
	}

	link.Restore(t)
	uploaded, err = up.Sweep(t.Context())
	if err != nil || !slices.Equal(uploaded, []string{name}) {
		t.Fatalf("a sweep once the store answers: %v, %v; want %s uploaded", uploaded, err, name)
	}
	if left, _ := os.ReadDir(worker.Path()); len(left) != 0 {
		t.Errorf("the worker's directory still holds %d files after the upload", len(left))
	}
	o, err := web.Open(t.Context(), name)
	if err != nil {
		t.Fatalf("the web app does not find the uploaded recording: %v", err)
	}
	defer o.Close()
	req := httptest.NewRequest(http.MethodGet, "/review/ada1/recordings/"+name, nil)
	req.Header.Set("Range", "bytes=55000-55010")
	rec := httptest.NewRecorder()
	http.ServeContent(rec, req, name, o.Info().ModTime, o)
	if rec.Code != http.StatusPartialContent || !bytes.Equal(rec.Body.Bytes(), audio[55000:55011]) {
		t.Errorf("a seek: %d %q, want 206 %q", rec.Code, rec.Body.Bytes(), audio[55000:55011])
	}
}
