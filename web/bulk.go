package web

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
)

// Limits of a bulk invitation.
const (
	// maxBulkRows bounds the candidates of one bulk invitation.
	maxBulkRows = 200
	// maxBulkBytes bounds the CSV text of one bulk invitation.
	maxBulkBytes = 256 << 10
)

// bulkColumns are the columns of a bulk invitation's CSV, in the order
// assumed when it has no header row.
var bulkColumns = []string{fieldName, fieldEmail, fieldRole, fieldLevel, fieldBlueprint}

// bulkRow is one candidate of a bulk invitation, as typed.
type bulkRow struct {
	// Line is the row's line in the CSV (1 is the first).
	Line int
	// Reg is the registration the row makes.
	Reg registration
}

// parseBulk reads a bulk invitation's CSV: one candidate a row, with the
// columns name, email, role, level and blueprint (the last two optional),
// under an optional header row naming them in any order. Blank lines are
// skipped. Its errors say what to fix.
func parseBulk(text string) ([]bulkRow, error) {
	if len(text) > maxBulkBytes {
		return nil, fmt.Errorf("the list is larger than %d KB: split it into several", maxBulkBytes>>10)
	}
	r := csv.NewReader(strings.NewReader(text))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	cols := bulkColumns
	var rows []bulkRow
	for first := true; ; first = false {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("the list is not valid CSV (%v): write one candidate a line, the fields separated by commas", err)
		}
		line, _ := r.FieldPos(0)
		if first && isBulkHeader(rec) {
			if cols, err = bulkHeader(rec); err != nil {
				return nil, err
			}
			continue
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) > len(cols) {
			return nil, fmt.Errorf("line %d has %d fields; write at most %d: %s", line, len(rec), len(cols), strings.Join(cols, ", "))
		}
		if len(rows) == maxBulkRows {
			return nil, fmt.Errorf("the list has more than %d candidates: split it into several", maxBulkRows)
		}
		row := bulkRow{Line: line}
		for i, v := range rec {
			*row.Reg.field(cols[i]) = v
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, errors.New("the list has no candidates: write one a line, as name, email, role, level")
	}
	return rows, nil
}

// isBulkHeader reports whether a first row names columns rather than a
// candidate.
func isBulkHeader(rec []string) bool {
	return strings.EqualFold(strings.TrimSpace(rec[0]), fieldName) || strings.EqualFold(strings.TrimSpace(rec[0]), fieldEmail)
}

// bulkHeader reads the columns a header row names.
func bulkHeader(rec []string) ([]string, error) {
	var cols []string
	seen := map[string]bool{}
	for _, h := range rec {
		h = strings.ToLower(strings.TrimSpace(h))
		if !slices.Contains(bulkColumns, h) || seen[h] {
			return nil, fmt.Errorf("the header names the column %q twice or does not know it: use %s", h, strings.Join(bulkColumns, ", "))
		}
		seen[h] = true
		cols = append(cols, h)
	}
	return cols, nil
}

// bulkPath is the page that invites several candidates from a list.
const bulkPath = invitationsPath + "/bulk"

// bulkPage is the data of bulk.html: the list as typed, and once checked
// every row with what is wrong with it.
type bulkPage struct {
	view
	// List is the CSV as typed.
	List string
	// Rows are the rows checked; empty before the first check.
	Rows []bulkRowView
	// Valid and Invalid count the rows that can be invited and those
	// that cannot.
	Valid, Invalid int
	// Error says what is wrong with the list as a whole.
	Error string
	// SendsEmail offers to email the invitations: the server sends email.
	SendsEmail bool
	MaxRows    int
}

// bulkRowView is one row as checked: what it holds and what is wrong.
type bulkRowView struct {
	bulkRow
	Errors []string
	valid  *validated
}

// handleBulkForm serves the empty bulk invitation form.
func (s *registrar) handleBulkForm(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "bulk.html", s.bulkPage(""))
}

func (s *registrar) bulkPage(list string) bulkPage {
	return bulkPage{view: view{Title: "Invite several candidates", SignedIn: true}, List: list,
		SendsEmail: s.mail.sender != nil, MaxRows: maxBulkRows}
}

// handleBulk checks a bulk invitation's list (POST from bulk.html): every
// row is validated as the registration form validates one candidate, and
// the page shows each row with its problems. Nothing is created until the
// recruiter confirms (confirm=yes), and then only the valid rows; the
// list is checked again then.
func (s *registrar) handleBulk(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBulkBytes+maxSmallBody)
	if err := r.ParseForm(); err != nil {
		s.render(w, r, http.StatusRequestEntityTooLarge, "bulk.html", bulkPage{view: view{Title: "Invite several candidates", SignedIn: true},
			Error: fmt.Sprintf("The list could not be read: keep it under %d KB and %d candidates.", maxBulkBytes>>10, maxBulkRows), MaxRows: maxBulkRows})
		return
	}
	page := s.bulkPage(r.PostForm.Get("list"))
	rows, err := parseBulk(page.List)
	if err != nil {
		page.Error = sentence(err)
		s.render(w, r, http.StatusUnprocessableEntity, "bulk.html", page)
		return
	}
	for _, row := range rows {
		rv := bulkRowView{bulkRow: row}
		sub := &submission{reg: row.Reg}
		v, errs := s.validate(r.Context(), sub)
		rv.Reg = sub.reg // as validate normalised it
		for _, f := range slices.Sorted(maps.Keys(errs)) {
			rv.Errors = append(rv.Errors, errs[f])
		}
		if v != nil {
			rv.valid = v
			page.Valid++
		} else {
			page.Invalid++
		}
		page.Rows = append(page.Rows, rv)
	}
	if r.PostForm.Get("confirm") != "yes" || page.Valid == 0 {
		s.render(w, r, http.StatusOK, "bulk.html", page)
		return
	}
	s.createBulk(w, r, page.Rows, r.PostForm.Get(fieldSendEmail) != "")
}

// createBulk registers the valid rows and answers with the invitations.
func (s *registrar) createBulk(w http.ResponseWriter, r *http.Request, rows []bulkRowView, email bool) {
	created := 0
	for _, row := range rows {
		if row.valid == nil {
			continue
		}
		rec, err := s.createRecord(r.Context(), row.valid)
		if errs := s.removedDesign(r.Context(), row.valid, err); errs != nil {
			why := errs[fieldBlueprint] + errs[fieldTemplate]
			s.render(w, r, http.StatusConflict, "message.html", messagePage{view: view{Title: "Invitations not all created", SignedIn: true},
				Message: fmt.Sprintf("%d invitations were created; the one on line %d was not: %s. Open the invitations to see which, and invite the rest again.", created, row.Line, why)})
			return
		}
		if err != nil {
			s.log.Error("web: registering a candidate of a list", "line", row.Line, "err", err)
			s.render(w, r, http.StatusInternalServerError, "message.html", messagePage{view: view{Title: "Invitations not all created", SignedIn: true},
				Message: fmt.Sprintf("%d invitations were created; the one on line %d could not be saved on our side. Open the invitations to see which, and invite the rest again.", created, row.Line)})
			return
		}
		created++
		if err := s.mail.emailNew(r, rec, email); err != nil {
			s.log.Warn("web: emailing an invitation of a list failed", "interview_id", rec.ID, "err", err)
		}
	}
	s.log.Info("web: candidates invited from a list", "count", created)
	http.Redirect(w, r, invitationsPath, http.StatusSeeOther)
}
