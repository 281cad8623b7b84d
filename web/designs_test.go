package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/interviews/storetest"
)

// postDesign posts the design editor's form as email.
func (ts *testServer) postDesign(email string, form url.Values) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, designsPath, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "text/html")
	ts.authorize(req, email)
	return ts.do(req)
}

// getAs reads path as email.
func (ts *testServer) getAs(email, path string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	ts.authorize(req, email)
	return ts.do(req)
}

// TestDesignFlow: an admin writes a blueprint with a mistake and is told
// its line, nothing saved; fixes it, previews it (stages, timings,
// questions, what the candidate is told) and saves it; a recruiter then
// registers a candidate with it, with per-interview options, and the
// record and the reviewer page name its version; an edit makes a new
// version that the registered interview does not take.
func TestDesignFlow(t *testing.T) {
	ts := newTestServer(t)
	good := storetest.BlueprintYAML("billing", "Which release of the billing service did you ship last?")
	broken := strings.Replace(good, "limit: 2m", "limit: forever", 1)
	form := url.Values{"kind": {"blueprint"}, "name": {"billing"}, "content": {broken}, "action": {"save"}}
	rec := ts.postDesign(testAdmin, form)
	if body := rec.Body.String(); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(body, "<strong>Line 8</strong>: stages[0].limit") {
		t.Fatalf("broken design: %d\n%s", rec.Code, body)
	}
	if list, _ := ts.store.Designs(t.Context(), interviews.KindBlueprint); len(list) != 0 {
		t.Fatalf("a design with a mistake was saved: %+v", list)
	}

	form.Set("content", good)
	form.Set("action", "check")
	rec = ts.postDesign(testAdmin, form)
	body := rec.Body.String()
	for _, want := range []string{"The design reads well", "Warm-up", "up to 2m", "Which release of the billing service did you ship last?", "about <strong>3m 00s</strong>", "no feedback page"} {
		if !strings.Contains(body, want) {
			t.Errorf("preview lacks %q:\n%s", want, body)
		}
	}
	if list, _ := ts.store.Designs(t.Context(), interviews.KindBlueprint); len(list) != 0 {
		t.Fatal("checking a design saved it")
	}
	form.Set("action", "save")
	if rec = ts.postDesign(testAdmin, form); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/designs/blueprint/billing" {
		t.Fatalf("save: %d %s", rec.Code, rec.Header().Get("Location"))
	}
	saved, err := ts.store.Design(t.Context(), interviews.KindBlueprint, "billing", "")
	if err != nil || saved.AddedBy != testAdmin {
		t.Fatalf("saved %+v, %v", saved, err)
	}
	if rec := ts.postDesign(testRecruiter, form); rec.Code != http.StatusForbidden {
		t.Errorf("a recruiter saved a design: %d", rec.Code)
	}
	page := ts.asRecruiter("/")
	if !strings.Contains(page.Body.String(), `<option value="billing">Test design billing</option>`) {
		t.Errorf("the registration form does not offer the installed blueprint")
	}

	resp := registerJSON(t, ts, map[string]string{"name": "Ada Lovelace", "role": "Backend engineer", "blueprint": "billing",
		"feedback": "yes", "feedback_scores": "no", "length_minutes": "30"})
	r, err := ts.store.Get(t.Context(), resp.ID)
	if err != nil || r.Blueprint != "billing" || r.BlueprintVersion != saved.Version || r.Options == nil || r.Options.Length != 30*time.Minute || !*r.Options.Feedback {
		t.Fatalf("registered %+v, %v", r, err)
	}
	room := ts.get("/interview/" + resp.ID).Body.String()
	if !strings.Contains(room, "30 minutes") {
		t.Errorf("the room page does not say the expected length of 30 minutes")
	}

	form.Set("content", strings.Replace(good, "Wrap-up", "Goodbye", 1))
	if rec = ts.postDesign(testAdmin, form); rec.Code != http.StatusSeeOther {
		t.Fatalf("edit: %d", rec.Code)
	}
	if again, _ := ts.store.Get(t.Context(), resp.ID); again.BlueprintVersion != saved.Version {
		t.Errorf("an edit changed the registered interview's version to %s", again.BlueprintVersion)
	}
	review := ts.reviewerGet(t, "/review/"+resp.ID)
	if !strings.Contains(review, "(version "+saved.ShortVersion()+")") {
		t.Errorf("the reviewer page does not name the version %s", saved.ShortVersion())
	}
	show := ts.getAs(testAdmin, "/designs/blueprint/billing").Body.String()
	if !strings.Contains(show, "Goodbye") || !strings.Contains(show, saved.ShortVersion()) || !strings.Contains(show, "Try it as a typed interview") {
		t.Errorf("the design page lacks the current preview, the old version or the trial:\n%s", show)
	}

	for _, tc := range []map[string]string{
		{"name": "Ada", "role": "x", "blueprint": "never-added"},
		{"name": "Ada", "role": "x", "blueprint": "../../etc/passwd"},
		{"name": "Ada", "role": "x", "length_minutes": "1"},
		{"name": "Ada", "role": "x", "feedback": "no", "feedback_scores": "yes"},
	} {
		if rec := ts.postJSON("/api/interviews", tc); rec.Code != http.StatusUnprocessableEntity {
			t.Errorf("registration %v: %d %s", tc, rec.Code, rec.Body)
		}
	}
}

// TestDesignTrial: trying a design registers a typed interview of it for
// the admin and opens its room.
func TestDesignTrial(t *testing.T) {
	ts := newTestServer(t)
	d := interviews.Design{Kind: interviews.KindBlueprint, Name: "billing", Content: storetest.BlueprintYAML("billing", "Why?")}
	if err := ts.store.AddDesign(t.Context(), &d); err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/designs/blueprint/billing/try", nil)
	req.Header.Set("Accept", "text/html")
	ts.authorize(req, testAdmin)
	rec := ts.do(req)
	id, ok := strings.CutPrefix(rec.Header().Get("Location"), "/interview/")
	if rec.Code != http.StatusSeeOther || !ok {
		t.Fatalf("try: %d %q", rec.Code, rec.Header().Get("Location"))
	}
	r, err := ts.store.Get(t.Context(), id)
	if err != nil || r.Blueprint != "billing" || r.BlueprintVersion != d.Version || r.CreatedBy != testAdmin {
		t.Fatalf("trial record %+v, %v", r, err)
	}
}

// removingStore is a store on which someone removes a design right after
// the registration's check has listed it, before the interview is stored:
// the race of a registration and a removal.
type removingStore struct {
	*filestore.Store
	kind  interviews.DesignKind
	name  string
	armed atomic.Bool
}

func (s *removingStore) Designs(ctx context.Context, kind interviews.DesignKind) ([]interviews.Design, error) {
	list, err := s.Store.Designs(ctx, kind)
	if kind == s.kind && s.armed.CompareAndSwap(true, false) {
		if rerr := s.Store.RemoveDesign(ctx, kind, s.name); rerr != nil {
			return nil, rerr
		}
	}
	return list, err
}

// TestRegisterWithDesignRemovedMeanwhile: a design removed between the
// check of a registration and its storing is refused with a message for
// its field, on the form and the API, never a server error; nothing is
// registered.
func TestRegisterWithDesignRemovedMeanwhile(t *testing.T) {
	for _, kind := range interviews.DesignKinds {
		t.Run(string(kind), func(t *testing.T) {
			rs := &removingStore{kind: kind, name: "billing"}
			ts := newTestServer(t, func(o *Options) {
				rs.Store = o.Store.(*filestore.Store)
				o.Store = rs
			})
			field, content := "blueprint", storetest.BlueprintYAML("billing", "Which release did you ship?")
			if kind == interviews.KindTemplate {
				field, content = "template", storetest.TemplateMarkdown("Billing engineer", "How would you plan the ledger's migration?")
			}
			add := func() {
				d := interviews.Design{Kind: kind, Name: "billing", Content: content}
				if err := ts.store.AddDesign(t.Context(), &d); err != nil {
					t.Fatal(err)
				}
			}
			want := "The design billing was removed; choose another"

			add()
			rs.armed.Store(true)
			rec := ts.postJSON("/api/interviews", map[string]string{"name": "Ada Lovelace", "role": "Backend engineer", field: "billing"})
			if got := decodeJSON[apiError](t, rec.Body); rec.Code != http.StatusUnprocessableEntity || got.Fields[field] != want {
				t.Errorf("API: %d %+v, want 422 with %s: %q", rec.Code, got, field, want)
			}

			add()
			rs.armed.Store(true)
			rec = ts.postForm(t, validForm(field, "billing"))
			if body := rec.Body.String(); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(body, want) || !strings.Contains(body, `value="Ada Lovelace"`) {
				t.Errorf("form: %d, want 422 saying %q and keeping what was entered:\n%s", rec.Code, want, body)
			}
			if page, _ := ts.store.List(t.Context(), interviews.ListOptions{}); page.Total != 0 {
				t.Errorf("%d interviews registered with a removed design", page.Total)
			}
		})
	}
}

// TestInstalledDesignProblems: the problems of a blueprint installed in
// the library are offered under it on the form; the API takes one of
// them, and refuses another design's problem listing the ones it has.
func TestInstalledDesignProblems(t *testing.T) {
	ts := newTestServer(t)
	d := interviews.Design{Kind: interviews.KindBlueprint, Name: "payments", Content: storetest.BlueprintYAML("payments", "Which payment flow did you build?") + `problems:
  - id: ledger
    title: a double-entry ledger
    statement: Design the ledger of a payments company.
  - id: payouts
    title: a payouts service
    statement: Design the service that pays merchants every day.
`}
	if err := ts.store.AddDesign(t.Context(), &d); err != nil {
		t.Fatal(err)
	}
	form := ts.asRecruiter("/").Body.String()
	for _, want := range []string{`<optgroup label="Test design payments" data-blueprint="payments">`, `<option value="payouts">a payouts service</option>`,
		`<optgroup label="System design interview" data-blueprint="system-design">`} {
		if !strings.Contains(form, want) {
			t.Errorf("the form lacks %s", want)
		}
	}
	resp := registerJSON(t, ts, map[string]string{"name": "Ada Lovelace", "role": "Engineer", "blueprint": "payments", "problem": "payouts"})
	if rec, err := ts.store.Get(t.Context(), resp.ID); err != nil || rec.Problem != "payouts" || rec.BlueprintVersion != d.Version {
		t.Fatalf("record %+v, %v", rec, err)
	}
	refused := ts.postJSON("/api/interviews", map[string]string{"name": "Ada Lovelace", "role": "Engineer", "blueprint": "payments", "problem": "chat"})
	if got := decodeJSON[apiError](t, refused.Body); refused.Code != http.StatusUnprocessableEntity ||
		got.Fields["problem"] != "Choose one of the Test design payments plan's problems: ledger, payouts, or leave it empty to draw one" {
		t.Errorf("another design's problem: %d %+v", refused.Code, got)
	}
}
