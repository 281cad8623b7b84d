package storetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
)

func sealer(t *testing.T, fill byte) *interviews.Sealer {
	t.Helper()
	sl, err := interviews.NewSealer(bytes.Repeat([]byte{fill}, interviews.SecretsKeySize))
	if err != nil {
		t.Fatal(err)
	}
	return sl
}

// testKeys: keys are stored sealed, never in the record, read back whole
// and deleted; without a secrets key they are refused, and under another
// secrets key they do not open.
func testKeys(t *testing.T, open Opener) {
	plain := open(Options{})
	r := NewRecord("iv1", "Ada", "x", interviews.StatusScheduled, time.Now().UTC())
	if err := plain.Create(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	k := interviews.Keys{OpenAI: "sk-proj-0123456789abcdefghij", Deepgram: "0123456789abcdef0123456789abcdef01234567"}
	if err := plain.PutKeys(t.Context(), "iv1", k); !errors.Is(err, interviews.ErrNoSecretsKey) {
		t.Fatalf("PutKeys without a secrets key = %v, want ErrNoSecretsKey", err)
	}
	if plain.KeepsKeys() {
		t.Error("KeepsKeys without a secrets key")
	}
	s := open(Options{Sealer: sealer(t, 7)})
	if !s.KeepsKeys() {
		t.Error("KeepsKeys with a secrets key = false")
	}
	if _, err := s.Keys(t.Context(), "iv1"); !errors.Is(err, interviews.ErrNoKeys) {
		t.Fatalf("Keys before PutKeys = %v, want ErrNoKeys", err)
	}
	if s.HasKeys(t.Context(), "iv1") {
		t.Error("HasKeys before PutKeys")
	}
	if err := s.PutKeys(t.Context(), "iv1", k); err != nil {
		t.Fatal(err)
	}
	if !s.HasKeys(t.Context(), "iv1") {
		t.Error("HasKeys after PutKeys = false")
	}
	got, err := s.Keys(t.Context(), "iv1")
	if err != nil || got != k {
		t.Fatalf("Keys = %v, %v", got, err)
	}
	if err := s.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	stored, err := s.Get(t.Context(), "iv1")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(stored)
	for _, secret := range []string{k.OpenAI, k.Deepgram} {
		if bytes.Contains(data, []byte(secret)) {
			t.Error("the record holds a key")
		}
	}
	if page, err := s.List(t.Context(), interviews.ListOptions{}); err != nil || page.Total != 1 {
		t.Errorf("List with keys stored = %+v, %v; want the one record", page, err)
	}
	if _, err := plain.Keys(t.Context(), "iv1"); !errors.Is(err, interviews.ErrNoSecretsKey) {
		t.Errorf("Keys without a secrets key = %v, want ErrNoSecretsKey", err)
	}
	if _, err := open(Options{Sealer: sealer(t, 8)}).Keys(t.Context(), "iv1"); !errors.Is(err, interviews.ErrSealBroken) {
		t.Errorf("Keys under another secrets key = %v, want ErrSealBroken", err)
	}
}

// testKeysReplaceDelete: new keys replace the old ones whole; deleted or
// emptied keys are gone; keys of no interview are refused.
func testKeysReplaceDelete(t *testing.T, open Opener) {
	s := open(Options{Sealer: sealer(t, 7)})
	if err := s.Create(t.Context(), NewRecord("iv1", "Ada", "x", interviews.StatusScheduled, time.Now().UTC())); err != nil {
		t.Fatal(err)
	}
	k := interviews.Keys{OpenAI: "sk-proj-0123456789abcdefghij", Deepgram: "0123456789abcdef0123456789abcdef01234567"}
	if err := s.PutKeys(t.Context(), "iv1", k); err != nil {
		t.Fatal(err)
	}
	// Replacing keys keeps only the new ones.
	k2 := interviews.Keys{OpenAI: "sk-proj-replacement-0123456789"}
	if err := s.PutKeys(t.Context(), "iv1", k2); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Keys(t.Context(), "iv1"); err != nil || got != k2 {
		t.Fatalf("Keys after replacing = %v, %v", got, err)
	}

	if err := s.DeleteKeys(t.Context(), "iv1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Keys(t.Context(), "iv1"); !errors.Is(err, interviews.ErrNoKeys) {
		t.Errorf("Keys after DeleteKeys = %v, want ErrNoKeys", err)
	}
	if err := s.DeleteKeys(t.Context(), "iv1"); err != nil {
		t.Errorf("deleting absent keys = %v", err)
	}
	if err := s.PutKeys(t.Context(), "iv1", k); err != nil {
		t.Fatal(err)
	}
	if err := s.PutKeys(t.Context(), "iv1", interviews.Keys{}); err != nil || s.HasKeys(t.Context(), "iv1") {
		t.Errorf("PutKeys of empty keys = %v, keys left: %v", err, s.HasKeys(t.Context(), "iv1"))
	}
	if err := s.PutKeys(t.Context(), "../etc", k); !errors.Is(err, interviews.ErrNotFound) {
		t.Errorf("PutKeys with a bad id = %v", err)
	}
}

// testSweepDeletesKeys: an interview the sweep ends as crashed loses its
// keys; one a live session holds keeps them.
func testSweepDeletesKeys(t *testing.T, open Opener) {
	clk := newClock()
	s := open(Options{Now: clk.Now, Sealer: sealer(t, 3)})
	created := clk.Now().Add(-time.Hour)
	for _, id := range []string{"crashed", "live"} {
		if err := s.Create(t.Context(), NewRecord(id, "Ada", "x", interviews.StatusInProgress, created)); err != nil {
			t.Fatal(err)
		}
		if err := s.PutKeys(t.Context(), id, interviews.Keys{OpenAI: "sk-0123456789abcdefghij"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.AcquireLease(t.Context(), "live", "running-worker", time.Minute); err != nil {
		t.Fatal(err)
	}
	if ended, err := s.SweepCrashed(t.Context()); err != nil || len(ended) != 1 {
		t.Fatalf("sweep = %v, %v", ended, err)
	}
	if s.HasKeys(t.Context(), "crashed") {
		t.Error("the swept interview kept its keys")
	}
	if !s.HasKeys(t.Context(), "live") {
		t.Error("the live interview lost its keys")
	}
}
