package web

import (
	"net/http"
	"reflect"

	"github.com/viva-interviews/viva/accounts"
)

// nav is what the signed-in user may open: the navigation and the pages'
// way-back links show only what answers them, never a link that would
// answer 403.
type nav struct {
	// Register: the registration form and the invitations.
	Register bool
	// Review: the interviews and their reports.
	Review bool
	// Design: the design library (administrators).
	Design bool
}

// navFor is what r's signed-in user may open; nothing before signing in:
// the sign-in page and what refuses a visitor list no staff pages.
func navFor(r *http.Request) nav {
	p, ok := principalOf(r.Context())
	if !ok {
		return nav{}
	}
	return nav{Register: p.Role.Allows(accounts.Register), Review: p.Role.Allows(accounts.Review), Design: p.Role.Allows(accounts.Design)}
}

// withNav returns page data whose view (embedded) carries n: a copy of
// data with its Nav field set, or data itself when it has none.
func withNav(data any, n nav) any {
	v := reflect.ValueOf(data)
	if v.Kind() != reflect.Struct {
		return data
	}
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	f := c.FieldByName("Nav")
	if !f.IsValid() || !f.CanSet() || f.Type() != reflect.TypeFor[nav]() {
		return data
	}
	f.Set(reflect.ValueOf(n))
	return c.Interface()
}
