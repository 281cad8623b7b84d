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

// ruleSpec is a parsed check: the field it is on, the rule's name and its
// argument (the text after "=").
type ruleSpec struct {
	field string
	typ   reflect.Type
	name  string
	arg   string
}

// bad panics over a check tag that cannot mean anything: a programming
// error in Config's tags, found when the package loads.
func (p ruleSpec) bad(why string) {
	panic("config: " + p.field + ": " + why + " " + p.name + "=" + p.arg)
}

// stringRule is a rule on a string value.
func stringRule(check func(s string) string) rule {
	return rule{check: func(v reflect.Value) string { return check(v.String()) }}
}

// rules are the checks a check tag may name, each compiled from its spec.
var rules = map[string]func(ruleSpec) rule{
	"nonempty":  func(ruleSpec) rule { return stringRule(checkNonEmpty) },
	"name":      func(ruleSpec) rule { return stringRule(checkName) },
	"hostport":  func(ruleSpec) rule { return stringRule(checkHostPort) },
	"listen":    func(ruleSpec) rule { return stringRule(checkListen) },
	"secretkey": func(ruleSpec) rule { return stringRule(checkSecretKey) },
	"file":      func(ruleSpec) rule { return stringRule(checkFile) },
	"logo":      func(ruleSpec) rule { return stringRule(checkLogo) },
	"oneof":     oneOfRule,
	"url":       urlRule,
	"urls":      urlsRule,
	"minlen":    minLenRule,
	"gt":        boundRule,
	"ge":        boundRule,
	"le":        boundRule,
}

// newRule compiles one check: nonempty, name, hostport, listen (a hostport
// or empty or Off), oneof=a|b, url=scheme|scheme, urls=scheme|scheme (a
// comma-separated list), secretkey, file, logo, minlen=N, and gt=, ge=,
// le= with a number or a duration (matching the field's type).
func newRule(field string, typ reflect.Type, spec string) rule {
	name, arg, _ := strings.Cut(spec, "=")
	make, ok := rules[name]
	if !ok {
		panic("config: " + field + ": unknown check " + spec)
	}
	return make(ruleSpec{field: field, typ: typ, name: name, arg: arg})
}

func checkNonEmpty(s string) string {
	if strings.TrimSpace(s) == "" {
		return "is empty"
	}
	return ""
}

func checkName(s string) string {
	if !nameRE.MatchString(s) {
		return "is not a name of up to 64 letters, digits, '.', '-' and '_'"
	}
	return ""
}

func checkHostPort(s string) string {
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return "is not a host:port address"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "has no valid port (0 to 65535)"
	}
	return ""
}

// checkListen accepts a host:port, or nothing (empty or Off).
func checkListen(s string) string {
	if ListenAddr(s) == "" {
		return ""
	}
	return checkHostPort(s)
}

func checkSecretKey(s string) string {
	if _, err := DecodeSecretsKey(s); err != nil {
		return err.Error()
	}
	return ""
}

// checkFile accepts an existing regular file, or nothing.
func checkFile(s string) string {
	if s == "" {
		return ""
	}
	if info, err := os.Stat(s); err != nil || !info.Mode().IsRegular() {
		return "is not an existing file"
	}
	return ""
}

// checkLogo accepts an https:// URL or an existing image file, or nothing.
func checkLogo(s string) string {
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
	return checkFile(s)
}

func oneOfRule(p ruleSpec) rule {
	allowed := strings.Split(p.arg, "|")
	r := stringRule(func(s string) string {
		for _, a := range allowed {
			if s == a || (s == "" && a == auto) {
				return ""
			}
		}
		return "is not one of " + strings.Join(allowed, ", ")
	})
	r.enum = true
	return r
}

// urlProblem says what is wrong with one URL, or "": notFull when it
// lacks a scheme or a host, badScheme followed by the scheme when its
// scheme is not one of schemes.
func urlProblem(s string, schemes []string, notFull, badScheme string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Scheme == "" || u.Host == "":
		return notFull
	case !slices.Contains(schemes, u.Scheme):
		return badScheme + strconv.Quote(u.Scheme)
	}
	return ""
}

func urlRule(p ruleSpec) rule {
	schemes := strings.Split(p.arg, "|")
	r := stringRule(func(s string) string {
		if s == "" {
			return ""
		}
		return urlProblem(s, schemes, "is not a full URL with a scheme and a host", "has the scheme ")
	})
	r.url = true
	return r
}

func urlsRule(p ruleSpec) rule {
	schemes := strings.Split(p.arg, "|")
	r := stringRule(func(s string) string {
		for _, item := range splitList(s) {
			if what := urlProblem(item, schemes, "holds an item that is not a full URL with a scheme and a host",
				"holds a URL with the scheme "); what != "" {
				return what
			}
		}
		return ""
	})
	r.url, r.list = true, true
	return r
}

func minLenRule(p ruleSpec) rule {
	n, err := strconv.Atoi(p.arg)
	if err != nil {
		p.bad("bad check")
	}
	return stringRule(func(s string) string {
		if l := len([]rune(s)); l > 0 && l < n {
			return fmt.Sprintf("is too short (%d characters)", l)
		}
		return ""
	})
}

// boundRule compiles gt=, ge= and le= on a number or a duration.
func boundRule(p ruleSpec) rule {
	if k := p.typ.Kind(); k != reflect.Float64 && k != reflect.Int && k != reflect.Int64 {
		p.bad("a bound on a non-number:")
	}
	var b float64
	if p.typ == durationType {
		d, err := time.ParseDuration(p.arg)
		if err != nil {
			p.bad("bad bound")
		}
		b = float64(d)
	} else {
		f, err := strconv.ParseFloat(p.arg, 64)
		if err != nil {
			p.bad("bad bound")
		}
		b = f
	}
	return rule{check: func(v reflect.Value) string {
		var x float64
		if v.Kind() == reflect.Float64 {
			x = v.Float()
		} else {
			x = float64(v.Int())
		}
		switch {
		case p.name == "gt" && !(x > b):
			return "must be above " + p.arg
		case p.name == "ge" && !(x >= b):
			return "must be at least " + p.arg
		case p.name == "le" && !(x <= b):
			return "must be at most " + p.arg
		}
		return ""
	}}
}
