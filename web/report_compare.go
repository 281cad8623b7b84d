package web

import (
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/viva-interviews/viva/interviews"
)

// The comparison of the candidates for one role, competency by
// competency.

// compareURL is the comparison view of the candidates for role.
func compareURL(role string) string {
	return "/review/compare?" + url.Values{"role": {role}}.Encode()
}

// comparePage is the data of compare.html.
type comparePage struct {
	view
	Role string
	// Competencies are the rows, in the order the reports name them.
	Competencies []string
	// Candidates are the columns, best overall score first.
	Candidates []compareColumn
	// Roles are the roles with a scored interview to choose from, when
	// no role is chosen.
	Roles []roleChoice
}

// roleChoice is a role to compare, with its address.
type roleChoice struct {
	Role, URL string
}

// compareColumn is one candidate's scores, in the order of
// comparePage.Competencies.
type compareColumn struct {
	ID       string
	Name     string
	Date     *time.Time
	Overall  int
	Scores   []compareCell
	Decision interviews.DecisionKind
	// Incomplete names how an interview that did not run to its end
	// stands ("Ended early"); empty for a completed one.
	Incomplete string
}

// compareCell is one competency's score; Known is false when the
// candidate's report did not score it.
type compareCell struct {
	Score int
	Known bool
}

// handleCompare serves /review/compare?role=…: the candidates for one role
// side by side, competency by competency, those who did not finish the
// interview flagged; without a role, the roles to choose from.
func (s *reportPages) handleCompare(w http.ResponseWriter, r *http.Request) {
	role := interviews.CleanLine(r.URL.Query().Get("role"))
	p := comparePage{view: view{Title: "Compare candidates", SignedIn: true}, Role: role}
	list, err := s.store.List(r.Context(), interviews.ListOptions{Role: role, Limit: interviews.MaxListLimit, Sort: interviews.SortScore})
	if err != nil {
		s.log.Error("web: listing interviews to compare", "err", err)
		s.serverError(w, r)
		return
	}
	if role == "" {
		p.Roles = scoredRoles(list.Items)
		s.render(w, r, http.StatusOK, "compare.html", p)
		return
	}
	p.Title = "Compare candidates for " + role
	s.compareColumns(&p, list.Items)
	s.render(w, r, http.StatusOK, "compare.html", p)
}

// scoredRoles are the roles of the scored interviews, each once, in the
// order listed.
func scoredRoles(items []interviews.Summary) []roleChoice {
	var out []roleChoice
	for _, sum := range items {
		role := sum.Candidate.Role
		if sum.Score == nil || role == "" || slices.ContainsFunc(out, func(c roleChoice) bool { return c.Role == role }) {
			continue
		}
		out = append(out, roleChoice{Role: role, URL: compareURL(role)})
	}
	return out
}

// compareColumns fills p with a column for each scored interview of
// items and a row for each competency their reports scored. The list's
// summaries carry every figure the table shows, so no record is read.
func (s *reportPages) compareColumns(p *comparePage, items []interviews.Summary) {
	type scored struct {
		col  compareColumn
		byCo map[string]int
	}
	var cols []scored
	index := map[string]bool{}
	now := s.now()
	for _, sum := range items {
		if sum.Score == nil {
			continue // no ready, scored report
		}
		sc := scored{col: compareColumn{ID: sum.ID, Name: sum.Candidate.Name, Date: sum.EndedAt, Overall: score100(*sum.Score), Decision: sum.Decision}, byCo: map[string]int{}}
		if st := sum.Standing(now); st != interviews.Standing(interviews.StatusCompleted) {
			sc.col.Incomplete = st.Label()
		}
		for _, c := range sum.Competencies {
			name := interviews.Humanize(c.Name)
			sc.byCo[name] = score100(c.Score)
			if !index[name] {
				index[name] = true
				p.Competencies = append(p.Competencies, name)
			}
		}
		cols = append(cols, sc)
	}
	for _, sc := range cols {
		for _, name := range p.Competencies {
			v, ok := sc.byCo[name]
			sc.col.Scores = append(sc.col.Scores, compareCell{Score: v, Known: ok})
		}
		p.Candidates = append(p.Candidates, sc.col)
	}
}
