package interviews

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func testSealer(t *testing.T, fill byte) *Sealer {
	t.Helper()
	sl, err := NewSealer(bytes.Repeat([]byte{fill}, SecretsKeySize))
	if err != nil {
		t.Fatal(err)
	}
	return sl
}

// TestSealerOpensOnlyItsOwn: a sealed value opens with the same key and
// id, and any change — a flipped bit, a cut, another key, another id —
// makes Open fail instead of returning something else.
func TestSealerOpensOnlyItsOwn(t *testing.T) {
	sl := testSealer(t, 1)
	plain := []byte(`{"openai":"sk-test"}`)
	sealed := sl.Seal("iv1", plain)
	if bytes.Contains(sealed, plain) {
		t.Fatal("the sealed value holds the plain text")
	}
	if again := sl.Seal("iv1", plain); bytes.Equal(again, sealed) {
		t.Error("two seals of one value are equal: the nonce is not random")
	}
	got, err := sl.Open("iv1", sealed)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("Open = %q, %v; want the plain text", got, err)
	}
	flipped := func(i int) []byte {
		b := bytes.Clone(sealed)
		b[i] ^= 0x01
		return b
	}
	cases := map[string]struct {
		sealer *Sealer
		id     string
		sealed []byte
	}{
		"nonce changed":      {sl, "iv1", flipped(0)},
		"ciphertext changed": {sl, "iv1", flipped(len(sealed) / 2)},
		"tag changed":        {sl, "iv1", flipped(len(sealed) - 1)},
		"cut short":          {sl, "iv1", sealed[:len(sealed)-1]},
		"too short":          {sl, "iv1", sealed[:5]},
		"empty":              {sl, "iv1", nil},
		"wrong key":          {testSealer(t, 2), "iv1", sealed},
		"wrong id":           {sl, "iv2", sealed},
	}
	for name, c := range cases {
		if got, err := c.sealer.Open(c.id, c.sealed); !errors.Is(err, ErrSealBroken) || got != nil {
			t.Errorf("%s: Open = %q, %v; want ErrSealBroken", name, got, err)
		}
	}
}

func TestNewSealerWantsThirtyTwoBytes(t *testing.T) {
	for _, n := range []int{0, 16, 24, 31, 33, 64} {
		if _, err := NewSealer(make([]byte, n)); err == nil {
			t.Errorf("NewSealer accepted a %d-byte key", n)
		}
	}
}

// TestKeysNeverPrinted: formatting or logging Keys says which are set,
// never the values.
func TestKeysNeverPrinted(t *testing.T) {
	k := Keys{OpenAI: "sk-secret-openai", Deepgram: "dg-secret"}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("keys", "keys", k, "ptr", &k)
	slog.New(slog.NewTextHandler(&logged, nil)).Info("keys", "keys", k)
	out := fmt.Sprintf("%v %+v %#v %s", k, k, k, k) + logged.String()
	for _, secret := range []string{k.OpenAI, k.Deepgram} {
		if strings.Contains(out, secret) {
			t.Errorf("a key was printed: %s", out)
		}
	}
	if !strings.Contains(k.String(), "openai:set") || !strings.Contains(Keys{}.String(), "deepgram:unset") {
		t.Errorf("String = %q", k.String())
	}
}
