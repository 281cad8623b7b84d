package linelog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

func TestWait(t *testing.T) {
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
				log, err := Create(filepath.Join(t.TempDir(), "log"))
				if err != nil {
					t.Fatal(err)
				}
				defer log.Close()
				log.Write([]byte(tc.writes[0]))
				go func() {
					for _, w := range tc.writes[1:] {
						time.Sleep(time.Second)
						log.Write([]byte(w))
					}
				}()
				ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
				defer cancel()
				start := time.Now()
				line, err := log.Wait(ctx, ContainsAll("worker", "registered"))
				if (err == nil) != tc.found || line != tc.want {
					t.Fatalf("Wait = %q, %v; want %q, found %v", line, err, tc.want, tc.found)
				}
				if err != nil && !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("Wait error %v does not wrap the context's", err)
				}
				if got := time.Since(start); got != tc.elapsed {
					t.Fatalf("Wait took %s, want %s", got, tc.elapsed)
				}
				synctest.Wait()
			})
		})
	}
}

func TestCloseKeepsPartialLineAndFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	log, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	log.Write([]byte("one\ntw"))
	log.Write([]byte("o\nthree"))
	if got, want := log.Lines(), []string{"one", "two"}; !slices.Equal(got, want) {
		t.Fatalf("Lines before Close = %q, want %q", got, want)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	if err := log.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if got, want := log.Lines(), []string{"one", "two", "three"}; !slices.Equal(got, want) {
		t.Fatalf("Lines after Close = %q, want %q", got, want)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "one\ntwo\nthree"; got != want {
		t.Fatalf("file = %q, want %q", got, want)
	}
	if log.Path() != path {
		t.Fatalf("Path = %q, want %q", log.Path(), path)
	}
}
