package worker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent/worker"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/lkagent"
)

// keysStore is a store with a secrets key and one scheduled interview
// that brings its own keys.
func keysStore(t *testing.T, sealed bool) (interviews.Store, *interviews.Record) {
	t.Helper()
	store, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sl, err := interviews.NewSealer(bytes.Repeat([]byte{9}, interviews.SecretsKeySize))
	if err != nil {
		t.Fatal(err)
	}
	store.SetSealer(sl)
	rec := &interviews.Record{Candidate: interviews.Candidate{Name: "Ada Lovelace", Role: "Engineer"}, Blueprint: "default", Room: "room-keys"}
	if err := store.Create(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	if err := store.PutKeys(t.Context(), rec.ID, interviews.Keys{OpenAI: "sk-own-0123456789abcdef"}); err != nil {
		t.Fatal(err)
	}
	if !sealed {
		store.SetSealer(nil)
	}
	return store, rec
}

// keysJob is a job for rec with no room to join: a refusal is decided and
// recorded without LiveKit.
func keysJob(t *testing.T, rec *interviews.Record) lkagent.Job {
	meta, err := json.Marshal(map[string]string{"interview_id": rec.ID})
	if err != nil {
		t.Fatal(err)
	}
	return lkagent.Job{ID: "AJ_keys", RoomName: rec.Room, Metadata: string(meta)}
}

// TestRefusedOwnKeysEndTheInterview: when a provider refuses the keys an
// interview brought, the job is refused before any greeting, the record
// is saved failed by the keys, the keys are deleted and the lease freed.
func TestRefusedOwnKeysEndTheInterview(t *testing.T) {
	store, rec := keysStore(t, true)
	var got interviews.Keys
	refusal := errors.New("openai: the API key was rejected")
	s := &worker.Sessions{Store: store, Logger: testLogger(t), EnginesFor: func(_ context.Context, k interviews.Keys) (worker.Engines, error) {
		got = k
		return worker.Engines{}, refusal
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.HandleJob(ctx, keysJob(t, rec)); !errors.Is(err, refusal) {
		t.Fatalf("HandleJob = %v, want the refusal", err)
	}
	if got.OpenAI != "sk-own-0123456789abcdef" {
		t.Errorf("EnginesFor was given %v", got)
	}
	after, err := store.Get(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.Status != interviews.StatusFailed || after.EndedBy != interviews.EndedByProviderError(interviews.ProviderKeys) || after.Error == "" {
		t.Errorf("record after refused keys: status %s, ended_by %s, error %q", after.Status, after.EndedBy, after.Error)
	}
	if store.HasKeys(ctx, rec.ID) {
		t.Error("refused keys were kept")
	}
	if _, held, _ := store.Lease(ctx, rec.ID); held {
		t.Error("the lease was kept")
	}
}

// TestOwnKeysWithoutSecretsKey: a worker that cannot open an interview's
// keys refuses the job without touching the record or the keys (the
// operator can fix the worker's settings and the candidate try again),
// and never falls back to its own keys.
func TestOwnKeysWithoutSecretsKey(t *testing.T) {
	store, rec := keysStore(t, false)
	called := false
	s := &worker.Sessions{Store: store, Logger: testLogger(t), EnginesFor: func(context.Context, interviews.Keys) (worker.Engines, error) {
		called = true
		return worker.Engines{}, nil
	}}
	err := s.HandleJob(context.Background(), keysJob(t, rec))
	if !errors.Is(err, interviews.ErrNoSecretsKey) {
		t.Fatalf("HandleJob = %v, want ErrNoSecretsKey", err)
	}
	if called {
		t.Error("engines were made without the keys")
	}
	if after, _ := store.Get(t.Context(), rec.ID); after.Status != interviews.StatusScheduled {
		t.Errorf("record status %s, want scheduled", after.Status)
	}
	if !store.HasKeys(t.Context(), rec.ID) {
		t.Error("the keys were deleted")
	}
	if _, held, _ := store.Lease(t.Context(), rec.ID); held {
		t.Error("the lease was kept")
	}
}
