package postgres

import (
	"strconv"
	"strings"

	"github.com/viva-interviews/viva/interviews"
)

// query is the WHERE and ORDER BY of a listing, with its arguments.
type query struct {
	where string // " WHERE …", or empty
	order string
	args  []any
}

// arg adds v to the query's arguments and returns its placeholder.
func (q *query) arg(v any) string {
	q.args = append(q.args, v)
	return "$" + strconv.Itoa(len(q.args))
}

// listQuery says opts' filters and order in SQL, as ListOptions.Matches
// and the file store's order say them in Go. opts.At is set.
func listQuery(opts interviews.ListOptions) *query {
	q := &query{}
	var where []string
	if opts.Status != "" {
		where = append(where, "status = "+q.arg(string(opts.Status)))
	}
	if opts.Role != "" {
		where = append(where, "role_lower LIKE "+q.arg(contains(opts.Role)))
	}
	if opts.Query != "" {
		where = append(where, "name_lower LIKE "+q.arg(contains(opts.Query)))
	}
	if opts.Email != "" {
		where = append(where, "lower(btrim(summary->'candidate'->>'email')) = "+q.arg(interviews.NormalizeEmail(opts.Email)))
	}
	if !opts.CreatedBefore.IsZero() {
		where = append(where, "created_ns < "+q.arg(orderNS(opts.CreatedBefore)))
	}
	if opts.CreatedBy != "" {
		where = append(where, "created_by_lower = "+q.arg(strings.ToLower(opts.CreatedBy)))
	}
	if len(opts.Invitations) > 0 {
		at := ""
		atArg := func() string { // one placeholder for every state that needs it
			if at == "" {
				at = q.arg(orderNS(opts.At))
			}
			return at
		}
		var anyOf []string
		for _, st := range opts.Invitations {
			anyOf = append(anyOf, invitationSQL(st, atArg))
		}
		where = append(where, "("+strings.Join(anyOf, " OR ")+")")
	}
	if len(where) > 0 {
		q.where = " WHERE " + strings.Join(where, " AND ")
	}
	q.order = "created_ns DESC, id"
	switch opts.Sort {
	case interviews.SortScore:
		q.order = "score DESC NULLS LAST, " + q.order
	case interviews.SortDecision:
		q.order = "decision_rank, " + q.order
	}
	return q
}

// invitationSQL is the condition of an invitation in state at the moment
// whose placeholder at adds (in orderNS form, only when the state needs
// it), as Record.Invitation decides it: a row's link_state is its state
// but for the link's expiry, which expires_ns adds (null never lapses).
// The lapse is said without a separate "expires_ns IS NOT NULL", which
// the planner would count as a filter of its own and so expect a few
// hundred expired invitations where there are thousands.
func invitationSQL(state interviews.InvitationState, at func() string) string {
	switch state {
	case interviews.InvitationExpired:
		return "(link_state IN ('created', 'opened') AND expires_ns <= " + at() + ")"
	case interviews.InvitationCreated, interviews.InvitationOpened:
		return "(link_state = '" + string(state) + "' AND (expires_ns IS NULL OR expires_ns > " + at() + "))"
	}
	return "link_state = '" + string(state) + "'"
}
