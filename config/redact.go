package config

import (
	"fmt"
	"log/slog"
	"net/url"
	"strings"
)

// Redacted returns every setting by YAML key, as text fit for a startup log
// line: secrets appear only as "set" or "unset", URLs lose any credentials
// and query values, and engines left on auto show what they resolved to
// ("auto: scripted").
func (c *Config) Redacted() map[string]string {
	out := make(map[string]string, len(settings))
	for _, s := range settings {
		out[s.Key] = c.redacted(s)
	}
	return out
}

func (c *Config) redacted(s *setting) string {
	v := s.format(c)
	switch {
	case s.Secret:
		if v == "" {
			return "unset"
		}
		return "set"
	case s.Key == "llm" && (v == "" || v == auto):
		return "auto: " + c.ResolvedLLM()
	case s.Key == "stt" && (v == "" || v == auto):
		return "auto: " + c.ResolvedSTT()
	case s.Key == "tts" && (v == "" || v == auto):
		return "auto: " + c.ResolvedTTS()
	case s.isList():
		return redactList(v)
	case s.isURL():
		return redactURL(v)
	}
	return v
}

// redactList keeps the scheme and host of each URL of a comma-separated
// list.
func redactList(v string) string {
	items := splitList(v)
	for i, item := range items {
		items[i] = redactPath(item)
	}
	return strings.Join(items, ",")
}

// redactPath keeps a URL's scheme and host only: the paths of webhook URLs
// often carry a token.
func redactPath(v string) string {
	u, err := url.Parse(v)
	if err != nil || u.Host == "" {
		return "(hidden)"
	}
	return u.Scheme + "://" + u.Host + "/…"
}

// redactURL drops the password and query values of a URL; text that does
// not parse is hidden whole, since it could hold anything.
func redactURL(v string) string {
	if v == "" {
		return ""
	}
	u, err := url.Parse(v)
	if err != nil {
		return "(invalid URL)"
	}
	if u.User != nil {
		u.User = url.User("redacted")
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{"redacted"}
		}
		u.RawQuery = q.Encode()
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// LogValue logs the Config as its Redacted settings, so a Config passed to
// slog never shows a secret.
func (c Config) LogValue() slog.Value {
	attrs := make([]slog.Attr, 0, len(settings))
	for _, s := range settings {
		attrs = append(attrs, slog.String(s.Key, c.redacted(s)))
	}
	return slog.GroupValue(attrs...)
}

// String renders the Config as its Redacted settings (for %v and %+v), so
// printing a Config never shows a secret.
func (c Config) String() string {
	var b strings.Builder
	b.WriteString("config{")
	for i, s := range settings {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%q", s.Key, c.redacted(s))
	}
	b.WriteByte('}')
	return b.String()
}

// GoString is String, so %#v does not show secrets either.
func (c Config) GoString() string { return c.String() }
