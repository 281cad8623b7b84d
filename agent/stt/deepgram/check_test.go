package deepgram

import (
	"errors"
	"testing"

	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/testrig/fakedeepgram"
)

// TestCheck: the startup check accepts the right key and reports a wrong
// one as stt.ErrAuth naming DEEPGRAM_API_KEY.
func TestCheck(t *testing.T) {
	srv := fakedeepgram.New()
	defer srv.Close()
	for key, wantAuth := range map[string]bool{fakedeepgram.Key: false, "dg-wrong": true} {
		e, err := New(Options{APIKey: key, URL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		err = e.Check(t.Context())
		if got := errors.Is(err, stt.ErrAuth); got != wantAuth {
			t.Errorf("key %q: Check() = %v, want ErrAuth %v", key, err, wantAuth)
		}
	}
}
