package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// designPages are the admins' pages of the design library: the list of
// blueprints and role templates, one design with its preview and
// versions, the editor that checks a design (errors with their lines, a
// preview) before anything is saved, and a trial interview of a design in
// the browser before any candidate meets it.
type designPages struct {
	records
	interviews *interviews.Service
}

// designsPath is the list of the library's designs.
const designsPath = "/designs"

// designPath is the page of one design; version "" is the current one.
func designPath(kind interviews.DesignKind, name, version string) string {
	p := designsPath + "/" + url.PathEscape(string(kind)) + "/" + url.PathEscape(name)
	if version != "" {
		p += "?version=" + url.QueryEscape(version)
	}
	return p
}

// maxDesignBody bounds a design form: the text and a few short fields.
const maxDesignBody = interviews.MaxDesignBytes*2 + 16<<10

func (s *designPages) routes(mux *http.ServeMux, g gates) {
	mux.HandleFunc("GET "+designsPath, g.design(s.handleList))
	mux.HandleFunc("GET "+designsPath+"/new", g.design(s.handleNew))
	mux.HandleFunc("POST "+designsPath, g.design(s.handleSubmit))
	mux.HandleFunc("GET "+designsPath+"/{kind}/{name}", g.design(s.handleShow))
	mux.HandleFunc("GET "+designsPath+"/{kind}/{name}/edit", g.design(s.handleEdit))
	mux.HandleFunc("GET "+designsPath+"/{kind}/{name}/export", g.design(s.handleExport))
	mux.HandleFunc("POST "+designsPath+"/{kind}/{name}/remove", g.design(s.handleRemove))
	mux.Handle("POST "+designsPath+"/{kind}/{name}/try", g.limited(g.design(s.handleTry)))
}

func (s *designPages) library() interviews.Library { return interviews.Library{Store: s.store} }

// designRow is one design of the list.
type designRow struct {
	interviews.Design
	Title string
}

// designsPage is the data of designs.html.
type designsPage struct {
	view
	Blueprints, Templates []designRow
	// Notice says what was just done ("Removed …").
	Notice string
}

// handleList serves the library: built-in and installed designs.
func (s *designPages) handleList(w http.ResponseWriter, r *http.Request) {
	page := designsPage{view: view{Title: "Interview designs", SignedIn: true}, Notice: r.URL.Query().Get("notice")}
	for _, k := range interviews.DesignKinds {
		list, err := s.library().List(r.Context(), k)
		if err != nil {
			s.log.Error("web: listing the design library", "err", err)
			s.serverError(w, r)
			return
		}
		rows := make([]designRow, 0, len(list))
		for _, d := range list {
			row := designRow{Design: d, Title: d.Name}
			if pv, err := interviews.PreviewDesign(&d); err == nil && pv.Title != "" {
				row.Title = pv.Title
			}
			rows = append(rows, row)
		}
		if k == interviews.KindBlueprint {
			page.Blueprints = rows
		} else {
			page.Templates = rows
		}
	}
	s.render(w, r, http.StatusOK, "designs.html", page)
}

// designPage is the data of design.html: one design's preview and
// versions.
type designPage struct {
	view
	Design   *interviews.Design
	Preview  interviews.Preview
	Versions []interviews.Design
	// Removed says the design is out of the library (its versions stay).
	Removed bool
	Error   string
}

// lookup reads the design the path names at the version the query asks
// for, answering 404 itself when there is none.
func (s *designPages) lookup(w http.ResponseWriter, r *http.Request) *interviews.Design {
	kind := interviews.DesignKind(r.PathValue("kind"))
	name, version := r.PathValue("name"), r.URL.Query().Get("version")
	d, err := s.library().Design(r.Context(), kind, name, version)
	if errors.Is(err, interviews.ErrDesignNotFound) && version == "" && kind.Valid() && interviews.ValidDesignName(name) {
		// A removed design: its newest version.
		if vs, verr := s.store.DesignVersions(r.Context(), kind, name); verr == nil && len(vs) > 0 {
			return &vs[0]
		}
	}
	switch {
	case errors.Is(err, interviews.ErrDesignNotFound):
		s.renderMessage(w, r, http.StatusNotFound, "No such design", "The library has no such design or version. Go back to the list of designs and choose one.")
		return nil
	case err != nil:
		s.log.Error("web: reading a design", "err", err)
		s.serverError(w, r)
		return nil
	}
	return d
}

// handleShow serves one design: its preview and its versions.
func (s *designPages) handleShow(w http.ResponseWriter, r *http.Request) {
	d := s.lookup(w, r)
	if d == nil {
		return
	}
	page := designPage{view: view{Title: string(d.Kind) + " " + d.Name, SignedIn: true}, Design: d, Removed: d.RemovedAt != nil}
	pv, err := interviews.PreviewDesign(d)
	if err != nil {
		page.Error = "This version no longer reads: " + err.Error()
	}
	page.Preview = pv
	if !d.Builtin() {
		if page.Versions, err = s.store.DesignVersions(r.Context(), d.Kind, d.Name); err != nil {
			s.log.Error("web: reading a design's versions", "err", err)
			s.serverError(w, r)
			return
		}
	}
	s.render(w, r, http.StatusOK, "design.html", page)
}

// handleExport sends a design's text as a file.
func (s *designPages) handleExport(w http.ResponseWriter, r *http.Request) {
	d := s.lookup(w, r)
	if d == nil {
		return
	}
	ct := "application/yaml; charset=utf-8"
	if d.Kind == interviews.KindTemplate {
		ct = "text/markdown; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Disposition", `attachment; filename="`+d.Name+d.Kind.Ext()+`"`)
	_, _ = w.Write([]byte(d.Content))
}

// handleRemove takes a design out of the library.
func (s *designPages) handleRemove(w http.ResponseWriter, r *http.Request) {
	kind := interviews.DesignKind(r.PathValue("kind"))
	name := r.PathValue("name")
	if interviews.IsBuiltinDesign(kind, name) {
		s.renderMessage(w, r, http.StatusConflict, "Built in", "Built-in designs stay in the library. Copy one to make your own.")
		return
	}
	err := s.store.RemoveDesign(r.Context(), kind, name)
	switch {
	case errors.Is(err, interviews.ErrDesignNotFound):
		s.renderMessage(w, r, http.StatusNotFound, "No such design", "The library has no such design, or it was removed already.")
		return
	case err != nil:
		s.log.Error("web: removing a design", "err", err)
		s.serverError(w, r)
		return
	}
	by, _ := principalOf(r.Context())
	s.log.Info("web: design removed", "kind", kind, "name", name, "by", by.Email)
	http.Redirect(w, r, designsPath+"?notice="+url.QueryEscape("Removed "+string(kind)+" "+name+": new interviews cannot choose it; interviews that use it keep it."), http.StatusSeeOther)
}

// trialCandidate is who a trial interview is for: the admin trying the
// design.
func trialCandidate(p principal) interviews.Candidate {
	name := p.Email
	if i := strings.IndexByte(name, '@'); i > 0 {
		name = name[:i]
	}
	c := interviews.Candidate{Name: "Trial " + name, Email: p.Email, Role: "Design trial", Level: "mid"}
	c.Normalize()
	return c
}

// handleTry registers a trial interview of the design for the signed-in
// admin and opens its room, where they can type their answers: the
// design runs as a candidate will meet it. A role template is tried in
// the default blueprint.
func (s *designPages) handleTry(w http.ResponseWriter, r *http.Request) {
	d := s.lookup(w, r)
	if d == nil {
		return
	}
	by, _ := principalOf(r.Context())
	reg := interviews.Registration{Candidate: trialCandidate(by), Blueprint: d.Name, By: by.Email}
	if d.Kind == interviews.KindTemplate {
		reg.Blueprint, reg.Template = stages.DefaultName, d.Name
	}
	if d.RemovedAt != nil {
		s.renderMessage(w, r, http.StatusConflict, "Removed", "This design was removed from the library; add it again to try it.")
		return
	}
	rec, err := s.interviews.Register(r.Context(), reg)
	if errors.Is(err, interviews.ErrDesignNotFound) {
		s.renderMessage(w, r, http.StatusConflict, "Removed", "This design was removed from the library meanwhile; add it again to try it.")
		return
	}
	if err != nil {
		s.log.Error("web: registering a design trial", "err", err)
		s.serverError(w, r)
		return
	}
	s.log.Info("web: design trial registered", "interview_id", rec.ID, "kind", d.Kind, "name", d.Name, "version", rec.BlueprintVersion)
	http.Redirect(w, r, "/interview/"+url.PathEscape(rec.ID), http.StatusSeeOther)
}
