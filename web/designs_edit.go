package web

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// designEditPage is the data of design_edit.html: the editor, with what
// is wrong with the text (by line) or its preview once it reads.
type designEditPage struct {
	view
	Kind    interviews.DesignKind
	Name    string
	Content string
	// Fixed is true when editing a design already in the library: its
	// name and kind stay.
	Fixed bool
	// Problems are what stops the text from being saved, by line.
	Problems []designProblem
	// Preview is the design as it reads, after a check that found no
	// problem.
	Preview *interviews.Preview
	Kinds   []interviews.DesignKind
}

// designProblem is one problem of a design's text.
type designProblem struct {
	// Line is the line of the text it is on; 0 when it is about the
	// whole design.
	Line int
	// Text says what is wrong and what to do.
	Text string
}

// designProblems splits a design's check error into its problems.
func designProblems(err error) []designProblem {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	out := make([]designProblem, 0, len(errs))
	for _, e := range errs {
		if fe, ok := errors.AsType[*stages.FieldError](e); ok {
			text := fe.Msg
			if fe.Field != "" {
				text = fe.Field + ": " + text
			}
			out = append(out, designProblem{Line: fe.Line, Text: text})
			continue
		}
		out = append(out, designProblem{Text: strings.TrimPrefix(e.Error(), "interviews: ")})
	}
	return out
}

func (s *designPages) editPage(kind interviews.DesignKind, name, content string, fixed bool) designEditPage {
	title := "New design"
	if fixed {
		title = "Edit " + string(kind) + " " + name
	}
	return designEditPage{view: view{Title: title, SignedIn: true}, Kind: kind, Name: name, Content: content, Fixed: fixed, Kinds: interviews.DesignKinds}
}

// handleNew serves the editor for a new design, empty or a copy of the
// design named by ?from= (built-in ones too).
func (s *designPages) handleNew(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	kind := interviews.DesignKind(q.Get("kind"))
	if !kind.Valid() {
		kind = interviews.KindBlueprint
	}
	page := s.editPage(kind, "", "", false)
	if from := q.Get("from"); from != "" {
		d, err := s.library().Design(r.Context(), kind, from, "")
		if err != nil {
			s.renderMessage(w, r, http.StatusNotFound, "No such design", "The library has no such design to copy. Go back to the list of designs and choose one.")
			return
		}
		page.Content, page.Name = d.Content, d.Name+"-copy"
		if kind == interviews.KindBlueprint {
			page.Content = renameBlueprint(d.Content, d.Name, page.Name)
		}
	}
	s.render(w, r, http.StatusOK, "design_edit.html", page)
}

// renameBlueprint changes a blueprint text's own name line from old to
// name, so a copy saves under its new name.
func renameBlueprint(content, old, name string) string {
	lines := strings.SplitAfter(content, "\n")
	for i, l := range lines {
		if strings.TrimSpace(strings.TrimSuffix(l, "\n")) == "name: "+old {
			lines[i] = "name: " + name + "\n"
			return strings.Join(lines, "")
		}
	}
	return content
}

// handleEdit serves the editor for a new version of a design in the
// library.
func (s *designPages) handleEdit(w http.ResponseWriter, r *http.Request) {
	d := s.lookup(w, r)
	if d == nil {
		return
	}
	if d.Builtin() {
		http.Redirect(w, r, designsPath+"/new?kind="+string(d.Kind)+"&from="+d.Name, http.StatusSeeOther)
		return
	}
	s.render(w, r, http.StatusOK, "design_edit.html", s.editPage(d.Kind, d.Name, d.Content, true))
}

// readDesignForm reads the editor's form: kind, name, the text typed or
// an uploaded file (which wins), and what to do (check or save).
func readDesignForm(w http.ResponseWriter, r *http.Request) (d interviews.Design, fixed, save bool, err error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxDesignBody)
	if err := r.ParseMultipartForm(maxDesignBody); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		return d, false, false, err
	}
	d = interviews.Design{Kind: interviews.DesignKind(r.PostFormValue("kind")), Name: strings.TrimSpace(r.PostFormValue("name")),
		Content: normalizeNewlines(r.PostFormValue("content"))}
	if f, hdr, ferr := r.FormFile("file"); ferr == nil {
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, interviews.MaxDesignBytes+1))
		if err != nil {
			return d, false, false, err
		}
		if len(data) > 0 {
			d.Content = normalizeNewlines(string(data))
			if k := interviews.KindOfFile(hdr.Filename); k != "" {
				d.Kind = k
			}
		}
	}
	return d, r.PostFormValue("fixed") == "1", r.PostFormValue("action") == "save", nil
}

// handleSubmit checks a design's text and, asked to save, adds it to the
// library as a new version; nothing is saved while it has problems.
func (s *designPages) handleSubmit(w http.ResponseWriter, r *http.Request) {
	d, fixed, save, err := readDesignForm(w, r)
	if err != nil {
		s.renderMessage(w, r, http.StatusRequestEntityTooLarge, "Design too large", "A design may be at most 256 KB. Shorten it and try again.")
		return
	}
	page := s.editPage(d.Kind, d.Name, d.Content, fixed)
	if err := d.Check(); err != nil {
		page.Problems = designProblems(err)
		s.render(w, r, http.StatusUnprocessableEntity, "design_edit.html", page)
		return
	}
	if !save {
		pv, err := interviews.PreviewDesign(&d)
		if err != nil {
			page.Problems = designProblems(err)
			s.render(w, r, http.StatusUnprocessableEntity, "design_edit.html", page)
			return
		}
		page.Preview = &pv
		s.render(w, r, http.StatusOK, "design_edit.html", page)
		return
	}
	by, _ := principalOf(r.Context())
	d.AddedBy = by.Email
	if err := s.store.AddDesign(r.Context(), &d); err != nil {
		s.log.Error("web: adding a design", "err", err)
		s.serverError(w, r)
		return
	}
	s.log.Info("web: design added", "kind", d.Kind, "name", d.Name, "version", d.Version, "by", d.AddedBy)
	http.Redirect(w, r, designPath(d.Kind, d.Name, ""), http.StatusSeeOther)
}
