package worker

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"

	"github.com/go-logr/logr"
	protologger "github.com/livekit/protocol/logger"
)

// SDKLogger is a logger for the LiveKit SDK (lksdk.WithLogger,
// lkmedia.WithLogger, lksdk.SetLogger) that writes into base: its routine
// lines become debug lines, and access tokens never reach the log — token
// (when given) and anything shaped like a JWT are replaced by "[token]".
func SDKLogger(base *slog.Logger, token string) protologger.Logger {
	return protologger.LogRLogger(logr.FromSlogHandler(sdkHandler{next: base.Handler(), token: token}))
}

// jwtPattern matches a JSON web token (header.payload.signature).
var jwtPattern = regexp.MustCompile(`eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)

// sdkHandler carries the LiveKit SDK's log lines into a viva logger:
// below error level they become debug lines (the SDK logs its routine steps
// and even its warnings at info level), and the join token, which the SDK
// prints in its connection attempts, is redacted.
type sdkHandler struct {
	next  slog.Handler
	token string
}

// Enabled implements slog.Handler.
func (h sdkHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, h.level(level))
}

// Handle implements slog.Handler.
func (h sdkHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, h.level(r.Level), h.redact(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.redactAttr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

// WithAttrs implements slog.Handler.
func (h sdkHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = h.redactAttr(a)
	}
	return sdkHandler{next: h.next.WithAttrs(clean), token: h.token}
}

// WithGroup implements slog.Handler.
func (h sdkHandler) WithGroup(name string) slog.Handler {
	return sdkHandler{next: h.next.WithGroup(name), token: h.token}
}

func (h sdkHandler) level(l slog.Level) slog.Level {
	if l >= slog.LevelError {
		return l
	}
	return slog.LevelDebug
}

// redactAttr replaces the token wherever it appears in a's value, formatting
// structured values to find it.
func (h sdkHandler) redactAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindGroup:
		group := v.Group()
		clean := make([]any, len(group))
		for i, g := range group {
			clean[i] = h.redactAttr(g)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindString:
		return slog.String(a.Key, h.redact(v.String()))
	case slog.KindAny:
		s := fmt.Sprintf("%+v", v.Any())
		if (h.token != "" && strings.Contains(s, h.token)) || jwtPattern.MatchString(s) {
			return slog.String(a.Key, h.redact(s))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

func (h sdkHandler) redact(s string) string {
	if h.token == "" {
		return jwtPattern.ReplaceAllString(s, "[token]")
	}
	return jwtPattern.ReplaceAllString(strings.ReplaceAll(s, h.token, "[token]"), "[token]")
}
