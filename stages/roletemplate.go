package stages

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// The blocks of a role template question, by their "### " heading.
const (
	blockQuestion = "Question"
	blockAssesses = "What this assesses"
	blockExpected = "Expected answer (in general)"
	blockSkipIf   = "Skip if"
)

// templateBlocks lists the block headings of a question in the order they
// are written; blockAliases maps other accepted spellings (lower case) to
// them.
var (
	templateBlocks = []string{blockQuestion, blockAssesses, blockExpected, blockSkipIf}
	blockAliases   = map[string]string{"expected answer": blockExpected}
)

// requiredBlocks are the blocks every template question must have.
var requiredBlocks = []string{blockQuestion, blockAssesses, blockExpected}

// ParseTemplate reads a role template written in markdown. filename is
// used in error messages and, base name without extension, as the
// template's Name.
//
// The format (stages/templates/fullstack-senior.md is a full example):
//
//	# Senior full-stack engineer          <- the title
//	Optional prose, ignored.
//	## Frontend                           <- a category
//	### Question
//	How do you keep a large single-page app fast as it grows?
//	### What this assesses
//	- rendering performance
//	- bundle size                         <- bullets, or one comma-separated line
//	### Expected answer (in general)
//	Measures first, splits the bundle, …
//	### Skip if                           <- optional
//	They already described a performance investigation.
//	- covered: proud_project              <- machine-readable, see SkipConditions
//
// A category holds one or more questions; Question, What this assesses
// and Expected answer are required. Questions get the ids
// "<category-slug>-<n>" ("frontend-1"), n counting within the category,
// and a Context of KindTemplate whose Targets name the category and what
// the question assesses. Keywords are the content words of the assesses
// list. HTML comments and fenced code are not read as structure, so a
// file may document itself in a leading <!-- comment -->.
//
// Every problem is a *FieldError naming the file and line and saying what
// to do; several are joined with errors.Join.
func ParseTemplate(data []byte, filename string) (*Template, error) {
	p := &templateParser{file: filename, t: &Template{}}
	base := filepath.Base(filename)
	p.t.Name = strings.TrimSuffix(base, filepath.Ext(base))
	data = bytes.TrimPrefix(data, utf8BOM)
	for i, line := range strings.Split(string(data), "\n") {
		p.line(i+1, strings.TrimRight(line, "\r"))
	}
	p.endQuestion()
	if len(p.t.Questions) == 0 && len(p.errs) == 0 {
		p.fail(1, "the template has no questions; add a \"## CATEGORY\" section with \"### %s\", \"### %s\" and \"### %s\" blocks",
			blockQuestion, blockAssesses, blockExpected)
	}
	if len(p.errs) > 0 {
		slices.SortStableFunc(p.errs, func(a, b *FieldError) int { return a.Line - b.Line })
		return nil, joinFieldErrors(p.errs)
	}
	if p.t.Title == "" {
		p.t.Title = titleFromName(p.t.Name)
	}
	return p.t, nil
}

// Categories returns the template's categories in document order.
func (t *Template) Categories() []string {
	var out []string
	for _, q := range t.Questions {
		if c := q.Context.Targets.Category; !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// Clone returns a copy of t that shares no memory with it.
func (t *Template) Clone() *Template {
	if t == nil {
		return nil
	}
	c := *t
	c.Questions = make([]Question, len(t.Questions))
	for i, q := range t.Questions {
		c.Questions[i] = q.Clone()
	}
	return &c
}

//go:embed templates/*.md
var templateFiles embed.FS

// templateExt is the file extension of role templates.
const templateExt = ".md"

// TemplateNames returns the names of the role templates shipped with
// viva, sorted.
func TemplateNames() []string {
	entries, _ := fs.ReadDir(templateFiles, "templates")
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), templateExt) {
			names = append(names, strings.TrimSuffix(e.Name(), templateExt))
		}
	}
	sort.Strings(names)
	return names
}

// BuiltinTemplate returns a fresh copy of the shipped role template
// called name (case and surrounding spaces ignored). An unknown name is an
// error listing the known ones.
func BuiltinTemplate(name string) (*Template, error) {
	data, err := BuiltinTemplateSource(name)
	if err != nil {
		return nil, err
	}
	return ParseTemplate(data, strings.ToLower(strings.TrimSpace(name))+templateExt)
}

// LoadTemplate reads and parses the role template file at path (see
// ParseTemplate).
func LoadTemplate(path string) (*Template, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("stages: read role template: %w", err)
	}
	return ParseTemplate(data, path)
}

// FindTemplate returns the shipped role template called nameOrPath, or
// else loads the markdown file at that path: for an operator's own flags,
// never for names from requests. Neither is an error listing the shipped
// names.
func FindTemplate(nameOrPath string) (*Template, error) {
	if slices.Contains(TemplateNames(), strings.ToLower(strings.TrimSpace(nameOrPath))) {
		return BuiltinTemplate(nameOrPath)
	}
	if st, err := os.Stat(nameOrPath); err != nil || st.IsDir() || !strings.EqualFold(filepath.Ext(nameOrPath), templateExt) {
		return nil, fmt.Errorf("stages: %q is neither a built-in role template (%s) nor a readable %s file", nameOrPath, strings.Join(TemplateNames(), ", "), templateExt)
	}
	return LoadTemplate(nameOrPath)
}
