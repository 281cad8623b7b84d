package config

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Setting describes one setting, for help texts and documentation.
type Setting struct {
	// Key is the setting's YAML key ("time_scale").
	Key string
	// Flag is the flag name without dashes; empty for secrets.
	Flag string
	// Env is the environment variable.
	Env string
	// Default is the default value as text; empty for none.
	Default string
	// Help says what the setting does.
	Help string
	// Accept says which values are accepted.
	Accept string
	// Secret settings are never shown and have no flag.
	Secret bool
}

// setting is a Setting bound to its Config field.
type setting struct {
	Setting
	index  int    // field index in Config
	checks []rule // from the check tag
}

// settings are all settings, in Config field order.
var settings = describe()

// Settings returns the description of every setting, in a stable order.
func Settings() []Setting {
	out := make([]Setting, len(settings))
	for i, s := range settings {
		out[i] = s.Setting
	}
	return out
}

var durationType = reflect.TypeFor[time.Duration]()

func describe() []*setting {
	t := reflect.TypeFor[Config]()
	var out []*setting
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key := f.Tag.Get("yaml")
		if key == "" {
			continue
		}
		def, inCode := codeDefaults[f.Name]
		if tag, ok := f.Tag.Lookup("default"); ok {
			if inCode {
				panic("config: field " + f.Name + " has a default tag and a default in codeDefaults: keep one")
			}
			def = tag
		}
		s := &setting{index: i, Setting: Setting{
			Key: key, Flag: f.Tag.Get("flag"), Env: f.Tag.Get("env"), Default: def,
			Help: f.Tag.Get("help"), Accept: f.Tag.Get("accept"), Secret: f.Tag.Get("secret") == "true",
		}}
		if s.Env == "" || s.Help == "" || (s.Secret && s.Flag != "") || (!s.Secret && s.Flag == "") {
			panic("config: field " + f.Name + " needs env and help tags, and a flag unless it is secret")
		}
		switch f.Type {
		case reflect.TypeFor[string](), reflect.TypeFor[float64](), reflect.TypeFor[int](), reflect.TypeFor[bool](), durationType:
		default:
			panic("config: field " + f.Name + " has an unsupported type " + f.Type.String())
		}
		if c := f.Tag.Get("check"); c != "" {
			for _, spec := range strings.Split(c, ",") {
				s.checks = append(s.checks, newRule(f.Name, f.Type, spec))
			}
		}
		out = append(out, s)
	}
	for name := range codeDefaults {
		if f, ok := t.FieldByName(name); !ok || f.Tag.Get("yaml") == "" {
			panic("config: codeDefaults names " + name + ", which is not a setting")
		}
	}
	return out
}

// Default returns a Config with every setting at its default.
func Default() *Config {
	c := &Config{}
	for _, s := range settings {
		if s.Default == "" {
			continue
		}
		if err := s.parse(c, s.Default); err != nil {
			panic(fmt.Sprintf("config: default of %s: %v", s.Key, err))
		}
	}
	return c
}

// isBool reports whether s is a true/false setting.
func (s *setting) isBool() bool {
	return reflect.TypeFor[Config]().Field(s.index).Type.Kind() == reflect.Bool
}

// parse sets s's field of c from text.
func (s *setting) parse(c *Config, text string) error {
	v := reflect.ValueOf(c).Elem().Field(s.index)
	switch v.Type() {
	case durationType:
		d, err := parseDuration(text)
		if err != nil {
			return err
		}
		v.SetInt(int64(d))
	default:
		switch v.Kind() {
		case reflect.Float64:
			f, err := strconv.ParseFloat(text, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return errors.New("is not a number")
			}
			v.SetFloat(f)
		case reflect.Int:
			n, err := strconv.Atoi(text)
			if err != nil {
				return errors.New("is not a whole number")
			}
			v.SetInt(int64(n))
		case reflect.Bool:
			b, err := strconv.ParseBool(text)
			if err != nil {
				return errors.New("is not true or false")
			}
			v.SetBool(b)
		case reflect.String:
			if s.isEnum() {
				text = strings.ToLower(text)
				if text == auto {
					text = ""
				}
			}
			v.SetString(text)
		}
	}
	return nil
}

func (s *setting) isEnum() bool {
	for _, r := range s.checks {
		if r.enum {
			return true
		}
	}
	return false
}

// format renders s's value in c as text.
func (s *setting) format(c *Config) string {
	v := reflect.ValueOf(c).Elem().Field(s.index)
	switch {
	case v.Type() == durationType:
		return time.Duration(v.Int()).String()
	case v.Kind() == reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case v.Kind() == reflect.Int:
		return strconv.FormatInt(v.Int(), 10)
	case v.Kind() == reflect.Bool:
		return strconv.FormatBool(v.Bool())
	}
	return v.String()
}

// lookup returns the setting with YAML key key, which must exist.
func lookup(key string) *setting {
	if s := find(key); s != nil {
		return s
	}
	panic("config: no setting " + key)
}

func (s *setting) isURL() bool {
	for _, r := range s.checks {
		if r.url {
			return true
		}
	}
	return false
}

func (s *setting) isList() bool {
	for _, r := range s.checks {
		if r.list {
			return true
		}
	}
	return false
}

// splitList splits a comma-separated setting, dropping blanks.
func splitList(v string) []string {
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
