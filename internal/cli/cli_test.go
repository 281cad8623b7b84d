package cli

import (
	"errors"
	"flag"
	"strings"
	"testing"
)

// TestFlagMistakes: each mistake the flag package finds reads as one
// line in the --flag spelling, with the command's help named; Exit turns
// errors into exit codes.
func TestFlagMistakes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--nam"}, "usage: unknown flag --nam: run `viva x -h` for its flags"},
		{[]string{"-n"}, "usage: flag --n needs a value: run `viva x -h` for its flags"},
		{[]string{"--n", "many"}, `usage: invalid value "many" for flag --n: parse error: run ` + "`viva x -h`"},
	} {
		fs := NewFlagSet("viva x")
		fs.Int("n", 1, "a number")
		err := fs.Parse(tc.args)
		got := FlagError("viva x", err)
		if !strings.HasPrefix(got.Error(), tc.want) || !errors.Is(got, ErrUsage) || strings.Contains(got.Error(), "\n") {
			t.Errorf("%v: %q, want %q…", tc.args, got, tc.want)
		}
	}
	var out strings.Builder
	for _, tc := range []struct {
		err  error
		code int
	}{{nil, 0}, {flag.ErrHelp, 0}, {UsageError("bad"), 2}, {errors.New("broke"), 1}, {ExitCode(3), 3}} {
		if got := Exit(&out, "viva x", tc.err); got != tc.code {
			t.Errorf("Exit(%v) = %d, want %d", tc.err, got, tc.code)
		}
	}
	if out.String() != "viva x: usage: bad\nviva x: broke\n" {
		t.Errorf("Exit printed %q", out.String())
	}
}
