package config

import (
	"fmt"
	"net/url"
	"strconv"
)

// originKind says where a value came from.
type originKind int

const (
	fromDefault originKind = iota
	fromFile
	fromEnv
	fromFlag
)

// origin is where a setting's value came from.
type origin struct {
	kind   originKind
	file   string // fromFile: the path as given
	line   int    // fromFile: the line of the key
	raw    string // the text as given
	failed bool   // the text did not parse; the default is in use
}

// label names s the way the user set it: --time-scale, VIVA_TIME_SCALE or
// config.yaml:3: time_scale. Settings left at their default are named by
// their flag (or, for secrets, their environment variable).
func (s *setting) label(o origin) string {
	switch {
	case o.kind == fromFile:
		return fmt.Sprintf("%s:%d: %s", o.file, o.line, s.Key)
	case o.kind == fromEnv || s.Flag == "":
		return s.Env
	default:
		return "--" + s.Flag
	}
}

// show names s with its value the way the user set it, never showing a
// secret: VIVA_TIME_SCALE="fast", --time-scale="fast", config.yaml:3:
// time_scale: "fast". With quote false the value is shown bare
// (VIVA_STT=deepgram). value is the current value, used when o is a default.
func (s *setting) show(o origin, value string, quote bool) string {
	if s.Secret {
		return s.label(o)
	}
	if o.kind != fromDefault {
		value = o.raw
	}
	switch {
	case s.isList():
		value = redactList(value)
	case s.isURL():
		// A URL is shown as given unless it may hold a credential.
		if u, err := url.Parse(value); err != nil || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			value = redactURL(value)
		}
	}
	if quote {
		value = strconv.Quote(value)
	}
	if o.kind == fromFile {
		return s.label(o) + ": " + value
	}
	return s.label(o) + "=" + value
}

// problem is an error about s's value: what is wrong and what to use.
func (s *setting) problem(o origin, c *Config, what string) error {
	value := ""
	if c != nil {
		value = s.format(c)
	}
	return fmt.Errorf("%s %s: use %s", s.show(o, value, true), what, s.accept())
}

func (s *setting) accept() string {
	if s.Accept != "" {
		return s.Accept
	}
	return "a value such as " + strconv.Quote(s.Default)
}

func (c *Config) origin(key string) origin {
	return c.origins[key] // zero value: fromDefault
}
