package web

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/interviews"
)

// Provider keys in the shapes the registration accepts.
const (
	testOpenAIKey   = "sk-proj-own0123456789abcdefXYZ"
	testDeepgramKey = "dgown0123456789abcdef0123456789abcdef01"
)

// keysServer is a test server whose store can seal provider keys.
func keysServer(t *testing.T) *testServer {
	t.Helper()
	ts := newTestServer(t)
	sl, err := interviews.NewSealer(bytes.Repeat([]byte{0x42}, interviews.SecretsKeySize))
	if err != nil {
		t.Fatal(err)
	}
	ts.store.SetSealer(sl)
	return ts
}

// formPage is the registration form as a signed-in recruiter sees it.
func (ts *testServer) formPage(t *testing.T) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "/", nil)
	req.AddCookie(ts.signIn(t, testRecruiter))
	rec := ts.do(req)
	if rec.Code != http.StatusOK {
		t.Fatalf("form: status %d", rec.Code)
	}
	return rec.Body.String()
}

// noKeyIn fails the test when any provider key shows in text.
func noKeyIn(t *testing.T, what, text string) {
	t.Helper()
	for _, k := range []string{testOpenAIKey, testDeepgramKey} {
		if strings.Contains(text, k) {
			t.Errorf("%s shows a provider key", what)
		}
	}
}

// TestOwnKeysStoredSealedNeverShown: keys given with a registration are
// stored sealed for the worker, and never appear in the answer, the
// record, the logs, the reviewer's pages or the candidate's page.
func TestOwnKeysStoredSealedNeverShown(t *testing.T) {
	ts := keysServer(t)
	if body := ts.formPage(t); !strings.Contains(body, `name="openai_api_key"`) || !strings.Contains(body, `type="password"`) {
		t.Error("the form does not offer own keys though the server can keep them")
	}
	rec := ts.postJSON("/api/interviews", map[string]string{"name": "Ada Lovelace", "role": "Backend engineer",
		"openai_api_key": " " + testOpenAIKey + " ", "deepgram_api_key": testDeepgramKey})
	if rec.Code != http.StatusCreated {
		t.Fatalf("register: status %d: %s", rec.Code, rec.Body)
	}
	noKeyIn(t, "the JSON answer", rec.Body.String())
	resp := decodeJSON[createdResponse](t, rec.Body)
	if !resp.OwnKeys {
		t.Error("the answer does not say own keys")
	}
	keys, err := ts.store.Keys(t.Context(), resp.ID)
	if err != nil || keys != (interviews.Keys{OpenAI: testOpenAIKey, Deepgram: testDeepgramKey}) {
		t.Fatalf("stored keys = %v, %v", keys, err)
	}
	path, _ := ts.store.Path(resp.ID)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	noKeyIn(t, "the record file", string(data))
	sealed, err := os.ReadFile(filepath.Join(ts.store.Dir(), resp.ID+".keys"))
	if err != nil {
		t.Fatal(err)
	}
	noKeyIn(t, "the keys file", string(sealed))

	cookie := ts.signIn(t, testReviewer)
	for _, p := range []string{"/review", "/review/" + resp.ID, "/review/" + resp.ID + ".json", "/interview/" + resp.ID} {
		req, _ := http.NewRequest(http.MethodGet, p, nil)
		req.AddCookie(cookie)
		page := ts.do(req)
		if page.Code != http.StatusOK {
			t.Errorf("%s: status %d", p, page.Code)
		}
		noKeyIn(t, p, page.Body.String())
	}
	api, _ := http.NewRequest(http.MethodGet, "/api/interviews/"+resp.ID, nil)
	ts.authorize(api, testReviewer)
	apiRec := ts.do(api)
	if apiRec.Code != http.StatusOK {
		t.Errorf("reviewer API: status %d", apiRec.Code)
	}
	noKeyIn(t, "the reviewer API", apiRec.Body.String())
	noKeyIn(t, "the logs", ts.logs.String())
}

// TestOwnKeysFormResultPage: the result page says the interview has its
// own keys, never what they are.
func TestOwnKeysFormResultPage(t *testing.T) {
	ts := keysServer(t)
	rec := ts.resultPage(t, ts.postForm(t, validForm("openai_api_key", testOpenAIKey)))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	body := rec.Body.String()
	noKeyIn(t, "the result page", body)
	if !strings.Contains(body, "<dt>Own keys</dt><dd>Yes") {
		t.Error("the result page does not say own keys: yes")
	}
	noKeyIn(t, "the logs", ts.logs.String())
}

// TestOwnKeysRefused: keys of the wrong shape are refused by field with a
// message that does not quote them; a form sent back for another mistake
// never carries the keys; a server without a secrets key refuses keys and
// says how to enable them, and its form does not offer them.
func TestOwnKeysRefused(t *testing.T) {
	ts := keysServer(t)
	tests := []struct {
		name, field, key, msg string
	}{
		{"openai without sk-", fieldOpenAIKey, "pk-0123456789abcdefghijkl", `starts with \"sk-\"`},
		{"openai too short", fieldOpenAIKey, "sk-short", "20 to 256 characters"},
		{"openai too long", fieldOpenAIKey, "sk-" + strings.Repeat("a", 300), "20 to 256 characters"},
		{"openai with a space", fieldOpenAIKey, "sk-0123456789 abcdefghij", "only letters, digits"},
		{"deepgram with a quote", fieldDeepgramKey, `0123456789abcdef"0123456789`, "only letters, digits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := ts.postJSON("/api/interviews", map[string]string{"name": "Ada Lovelace", "role": "Engineer", tt.field: tt.key})
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422", rec.Code)
			}
			body := rec.Body.String()
			if !strings.Contains(body, `"`+tt.field+`":`) || !strings.Contains(body, tt.msg) {
				t.Errorf("answer lacks %q for %s: %s", tt.msg, tt.field, body)
			}
			if strings.Contains(body, tt.key) {
				t.Error("the answer quotes the key")
			}
		})
	}
	if page, _ := ts.store.List(t.Context(), interviews.ListOptions{}); page.Total != 0 {
		t.Errorf("%d interviews stored from refused registrations", page.Total)
	}

	rec := ts.postForm(t, validForm("email", "not-an-email", "openai_api_key", testOpenAIKey, "deepgram_api_key", testDeepgramKey))
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", rec.Code)
	}
	noKeyIn(t, "the form sent back", rec.Body.String())
	if !strings.Contains(rec.Body.String(), "Provider keys are never shown again") {
		t.Error("the form sent back does not ask for the keys again")
	}

	plain := newTestServer(t)
	if body := plain.formPage(t); strings.Contains(body, "openai_api_key") {
		t.Error("the form offers own keys on a server without a secrets key")
	}
	rec = plain.postJSON("/api/interviews", map[string]string{"name": "Ada Lovelace", "role": "Engineer", "openai_api_key": testOpenAIKey})
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "VIVA_SECRETS_KEY") {
		t.Errorf("without a secrets key: status %d: %s", rec.Code, rec.Body)
	}
	noKeyIn(t, "the refusal", rec.Body.String())
	if page, _ := plain.store.List(t.Context(), interviews.ListOptions{}); page.Total != 0 {
		t.Error("an interview was stored with keys the server cannot keep")
	}
}
