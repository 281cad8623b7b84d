package interviews

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/viva-interviews/viva/incident"
)

// MaxIncidents bounds Record.Incidents; AddIncident keeps the newest, so a
// provider failing on every turn cannot grow a record without bound.
const MaxIncidents = 200

// validate reports what is wrong with one incident.
func validateIncident(i incident.Incident) error {
	switch {
	case i.At.IsZero():
		return errors.New("has no time")
	case i.Provider == "":
		return errors.New("has no provider")
	case i.Kind == "":
		return errors.New("has no kind")
	case utf8.RuneCountInString(i.Detail) > incident.MaxDetailLen:
		return fmt.Errorf("detail is longer than %d characters", incident.MaxDetailLen)
	}
	return nil
}

// AddIncident appends inc, shortening its detail to incident.MaxDetailLen
// and, when the record already holds MaxIncidents, dropping the oldest, so
// the record stays valid however often a provider fails.
func (r *Record) AddIncident(inc incident.Incident) {
	if utf8.RuneCountInString(inc.Detail) > incident.MaxDetailLen {
		inc.Detail = string([]rune(inc.Detail)[:incident.MaxDetailLen-1]) + "…"
	}
	if len(r.Incidents) >= MaxIncidents {
		r.Incidents = append(r.Incidents[:0], r.Incidents[len(r.Incidents)-MaxIncidents+1:]...)
	}
	r.Incidents = append(r.Incidents, inc)
}
