package stages

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/viva-interviews/viva/internal/typo"
	"github.com/viva-interviews/viva/internal/words"
)

var utf8BOM = []byte("\xef\xbb\xbf")

// templateLine is one line of a block, with its line number.
type templateLine struct {
	n    int
	text string
}

// templateBlock is a "### " block being read.
type templateBlock struct {
	name  string // one of templateBlocks; "" discards the content
	line  int
	lines []templateLine
}

// templateQuestion is a question being read: its blocks by name.
type templateQuestion struct {
	line   int
	blocks map[string]*templateBlock
	// misspelt holds the blocks an unknown heading was taken for, whose
	// absence is then not reported twice.
	misspelt map[string]bool
}

// templateParser reads a role template line by line.
type templateParser struct {
	file string
	t    *Template
	errs []*FieldError

	inComment, inFence bool
	sawCategory        bool
	category           string // the current "## " heading
	categorySlug       string
	categoryCount      int // questions so far in the category
	slugs              map[string]int
	question           *templateQuestion
	orphan             bool // the question being read is skipped: its blocks are not checked
	block              *templateBlock
}

func (p *templateParser) fail(line int, format string, args ...any) {
	p.errs = append(p.errs, &FieldError{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// heading returns the level and text of a markdown ATX heading ("## x" is
// 2, "x"), or 0 when line is not one.
func heading(line string) (int, string) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return 0, "" // indented four spaces: code
	}
	level := 0
	for level < len(t) && t[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(t) && t[level] != ' ' && t[level] != '\t') {
		return 0, ""
	}
	text := strings.TrimSpace(t[level:])
	text = strings.TrimSpace(strings.TrimRight(text, "#")) // closing hashes
	return level, text
}

func (p *templateParser) line(n int, line string) {
	trimmed := strings.TrimSpace(line)
	if p.inComment {
		if strings.Contains(line, "-->") {
			p.inComment = false
		}
		return
	}
	if !p.inFence && strings.HasPrefix(trimmed, "<!--") {
		p.inComment = !strings.Contains(trimmed[len("<!--"):], "-->")
		return
	}
	if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
		p.inFence = !p.inFence
		p.content(n, line)
		return
	}
	level, text := 0, ""
	if !p.inFence {
		level, text = heading(line)
	}
	switch level {
	case 1:
		if p.t.Title != "" || p.sawCategory {
			p.fail(n, "a second \"# \" heading; the title comes once, at the top: use \"## %s\" for a category and \"### %s\" for a question", text, blockQuestion)
			return
		}
		if text == "" {
			p.fail(n, "the \"# \" title is empty; write the role the template is for, such as \"# Senior full-stack engineer\"")
			return
		}
		p.t.Title = text
	case 2:
		p.endQuestion()
		p.startCategory(n, text)
	case 3:
		p.blockHeading(n, text)
	default:
		p.content(n, line)
	}
}

// content adds a line to the block being read; text outside blocks (the
// introduction, a category's prose) is ignored.
func (p *templateParser) content(n int, line string) {
	if p.block != nil {
		p.block.lines = append(p.block.lines, templateLine{n, line})
	}
}

func (p *templateParser) startCategory(n int, text string) {
	p.sawCategory, p.orphan = true, false
	p.category, p.categorySlug, p.categoryCount = "", "", 0
	slug := slugify(text)
	if slug == "" {
		p.fail(n, "the \"## \" category heading is empty; name the category, such as \"## Frontend\"")
		return
	}
	if p.slugs == nil {
		p.slugs = map[string]int{}
	}
	if first, dup := p.slugs[slug]; dup {
		p.fail(n, "category %q repeats the category at line %d (both give ids %q); merge them or rename one", text, first, slug+"-1")
		return
	}
	p.slugs[slug] = n
	p.category, p.categorySlug = text, slug
}

// blockName returns the known block heading text names, or "".
func blockName(text string) string {
	norm := strings.ToLower(strings.Join(strings.Fields(strings.TrimSuffix(strings.TrimSpace(text), ":")), " "))
	for _, b := range templateBlocks {
		if strings.ToLower(b) == norm {
			return b
		}
	}
	return blockAliases[norm]
}

// closestBlock suggests the known block heading a misspelt one meant: a
// few edits away, else the one sharing its first word.
func closestBlock(text string) string {
	if s := typo.Closest(strings.ToLower(text), templateBlocks); s != "" {
		return s
	}
	first := strings.ToLower(strings.Fields(text + " x")[0])
	for _, b := range templateBlocks {
		if strings.ToLower(strings.Fields(b)[0]) == first {
			return b
		}
	}
	return ""
}

func quoteBlocks() string {
	q := make([]string, len(templateBlocks))
	for i, b := range templateBlocks {
		q[i] = fmt.Sprintf("\"### %s\"", b)
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

func (p *templateParser) blockHeading(n int, text string) {
	p.endBlock()
	name := blockName(text)
	if name == "" {
		msg := fmt.Sprintf("unknown block \"### %s\"", text)
		if s := closestBlock(text); s != "" {
			msg += fmt.Sprintf(" (did you mean \"### %s\"?)", s)
			if p.question != nil {
				p.question.misspelt[s] = true
			}
		}
		p.fail(n, "%s; a question's blocks are %s", msg, quoteBlocks())
		p.block = &templateBlock{line: n} // its text is not read
		return
	}
	if name == blockQuestion {
		p.endQuestion()
		p.orphan = p.category == ""
		if p.orphan {
			if !p.sawCategory {
				p.fail(n, "\"### %s\" comes before any \"## CATEGORY\" heading; put questions in a category section such as \"## Frontend\"", blockQuestion)
			}
			// A question of a broken category is skipped with it.
			p.block = &templateBlock{line: n}
			return
		}
		p.question = &templateQuestion{line: n, blocks: map[string]*templateBlock{}, misspelt: map[string]bool{}}
	} else if p.question == nil {
		if !p.orphan {
			p.fail(n, "\"%s\" must follow a \"### %s\" block; start the question with \"### %s\" and its text", name, blockQuestion, blockQuestion)
		}
		p.block = &templateBlock{line: n}
		return
	}
	if first, dup := p.question.blocks[name]; dup {
		p.fail(n, "\"### %s\" appears twice in the question of line %d (first at line %d); keep one, or start a new question with \"### %s\"",
			name, p.question.line, first.line, blockQuestion)
		p.block = &templateBlock{line: n}
		return
	}
	p.block = &templateBlock{name: name, line: n}
	p.question.blocks[name] = p.block
}

// endBlock finishes the block being read: an empty block is an error.
func (p *templateParser) endBlock() {
	b := p.block
	p.block = nil
	if b == nil || b.name == "" {
		return
	}
	if blockText(b) == "" {
		p.fail(b.line, "the \"### %s\" block is empty; %s", b.name, blockHint(b.name))
	}
}

func blockHint(name string) string {
	switch name {
	case blockQuestion:
		return "write the question as it should be spoken, in one sentence"
	case blockAssesses:
		return "list what the answer shows, as bullets or one comma-separated line"
	case blockExpected:
		return "say what a good answer covers, in general"
	}
	return "say when the question is not worth asking, or remove the block"
}

// blockText returns a block's text without its leading and trailing blank
// lines.
func blockText(b *templateBlock) string {
	lines := make([]string, len(b.lines))
	for i, l := range b.lines {
		lines[i] = strings.TrimRightFunc(l.text, unicode.IsSpace)
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// endQuestion finishes the question being read and adds it to the
// template when it has every required block.
func (p *templateParser) endQuestion() {
	p.endBlock()
	q := p.question
	p.question = nil
	if q == nil {
		return
	}
	ok := true
	for _, name := range requiredBlocks {
		if q.blocks[name] == nil {
			ok = false
			if q.misspelt[name] {
				continue
			}
			p.fail(q.line, "the question of line %d has no \"### %s\" block; add one: %s", q.line, name, blockHint(name))
		} else if blockText(q.blocks[name]) == "" {
			ok = false // reported by endBlock
		}
	}
	var skipIf string
	if b := q.blocks[blockSkipIf]; b != nil {
		skipIf = blockText(b)
		if !p.checkSkipIf(b) {
			ok = false
		}
	}
	if !ok {
		return
	}
	p.categoryCount++
	assesses := assessesList(q.blocks[blockAssesses])
	p.t.Questions = append(p.t.Questions, Question{
		ID:       fmt.Sprintf("%s-%d", p.categorySlug, p.categoryCount),
		Text:     strings.Join(strings.Fields(blockText(q.blocks[blockQuestion])), " "),
		Purpose:  "Assesses " + strings.Join(assesses, ", ") + ".",
		Keywords: contentWords(assesses),
		Expected: unwrap(blockText(q.blocks[blockExpected])),
		SkipIf:   skipIf,
		Context: QuestionContext{
			Kind:    KindTemplate,
			Targets: Targets{Category: p.category, Assesses: assesses},
		},
	})
}

// unwrap joins the soft-wrapped lines of markdown text: lines of a
// paragraph become one line, paragraphs are separated by a blank line,
// and bullets and fenced code keep their own lines.
func unwrap(text string) string {
	var b strings.Builder
	blank, fence := false, false
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		isFence := strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")
		if fence || isFence {
			// Fenced text keeps its lines.
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(l)
			fence = fence != isFence
			blank = false
			continue
		}
		switch {
		case t == "":
			blank = true
			continue
		case b.Len() == 0:
		case blank:
			b.WriteString("\n\n")
		case bulletPattern.MatchString(l):
			b.WriteString("\n")
		default:
			b.WriteString(" ")
		}
		blank = false
		b.WriteString(t)
	}
	return b.String()
}

var bulletPattern = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+`)

// assessesList reads a "What this assesses" block: one item per bullet
// (continuation lines join their bullet), or, without bullets, the text
// split at commas and semicolons.
func assessesList(b *templateBlock) []string {
	var items []string
	bullets := false
	for _, l := range b.lines {
		if bulletPattern.MatchString(l.text) {
			bullets = true
			break
		}
	}
	if bullets {
		for _, l := range b.lines {
			t := strings.TrimSpace(l.text)
			switch {
			case t == "":
			case bulletPattern.MatchString(l.text):
				items = append(items, bulletPattern.ReplaceAllString(l.text, ""))
			case len(items) > 0:
				items[len(items)-1] += " " + t
			default:
				items = append(items, t)
			}
		}
	} else {
		items = strings.FieldsFunc(blockText(b), func(r rune) bool { return r == ',' || r == ';' })
	}
	out := items[:0]
	for _, it := range items {
		it = strings.TrimRight(strings.Join(strings.Fields(it), " "), ".")
		if it != "" {
			out = append(out, it)
		}
	}
	return out
}

// contentWords returns the lower-case words of phrases that carry
// meaning, once each, in order: "API design and error handling" gives
// api, design, error, handling.
func contentWords(phrases []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range phrases {
		for _, w := range strings.FieldsFunc(strings.ToLower(p), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '+' && r != '#' && r != '-' && r != '.'
		}) {
			w = strings.Trim(w, "-.")
			if len([]rune(w)) < 2 || words.IsStop(w) || seen[w] {
				continue
			}
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// slugify makes an id from a category heading: lower-case letters and
// digits, other runs of characters become one '-'.
func slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		} else {
			dash = true
		}
	}
	return b.String()
}
