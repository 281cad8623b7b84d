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

// Load builds the Config of a command. It registers every setting's flag,
// and --config, on fs (which may already carry the command's own flags),
// parses args, reads the YAML file named by --config or VIVA_CONFIG, and
// applies precedence: flag, then environment (getenv; nil means os.Getenv;
// an empty variable counts as unset), then the file, then the default.
// The result is validated; every problem found is reported, joined, and
// then the Config is nil. Errors from fs.Parse (flag.ErrHelp included) are
// returned as they are.
func Load(fs *flag.FlagSet, args []string, getenv func(string) string) (*Config, error) {
	if fs == nil {
		fs = flag.NewFlagSet("viva", flag.ContinueOnError)
	}
	if getenv == nil {
		getenv = os.Getenv
	}
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
		if s.Secret {
			secrets = append(secrets, s.Env)
		}
	}
	if err := register(ConfigFlag, "YAML file of settings (env "+ConfigEnv+"); secrets ("+strings.Join(secrets, ", ")+") come from the environment or this file", "", false); err != nil {
		return nil, err
	}
	for _, s := range settings {
		if s.Flag == "" {
			continue
		}
		if err := register(s.Flag, s.Help+" (env "+s.Env+")", s.Default, s.isBool()); err != nil {
			return nil, err
		}
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}

	var errs []error
	file := map[string]yamlValue{}
	path, pathLabel := "", ""
	if f := flags[ConfigFlag]; f.set {
		path, pathLabel = strings.TrimSpace(f.value), "--"+ConfigFlag+"="+strconv.Quote(f.value)
	} else if v := getenv(ConfigEnv); v != "" {
		path, pathLabel = strings.TrimSpace(v), ConfigEnv+"="+strconv.Quote(v)
	}
	if path != "" {
		var ferrs []error
		file, ferrs = readFile(path, pathLabel)
		errs = append(errs, ferrs...)
	}

	c := Default()
	c.origins = map[string]origin{}
	for _, s := range settings {
		var o origin
		if y, ok := file[s.Key]; ok {
			o = origin{kind: fromFile, file: path, line: y.line, raw: y.value}
		}
		if v := getenv(s.Env); v != "" {
			o = origin{kind: fromEnv, raw: v}
		}
		if f := flags[s.Flag]; s.Flag != "" && f.set {
			o = origin{kind: fromFlag, raw: f.value}
		}
		if o.kind == fromDefault {
			continue
		}
		c.origins[s.Key] = o
		if err := s.parse(c, strings.TrimSpace(o.raw)); err != nil {
			errs = append(errs, s.problem(o, nil, err.Error()))
			_ = s.parse(c, s.Default) // keep the default so later checks stay meaningful
			o.failed = true
			c.origins[s.Key] = o
		}
	}
	if err := c.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c, nil
}

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
