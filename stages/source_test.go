package stages

import (
	"reflect"
	"testing"
)

// Every built-in design's source parses back to the design viva runs, so
// a copy starts from it.
func TestBuiltinSourcesParseBack(t *testing.T) {
	for _, name := range BuiltinNames() {
		src, err := BuiltinSource(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(src, name+".yaml")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, _ := Builtin(name)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the source parses to another blueprint", name)
		}
	}
	for _, name := range TemplateNames() {
		src, err := BuiltinTemplateSource(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseTemplate(src, name+".md")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, _ := BuiltinTemplate(name)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the source parses to another template", name)
		}
	}
	if _, err := BuiltinSource("../x"); err == nil {
		t.Error("BuiltinSource read an unknown name")
	}
	if _, err := BuiltinTemplateSource("nope"); err == nil {
		t.Error("BuiltinTemplateSource read an unknown name")
	}
}
