package config

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseDuration reads a duration as settings do: Go duration syntax
// ("36h"), whole days ("90d") or a plain number of seconds.
func ParseDuration(text string) (time.Duration, error) { return parseDuration(text) }

// parseDuration reads Go duration syntax ("500ms", "1m30s"), whole days
// ("90d") or a plain number of seconds ("0.5", "60").
func parseDuration(text string) (time.Duration, error) {
	if d, err := time.ParseDuration(text); err == nil {
		return d, nil
	}
	if days, ok := strings.CutSuffix(text, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 || n > maxDays {
			return 0, errors.New("is not a duration")
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	sec, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(sec) || math.IsInf(sec, 0) || math.Abs(sec) > math.MaxInt64/float64(time.Second) {
		return 0, errors.New("is not a duration")
	}
	return time.Duration(sec * float64(time.Second)), nil
}

// maxDays bounds a duration given in days to what time.Duration holds.
const maxDays = 100000

// SecretsKeySize is the length in bytes of VIVA_SECRETS_KEY once decoded.
const SecretsKeySize = 32

// DecodeSecretsKey decodes a secrets key written as 64 hex characters or
// as base64 (standard or URL alphabet, padded or not) of 32 bytes. Empty
// text is no key: nil and no error.
func DecodeSecretsKey(text string) ([]byte, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, nil
	}
	if len(text) == 2*SecretsKeySize {
		if b, err := hex.DecodeString(text); err == nil {
			return b, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(text); err == nil {
			if len(b) != SecretsKeySize {
				return nil, fmt.Errorf("decodes to %d bytes, not %d", len(b), SecretsKeySize)
			}
			return b, nil
		}
	}
	return nil, fmt.Errorf("is neither 64 hex characters nor base64 of %d bytes", SecretsKeySize)
}

// SecretsKeyBytes returns the decoded secrets key, or nil when none is set
// (interviews then cannot bring their own provider keys).
func (c *Config) SecretsKeyBytes() ([]byte, error) {
	b, err := DecodeSecretsKey(c.SecretsKey)
	if err != nil {
		return nil, fmt.Errorf("config: VIVA_SECRETS_KEY %w: generate one with: openssl rand -hex 32", err)
	}
	return b, nil
}
