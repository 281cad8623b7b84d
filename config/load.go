package config

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ConfigFlag and ConfigEnv name the YAML file to read settings from.
const (
	ConfigFlag = "config"
	ConfigEnv  = "VIVA_CONFIG"
)

// Load builds the Config of a command that reads every setting: it is
// LoadSettings with no keys.
func Load(fs *flag.FlagSet, args []string, getenv func(string) string) (*Config, error) {
	return LoadSettings(fs, args, getenv)
}

// LoadSettings builds the Config of a command. It registers the flags of
// the settings the command reads (keys, by YAML key; none means every
// setting), and --config, on fs (which may already carry the command's
// own flags), parses args, reads the YAML file named by --config or
// VIVA_CONFIG, and applies precedence: flag, then environment (getenv; nil
// means os.Getenv; an empty variable counts as unset), then the file,
// then the default. The settings read are validated (the others keep
// their defaults or what the environment or file says, unchecked); every
// problem found is reported, joined, and then the Config is nil. Errors
// from fs.Parse are a *FlagError, except flag.ErrHelp, returned as it is.
func LoadSettings(fs *flag.FlagSet, args []string, getenv func(string) string, keys ...string) (*Config, error) {
	if fs == nil {
		fs = flag.NewFlagSet("viva", flag.ContinueOnError)
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	reads, err := readSet(keys)
	if err != nil {
		return nil, err
	}
	flags, err := registerFlags(fs, reads)
	if err != nil {
		return nil, err
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, &FlagError{Err: err}
	}
	var errs []error
	path, pathLabel := configPath(flags[ConfigFlag], getenv)
	file := map[string]yamlValue{}
	if path != "" {
		var ferrs []error
		file, ferrs = readFile(path, pathLabel)
		errs = append(errs, ferrs...)
	}
	c := Default()
	c.reads = reads
	errs = append(errs, c.apply(flags, getenv, file, path)...)
	if err := c.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c, nil
}

// FlagError is a mistake on the command line that the flag package found
// (an unknown flag, a flag without its value), as opposed to a value that
// is not valid for its setting.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }

// Unwrap returns the flag package's error.
func (e *FlagError) Unwrap() error { return e.Err }

// readSet is the set of YAML keys a command reads; nil means every one.
func readSet(keys []string) (map[string]bool, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	reads := make(map[string]bool, len(keys))
	for _, k := range keys {
		if find(k) == nil {
			return nil, fmt.Errorf("config: the command reads %q, which is not a setting", k)
		}
		reads[k] = true
	}
	return reads, nil
}

// registerFlags registers --config and the flag of every setting in reads
// (nil: every setting) on fs, and returns them by flag name.
func registerFlags(fs *flag.FlagSet, reads map[string]bool) (map[string]*rawFlag, error) {
	flags := map[string]*rawFlag{}
	register := func(name, usage, def string, bool bool) error {
		if fs.Lookup(name) != nil {
			return fmt.Errorf("config: the command already defines flag --%s", name)
		}
		f := &rawFlag{value: def}
		if bool {
			fs.Var(&rawBoolFlag{f}, name, usage)
		} else {
			fs.Var(f, name, usage)
		}
		flags[name] = f
		return nil
	}
	var secrets []string
	for _, s := range settings {
		if s.Secret && (reads == nil || reads[s.Key]) {
			secrets = append(secrets, s.Env)
		}
	}
	usage := "YAML file of settings (env " + ConfigEnv + ")"
	if len(secrets) > 0 {
		usage += "; secrets (" + strings.Join(secrets, ", ") + ") come from the environment or this file"
	}
	if err := register(ConfigFlag, usage, "", false); err != nil {
		return nil, err
	}
	for _, s := range settings {
		if s.Flag == "" || (reads != nil && !reads[s.Key]) {
			continue
		}
		if err := register(s.Flag, s.Help+" (env "+s.Env+")", s.Default, s.isBool()); err != nil {
			return nil, err
		}
	}
	return flags, nil
}

// configPath is the settings file named by --config or VIVA_CONFIG, and
// how it was given, for errors; "" when none.
func configPath(f *rawFlag, getenv func(string) string) (path, label string) {
	if f.set {
		return strings.TrimSpace(f.value), "--" + ConfigFlag + "=" + strconv.Quote(f.value)
	}
	if v := getenv(ConfigEnv); v != "" {
		return strings.TrimSpace(v), ConfigEnv + "=" + strconv.Quote(v)
	}
	return "", ""
}

// apply sets each setting from the first of its flag, its environment
// variable and its key in the file (at path) that gives it, and records
// where it came from. A value that does not parse is an error for a
// setting the command reads; the default stays in its place.
func (c *Config) apply(flags map[string]*rawFlag, getenv func(string) string, file map[string]yamlValue, path string) []error {
	var errs []error
	c.origins = map[string]origin{}
	for _, s := range settings {
		var o origin
		if y, ok := file[s.Key]; ok {
			o = origin{kind: fromFile, file: path, line: y.line, raw: y.value}
		}
		if v := getenv(s.Env); v != "" {
			o = origin{kind: fromEnv, raw: v}
		}
		if f := flags[s.Flag]; s.Flag != "" && f != nil && f.set {
			o = origin{kind: fromFlag, raw: f.value}
		}
		if o.kind == fromDefault {
			continue
		}
		c.origins[s.Key] = o
		if err := s.parse(c, strings.TrimSpace(o.raw)); err != nil {
			if c.Reads(s.Key) {
				errs = append(errs, s.problem(o, nil, err.Error()))
			}
			_ = s.parse(c, s.Default) // keep the default so later checks stay meaningful
			o.failed = true
			c.origins[s.Key] = o
		}
	}
	return errs
}

// Reads reports whether the command that loaded c reads the setting with
// YAML key key (every command made by Load reads every setting).
func (c *Config) Reads(key string) bool { return c.reads == nil || c.reads[key] }

// rawFlag is a flag that keeps the text given, so that parsing and its
// error messages are the same for flags, environment and file.
type rawFlag struct {
	value string
	set   bool
}

func (f *rawFlag) String() string {
	if f == nil {
		return ""
	}
	return f.value
}

func (f *rawFlag) Set(v string) error {
	f.value, f.set = v, true
	return nil
}

// rawBoolFlag is a rawFlag that may be given without a value
// (--record-audio means --record-audio=true).
type rawBoolFlag struct{ *rawFlag }

// IsBoolFlag tells the flag package that the value is optional.
func (f *rawBoolFlag) IsBoolFlag() bool { return true }
