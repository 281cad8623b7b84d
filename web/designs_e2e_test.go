package web_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/viva-interviews/viva/accounts"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/storetest"
	"github.com/viva-interviews/viva/web"
)

// The questions of the design tried in the trial test: its first stage
// asks both.
const (
	trialQuestion1 = "Which release of the billing service did you ship last quarter?"
	trialQuestion2 = "How did you roll the ledger migration back when it failed?"
)

// trialDesign is a blueprint whose first stage asks its two questions,
// then says goodbye.
var trialDesign = strings.NewReplacer("    limit: 2m\n", "    limit: 2m\n    min_questions: 2\n",
	strconv.Quote(trialQuestion1)+"\n", strconv.Quote(trialQuestion1)+"\n      - "+strconv.Quote(trialQuestion2)+"\n").
	Replace(storetest.BlueprintYAML("billing", trialQuestion1))

// TestBrowserDesignTrial: an admin tries a design installed in the
// library as a typed interview, over livekit-server with the offline
// engines: "Try it as a typed interview" opens the trial's room, the
// interviewer greets in the design's first stage with its question, and
// the admin's typed answers are answered in that stage's words.
func TestBrowserDesignTrial(t *testing.T) {
	if testing.Short() {
		t.Skip("browser end-to-end test: skipped with -short")
	}
	const admin = "admin@example.com"
	var token string
	sys := startSystemWith(t, 0, func(o *web.Options) {
		users := o.Accounts.(*accounts.Service)
		if _, err := users.AddUser(t.Context(), admin, accounts.RoleAdmin, e2ePassword); err != nil {
			t.Fatal(err)
		}
		var err error
		if token, err = users.CreateToken(t.Context(), admin); err != nil {
			t.Fatal(err)
		}
	})
	d := interviews.Design{Kind: interviews.KindBlueprint, Name: "billing", Content: trialDesign, AddedBy: admin}
	if err := sys.store.AddDesign(t.Context(), &d); err != nil {
		t.Fatal(err)
	}
	silence, rate := make([]int16, 16000), 16000
	b := newBrowser(t, fakeMicrophone(micFile(t, 0, silence, rate))...)

	var room string
	b.step(t, "try the design",
		network.Enable(),
		network.SetExtraHTTPHeaders(network.Headers{"Authorization": "Bearer " + token}),
		chromedp.Navigate(sys.web.URL+"/designs/blueprint/billing"),
		// The click navigates: the room page is acted on once it has
		// loaded, or a node found early can be gone by the time it is used.
		chromedp.ActionFunc(func(ctx context.Context) error {
			_, err := chromedp.RunResponse(ctx, chromedp.Click(`form[action="/designs/blueprint/billing/try"] button`, chromedp.ByQuery))
			return err
		}),
		chromedp.WaitVisible(`#join`, chromedp.ByID),
		chromedp.Location(&room),
		// The admin's token is for the web app: LiveKit takes the room's.
		network.SetExtraHTTPHeaders(network.Headers{}),
		agree,
		chromedp.Click(`#join`, chromedp.ByID),
		waitCaption(func(c caption) bool {
			return c.Speaker == "agent" && c.Final && strings.Contains(c.Text, trialQuestion1)
		}),
		chromedp.WaitEnabled(`#chat-input`, chromedp.ByID),
	)
	b.shot(t, "design-trial")
	lines := typeAndAwaitReply(t, b, "We shipped the invoicing release in June.")
	if reply := lines[len(lines)-1].Text; !strings.Contains(reply, trialQuestion2) {
		t.Errorf("the interviewer answered %q, want the design's second question", reply)
	}
	id, _, _ := strings.Cut(room[strings.LastIndex(room, "/")+1:], "?")
	rec := sys.record(t, id, stepTimeout, "the typed answer", func(r *interviews.Record) bool {
		for _, turn := range r.Turns {
			if turn.Role == interviews.RoleCandidate && turn.Source == "text" {
				return true
			}
		}
		return false
	})
	if rec.Blueprint != "billing" || rec.BlueprintVersion != d.Version || rec.CreatedBy != admin {
		t.Errorf("the trial's record names %s@%s by %s, want billing@%s by %s", rec.Blueprint, rec.BlueprintVersion, rec.CreatedBy, d.Version, admin)
	}
	b.checkClean(t)
}
