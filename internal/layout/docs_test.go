package layout

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// packageMap is the page whose table lists every package of the module,
// relative to the module's root, and mapHeading the section holding it.
const (
	packageMap = "docs/architecture.md"
	mapHeading = "## The package map"
)

// moduleRoot is the module's directory as seen from this package's tests.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module's root should be two directories up from internal/layout: %v", err)
	}
	return root
}

// mapRow is one package named in the package map, with its line.
type mapRow struct {
	path string // relative to the module, e.g. "agent/voice"
	line int
}

// rowPath matches a table row whose first cell is one quoted path.
var rowPath = regexp.MustCompile("^\\|\\s*`([^`]+)`\\s*\\|")

// readPackageMap returns the packages named in the first cell of each row
// of the table under mapHeading. A first cell naming more than one package
// is an error: the map has one row per package.
func readPackageMap(text string) ([]mapRow, error) {
	var rows []mapRow
	in := false
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			in = line == mapHeading
			continue
		}
		if !in || !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") || strings.HasPrefix(line, "| path") {
			continue
		}
		first := strings.SplitN(line, "|", 3)[1]
		m := rowPath.FindStringSubmatch(line)
		if m == nil || strings.Count(first, "`") != 2 {
			return nil, fmt.Errorf("%s:%d: the first cell should name one package as `path`, got %q", packageMap, n, strings.TrimSpace(first))
		}
		rows = append(rows, mapRow{path: m[1], line: n})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no table under %q", packageMap, mapHeading)
	}
	return rows, nil
}

// compareMap returns what is wrong between the packages of the module and
// the rows of the map: packages without a row, rows without a package, and
// packages with more than one row, each with what to do.
func compareMap(packages []string, rows []mapRow) []string {
	var problems []string
	listed := map[string]int{}
	for _, r := range rows {
		if first, ok := listed[r.path]; ok {
			problems = append(problems, fmt.Sprintf("%s:%d lists `%s` again (first at line %d): keep one row per package",
				packageMap, r.line, r.path, first))
			continue
		}
		listed[r.path] = r.line
		if !slices.Contains(packages, r.path) {
			problems = append(problems, fmt.Sprintf("%s:%d lists `%s`, which is not a package of the module: remove the row, or correct its path if the package moved",
				packageMap, r.line, r.path))
		}
	}
	for _, p := range packages {
		if _, ok := listed[p]; !ok {
			problems = append(problems, fmt.Sprintf("package `%s` has no row in %s: add \"| `%s` | what it owns |\" to the table under %q, below the packages that import it and above those it imports",
				p, packageMap, p, mapHeading))
		}
	}
	return problems
}

// modulePackages lists the module's packages, relative to its path.
func modulePackages(t *testing.T) []string {
	t.Helper()
	stdout := goList(t, "-f", "{{.ImportPath}}", module+"/...")
	var out []string
	for _, p := range strings.Fields(stdout.String()) {
		if rel, ok := strings.CutPrefix(p, module+"/"); ok {
			out = append(out, rel)
		} else if p == module {
			out = append(out, ".")
		}
	}
	return out
}

// TestPackageMapListsEveryPackage keeps docs/architecture.md's package map
// true: one row for each package of the module, and no row for a package
// that is gone.
func TestPackageMapListsEveryPackage(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(moduleRoot(t), packageMap))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := readPackageMap(string(text))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range compareMap(modulePackages(t), rows) {
		t.Error(p)
	}
}

// TestCompareMap shows the map check fails for a package without a row, a
// row without a package and a package listed twice.
func TestCompareMap(t *testing.T) {
	page := "# Architecture\n\n" + mapHeading + "\n\n| path | what it owns |\n|---|---|\n" +
		"| `agent` | the loop |\n| `conductor` | gone |\n| `fsm` | the machine |\n| `agent` | again |\n\n## Rules\n\n| `stages` | not in the map |\n"
	rows, err := readPackageMap(page)
	if err != nil {
		t.Fatal(err)
	}
	got := compareMap([]string{"agent", "fsm", "reports"}, rows)
	want := []string{
		packageMap + ":8 lists `conductor`, which is not a package",
		packageMap + ":10 lists `agent` again (first at line 7)",
		"package `reports` has no row in " + packageMap,
	}
	if len(got) != len(want) {
		t.Fatalf("problems = %q, want %d of them", got, len(want))
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.Contains(g, w) }) {
			t.Errorf("problems = %q, want one containing %q", got, w)
		}
	}
	if got := compareMap([]string{"agent", "fsm"}, []mapRow{{"agent", 1}, {"fsm", 2}}); len(got) != 0 {
		t.Errorf("a true map reported %q", got)
	}
	if _, err := readPackageMap(mapHeading + "\n| `agent`, `fsm` | two in one row |\n"); err == nil {
		t.Errorf("a row naming two packages was accepted")
	}
	if _, err := readPackageMap("# Architecture\n"); err == nil {
		t.Errorf("a page without the map was accepted")
	}
}

var (
	fence    = regexp.MustCompile("(?m)^```[^\n]*\n(?s:.*?)^```[ \t]*$")
	codeSpan = regexp.MustCompile("`[^`\n]*`")
	link     = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)
	heading  = regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+?)[ \t#]*$`)
)

// stripCode blanks fenced blocks and code spans, whose brackets and hashes
// are text, not links or headings, keeping the line count.
func stripCode(text string) string {
	text = fence.ReplaceAllStringFunc(text, func(s string) string { return strings.Repeat("\n", strings.Count(s, "\n")) })
	return codeSpan.ReplaceAllString(text, "``")
}

// slug is the anchor GitHub gives a heading: lower case, punctuation
// dropped, spaces as hyphens.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of a markdown page's headings, a repeated
// one numbered as GitHub numbers it.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, m := range heading.FindAllStringSubmatch(stripCode(text), -1) {
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// brokenLinks checks the relative links of the markdown file at path (inside
// root): each must name a file or directory that exists and, when it names
// a heading, a heading of that page. Web addresses are not followed.
func brokenLinks(root, path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text := stripCode(string(raw))
	rel, _ := filepath.Rel(root, path)
	var out []string
	for _, m := range link.FindAllStringSubmatchIndex(text, -1) {
		target := text[m[2]:m[3]]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		line := 1 + strings.Count(text[:m[0]], "\n")
		file, anchor, _ := strings.Cut(target, "#")
		dest := path
		if file != "" {
			dest = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
		}
		if _, err := os.Stat(dest); err != nil {
			out = append(out, fmt.Sprintf("%s:%d: %s: no such file", rel, line, target))
			continue
		}
		if anchor == "" || !strings.HasSuffix(dest, ".md") {
			continue
		}
		page, err := os.ReadFile(dest)
		if err != nil {
			return nil, err
		}
		if !anchors(string(page))[anchor] {
			out = append(out, fmt.Sprintf("%s:%d: %s: no heading with the anchor #%s in %s", rel, line, target, anchor, file))
		}
	}
	return out, nil
}

// docPages are the markdown pages whose links are checked.
func docPages(t *testing.T, root string) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(root, "README.md")}, pages...)
}

// TestDocsLinks checks that every relative link and image in README.md and
// docs/*.md reaches a file that exists, and a heading that exists in it.
func TestDocsLinks(t *testing.T) {
	root := moduleRoot(t)
	for _, page := range docPages(t, root) {
		broken, err := brokenLinks(root, page)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range broken {
			t.Errorf("broken link: %s", b)
		}
	}
}

// TestBrokenLinks shows the link check catches a missing file, a missing
// heading and a missing image, and ignores code and web addresses.
func TestBrokenLinks(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/ops.md", "# Operations\n\n## Run it against LiveKit Cloud\n\n## Reports, decisions and webhooks\n\n## Notes\n\n## Notes\n\n```md\n# Not a heading\n```\n")
	write("docs/room.png", "png")
	write("README.md", "# viva\n\n"+
		"[ok](docs/ops.md#run-it-against-livekit-cloud) [ok](docs/ops.md#reports-decisions-and-webhooks)\n"+
		"[ok](docs/ops.md#notes-1) ![ok](docs/room.png) [ok](#viva) [web](https://livekit.io/#x)\n"+
		"[gone](docs/gone.md) [no heading](docs/ops.md#not-a-heading)\n"+
		"![gone](docs/join.png) [no heading here](#nowhere)\n"+
		"`[in code](docs/code.md)`\n```\n[in a block](docs/block.md)\n```\n")
	got, err := brokenLinks(root, filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"README.md:5: docs/gone.md: no such file",
		"README.md:5: docs/ops.md#not-a-heading: no heading with the anchor #not-a-heading in docs/ops.md",
		"README.md:6: docs/join.png: no such file",
		"README.md:6: #nowhere: no heading with the anchor #nowhere in ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("broken links =\n%q\nwant\n%q", got, want)
	}
	if got, want := slug("Reports, decisions and webhooks"), "reports-decisions-and-webhooks"; got != want {
		t.Errorf("slug = %q, want %q", got, want)
	}
	if got, want := slug("Turn-taking"), "turn-taking"; got != want {
		t.Errorf("slug = %q, want %q", got, want)
	}
}
