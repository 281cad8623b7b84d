package stages

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// BuiltinSource returns the text of the built-in blueprint called name:
// the shipped YAML file (with its comments), or for the blueprint written
// in Go (DefaultName) its YAML form. Parse reads it back to the same
// blueprint, so a copy starts from exactly what viva runs.
func BuiltinSource(name string) ([]byte, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if !IsBuiltin(n) {
		return nil, fmt.Errorf("stages: no built-in blueprint %q; use one of %s", name, strings.Join(BuiltinNames(), ", "))
	}
	if data, err := blueprintFiles.ReadFile("blueprints/" + n + ".yaml"); err == nil {
		return data, nil
	}
	b, err := Builtin(n)
	if err != nil {
		return nil, err
	}
	out, err := yaml.Marshal(b)
	if err != nil {
		return nil, fmt.Errorf("stages: built-in blueprint %q as YAML: %w", n, err)
	}
	return out, nil
}

// BuiltinTemplateSource returns the markdown of the shipped role template
// called name.
func BuiltinTemplateSource(name string) ([]byte, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if !slices.Contains(TemplateNames(), n) {
		return nil, fmt.Errorf("stages: no built-in role template %q; use one of %s", name, strings.Join(TemplateNames(), ", "))
	}
	data, err := templateFiles.ReadFile("templates/" + n + templateExt)
	if err != nil {
		return nil, fmt.Errorf("stages: built-in role template %q: %w", n, err)
	}
	return data, nil
}
