package config

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/viva-interviews/viva/internal/typo"
)

// maxFileSize bounds the settings file; a larger one is surely not it.
const maxFileSize = 1 << 20

// yamlValue is one setting's text in the file and the line of its key.
type yamlValue struct {
	value string
	line  int
}

var yamlLineError = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// readFile reads the settings file at path: a YAML mapping of setting keys
// to single values. label names how the path was given (--config="x"), for
// errors about the file as a whole. Unknown keys, repeated keys and values
// that are lists or maps are errors with the file and line; a key with no
// value counts as unset.
func readFile(path, label string) (map[string]yamlValue, []error) {
	info, err := os.Stat(path)
	if err == nil && info.Size() > maxFileSize {
		return nil, []error{fmt.Errorf("%s: the file is larger than %d bytes: point it at a YAML file of settings", label, maxFileSize)}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, []error{fmt.Errorf("%s: %w: check the path, or leave it out to use only flags and the environment", label, err)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		if m := yamlLineError.FindStringSubmatch(err.Error()); m != nil {
			return nil, []error{fmt.Errorf("%s:%s: %s: fix the YAML around this line (settings are \"key: value\" lines)", path, m[1], m[2])}
		}
		return nil, []error{fmt.Errorf("%s: %s: fix the YAML (settings are \"key: value\" lines)", path, strings.TrimPrefix(err.Error(), "yaml: "))}
	}
	out := map[string]yamlValue{}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return out, nil // empty file
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return out, nil // only comments
	}
	if root.Kind != yaml.MappingNode {
		return nil, []error{fmt.Errorf("%s:%d: expected settings as \"key: value\" lines, such as time_scale: 0.5", path, root.Line)}
	}
	var errs []error
	seen := map[string]int{} // key → line, null values included
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		key := k.Value
		s := find(key)
		if s == nil {
			errs = append(errs, fmt.Errorf("%s:%d: unknown setting %q: %s", path, k.Line, key, suggest(key)))
			continue
		}
		if first, ok := seen[key]; ok {
			errs = append(errs, fmt.Errorf("%s:%d: %s is set twice (first on line %d): keep one", path, k.Line, key, first))
			continue
		}
		seen[key] = k.Line
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		if v.Kind != yaml.ScalarNode {
			errs = append(errs, fmt.Errorf("%s:%d: %s must be a single value, not a list or a map: use %s", path, k.Line, key, s.accept()))
			continue
		}
		if v.Tag == "!!null" {
			continue // "key:" with no value leaves the setting unset
		}
		out[key] = yamlValue{value: v.Value, line: k.Line}
	}
	return out, errs
}

// find returns the setting with YAML key key, or nil.
func find(key string) *setting {
	for _, s := range settings {
		if s.Key == key {
			return s
		}
	}
	return nil
}

// suggest tells the user what they may have meant by an unknown key: the
// setting whose env or flag name it is, or one a typo away, or the list.
func suggest(key string) string {
	norm := strings.ToLower(strings.NewReplacer("-", "_", ".", "_").Replace(key))
	for _, s := range settings {
		if strings.EqualFold(key, s.Env) || norm == s.Key || norm == "viva_"+s.Key {
			return "did you mean " + s.Key + "?"
		}
	}
	keys := make([]string, len(settings))
	for i, s := range settings {
		keys[i] = s.Key
	}
	if best := typo.Closest(norm, keys); best != "" {
		return "did you mean " + best + "?"
	}
	return "known settings are " + strings.Join(keys, ", ")
}
