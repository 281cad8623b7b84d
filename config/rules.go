package config

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// rule is one validation rule of a setting, from its check tag.
type rule struct {
	check func(v reflect.Value) (problem string)
	enum  bool // a oneof rule: values are lower-cased, "auto" means ""
	url   bool // a url rule: redacted in logs
	list  bool // a comma-separated list of URLs: only hosts are logged
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// Off turns off a listener setting (HealthAddr, PprofAddr) where an empty
// value cannot be given, as in an environment variable.
const Off = "off"

// ListenAddr is the address a listener setting asks to listen on: "" when
// it is empty or Off.
func ListenAddr(setting string) string {
	if s := strings.TrimSpace(setting); s != Off {
		return s
	}
	return ""
}

// newRule compiles one check: nonempty, name, hostport, listen (a hostport
// or empty or Off), oneof=a|b,
// url=scheme|scheme, secretkey, minlen=N, and gt=, ge=, le= with a number or a
// duration (matching the field's type).
func newRule(field string, typ reflect.Type, spec string) rule {
	name, arg, _ := strings.Cut(spec, "=")
	bound := func() float64 {
		if typ == durationType {
			d, err := time.ParseDuration(arg)
			if err != nil {
				panic("config: " + field + ": bad bound " + spec)
			}
			return float64(d)
		}
		f, err := strconv.ParseFloat(arg, 64)
		if err != nil {
			panic("config: " + field + ": bad bound " + spec)
		}
		return f
	}
	number := func(v reflect.Value) float64 {
		if v.Kind() == reflect.Float64 {
			return v.Float()
		}
		return float64(v.Int())
	}
	switch name {
	case "nonempty":
		return rule{check: func(v reflect.Value) string {
			if strings.TrimSpace(v.String()) == "" {
				return "is empty"
			}
			return ""
		}}
	case "name":
		return rule{check: func(v reflect.Value) string {
			if !nameRE.MatchString(v.String()) {
				return "is not a name of up to 64 letters, digits, '.', '-' and '_'"
			}
			return ""
		}}
	case "hostport":
		return rule{check: func(v reflect.Value) string {
			_, port, err := net.SplitHostPort(v.String())
			if err != nil {
				return "is not a host:port address"
			}
			if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
				return "has no valid port (0 to 65535)"
			}
			return ""
		}}
	case "listen":
		return rule{check: func(v reflect.Value) string {
			if ListenAddr(v.String()) == "" {
				return ""
			}
			_, port, err := net.SplitHostPort(v.String())
			if err != nil {
				return "is not a host:port address"
			}
			if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
				return "has no valid port (0 to 65535)"
			}
			return ""
		}}
	case "oneof":
		allowed := strings.Split(arg, "|")
		return rule{enum: true, check: func(v reflect.Value) string {
			s := v.String()
			for _, a := range allowed {
				if s == a || (s == "" && a == auto) {
					return ""
				}
			}
			return "is not one of " + strings.Join(allowed, ", ")
		}}
	case "url":
		schemes := strings.Split(arg, "|")
		return rule{url: true, check: func(v reflect.Value) string {
			s := v.String()
			if s == "" {
				return ""
			}
			u, err := url.Parse(s)
			switch {
			case err != nil || u.Scheme == "" || u.Host == "":
				return "is not a full URL with a scheme and a host"
			case !slices.Contains(schemes, u.Scheme):
				return "has the scheme " + strconv.Quote(u.Scheme)
			}
			return ""
		}}
	case "urls":
		schemes := strings.Split(arg, "|")
		return rule{url: true, list: true, check: func(v reflect.Value) string {
			for _, item := range splitList(v.String()) {
				u, err := url.Parse(item)
				switch {
				case err != nil || u.Scheme == "" || u.Host == "":
					return "holds an item that is not a full URL with a scheme and a host"
				case !slices.Contains(schemes, u.Scheme):
					return "holds a URL with the scheme " + strconv.Quote(u.Scheme)
				}
			}
			return ""
		}}
	case "secretkey":
		return rule{check: func(v reflect.Value) string {
			if _, err := DecodeSecretsKey(v.String()); err != nil {
				return err.Error()
			}
			return ""
		}}
	case "file":
		return rule{check: func(v reflect.Value) string {
			if v.String() == "" {
				return ""
			}
			if info, err := os.Stat(v.String()); err != nil || !info.Mode().IsRegular() {
				return "is not an existing file"
			}
			return ""
		}}
	case "logo":
		return rule{check: func(v reflect.Value) string {
			s := v.String()
			switch {
			case s == "":
				return ""
			case strings.Contains(s, "://"):
				u, err := url.Parse(s)
				if err != nil || u.Scheme != "https" || u.Host == "" {
					return "is not an https:// URL with a host"
				}
				return ""
			case !slices.Contains(LogoExtensions, strings.ToLower(filepath.Ext(s))):
				return "is not an image file (" + strings.Join(LogoExtensions, ", ") + ")"
			}
			if info, err := os.Stat(s); err != nil || !info.Mode().IsRegular() {
				return "is not an existing file"
			}
			return ""
		}}
	case "minlen":
		n, err := strconv.Atoi(arg)
		if err != nil {
			panic("config: " + field + ": bad check " + spec)
		}
		return rule{check: func(v reflect.Value) string {
			if l := len([]rune(v.String())); l > 0 && l < n {
				return fmt.Sprintf("is too short (%d characters)", l)
			}
			return ""
		}}
	case "gt", "ge", "le":
		if k := typ.Kind(); k != reflect.Float64 && k != reflect.Int && k != reflect.Int64 {
			panic("config: " + field + ": " + name + " on a non-number")
		}
		b, text := bound(), arg
		return rule{check: func(v reflect.Value) string {
			x := number(v)
			switch {
			case name == "gt" && !(x > b):
				return "must be above " + text
			case name == "ge" && !(x >= b):
				return "must be at least " + text
			case name == "le" && !(x <= b):
				return "must be at most " + text
			}
			return ""
		}}
	}
	panic("config: " + field + ": unknown check " + spec)
}
