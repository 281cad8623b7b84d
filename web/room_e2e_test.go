package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/livekit/protocol/livekit"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/testrig/browsertest"
	"github.com/viva-interviews/viva/web"
)

// e2eBrand is the company name the room experience test configures.
const e2eBrand = "Example Corp"

// shotEverywhere saves the page at every screen size in both colour
// schemes (browsertest.ScreenSizes, ColourSchemes), then leaves it at the desktop size
// in light.
func (b *browser) shotEverywhere(t *testing.T, name string) {
	t.Helper()
	for _, size := range browsertest.ScreenSizes {
		for _, scheme := range browsertest.ColourSchemes {
			b.step(t, "emulate "+size.Name+" "+scheme, browsertest.Emulate(size, scheme))
			b.shot(t, name+"-"+size.Name+"-"+scheme)
		}
	}
	b.step(t, "back to desktop light", browsertest.Emulate(browsertest.Desktop, "light"))
}

// micMuted asks livekit-server whether the candidate's published
// microphone is muted.
func (s *system) micMuted(t *testing.T, room, identity string) (muted, found bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := s.lk.RoomClient().ListParticipants(ctx, &livekit.ListParticipantsRequest{Room: room})
	if err != nil {
		t.Fatalf("ListParticipants: %v", err)
	}
	for _, p := range res.Participants {
		if p.Identity != identity {
			continue
		}
		for _, tr := range p.Tracks {
			if tr.Source == livekit.TrackSource_MICROPHONE {
				return tr.Muted, true
			}
		}
	}
	return false, false
}

// waitMuted polls livekit-server until the candidate's microphone is
// published with the muted state want.
func (s *system) waitMuted(t *testing.T, room, identity string, want bool) {
	t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for {
		muted, found := s.micMuted(t, room, identity)
		if found && muted == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the candidate's published microphone: found %v, muted %v; want muted %v", found, muted, want)
		}
		time.Sleep(100 * time.Millisecond) // polling the server's API; no event to wait on
	}
}

// TestBrowserRoomExperience walks the candidate's room page as a new
// candidate meets it: the brand and favicon, the expected length and every
// stage, the consent notice that must be agreed to before Join (and is
// stored), the device check with its test sound, the interviewer's voice
// drawn while it speaks, the stepper moving on, mute reaching the published
// track, and, after a reload, the earlier captions back with an
// interrupted interviewer turn marked. Screenshots at desktop and phone
// width, light and dark.
func TestBrowserRoomExperience(t *testing.T) {
	if testing.Short() {
		t.Skip("browser end-to-end test: skipped with -short")
	}
	sys := startSystemWith(t, time.Minute, func(o *web.Options) { o.BrandName = e2eBrand })
	created := sys.register(t, "Mary Somerville", "Research engineer")

	resp, err := http.Get(sys.web.URL + "/favicon.ico")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/svg+xml" {
		t.Errorf("GET /favicon.ico: %s %q", resp.Status, resp.Header.Get("Content-Type"))
	}

	b := newBrowser(t, fakeMicrophone(micFile(t, time.Second, nil, 16000))...)

	// 1. The join page: brand, length, stages, the notice; Join waits for
	// the agreement.
	var title, brandName, consentText, length string
	var stages []string
	var joinDisabled bool
	b.step(t, "open the join page",
		browsertest.Emulate(browsertest.Desktop, "light"),
		chromedp.Navigate(created.JoinURL+"?raw=1"),
		chromedp.WaitVisible(`#join`, chromedp.ByID),
		chromedp.Title(&title),
		chromedp.Text(`.room-header .brand-name`, &brandName, chromedp.ByQuery),
		chromedp.Text(`#consent-text`, &consentText, chromedp.ByID),
		chromedp.Text(`#expected-length`, &length, chromedp.ByID),
		chromedp.Evaluate(`[...document.querySelectorAll('#plan li')].map(li => li.textContent)`, &stages),
		chromedp.Evaluate(`document.getElementById('join').disabled`, &joinDisabled),
	)
	if !strings.HasSuffix(title, "· "+e2eBrand) || brandName != e2eBrand {
		t.Errorf("title %q, header brand %q; want %s in both", title, brandName, e2eBrand)
	}
	for _, want := range []string{"AI interviewer", "transcript", "A person at " + e2eBrand + " reviews"} {
		if !strings.Contains(consentText, want) {
			t.Errorf("the notice %q lacks %q", consentText, want)
		}
	}
	if length != "9 minutes" || strings.Join(stages, "|") != "Welcome|Introduction|Your experience|Closing" {
		t.Errorf("expected length %q, stages %q", length, stages)
	}
	if !joinDisabled {
		t.Error("Join is enabled before the candidate agreed")
	}
	var darkBackground string
	b.step(t, "dark mode follows the system",
		browsertest.PrefersColourScheme("dark"),
		chromedp.Evaluate(`getComputedStyle(document.body).backgroundColor`, &darkBackground),
		browsertest.PrefersColourScheme("light"),
	)
	if darkBackground != "rgb(15, 20, 25)" {
		t.Errorf("the page's background in dark mode is %s, want rgb(15, 20, 25)", darkBackground)
	}
	b.shotEverywhere(t, "join-page")

	// A join without the agreement is refused by the server too.
	resp, err = http.Post(sys.web.URL+"/api/interviews/"+created.ID+"/join", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("join without consent: %s, want 400", resp.Status)
	}

	// 2. The device check: the microphone list fills, the level meter is
	// there, the test sound plays.
	var mics int
	b.step(t, "check the microphone and speaker",
		agree,
		chromedp.Click(`#check summary`, chromedp.ByQuery),
		chromedp.Click(`#check-mic`, chromedp.ByID),
		chromedp.Poll(`document.getElementById('mic-select').options.length > 1`, nil, chromedp.WithPollingTimeout(stepTimeout)),
		chromedp.Evaluate(`document.getElementById('mic-select').options.length`, &mics),
		chromedp.Click(`#test-sound`, chromedp.ByID),
		chromedp.Poll(`document.getElementById('test-sound').dataset.played === 'true'`, nil, chromedp.WithPollingTimeout(stepTimeout)),
	)
	b.shotEverywhere(t, "device-check")

	// 3. Join: the stepper shows every stage; the interviewer's voice moves
	// the visualiser while it speaks.
	b.step(t, "join", chromedp.Click(`#join`, chromedp.ByID), chromedp.WaitVisible(`#live`, chromedp.ByID))
	rec := sys.record(t, created.ID, stepTimeout, "the candidate's consent", func(r *interviews.Record) bool { return r.Consent != nil })
	if rec.Consent.Version != web.ConsentVersion(consentText) || rec.Consent.Text != consentText {
		t.Errorf("stored consent %+v; the page showed %q", rec.Consent, consentText)
	}
	var peak int
	frames := map[string]bool{}
	b.step(t, "the visualiser moves while the interviewer speaks",
		chromedp.WaitVisible(`#agent-state[data-state="speaking"]`, chromedp.ByQuery),
		chromedp.ActionFunc(func(ctx context.Context) error {
			for len(frames) < 3 || peak < 10 {
				var st struct {
					Level int    `json:"level"`
					Frame string `json:"frame"`
					State string `json:"state"`
				}
				if err := chromedp.Evaluate(`(() => { const c = document.getElementById('visualiser');
					return {level: +c.dataset.level, frame: c.toDataURL().slice(-64), state: c.dataset.state}; })()`, &st).Do(ctx); err != nil {
					return err
				}
				if st.State == "speaking" {
					peak = max(peak, st.Level)
					frames[st.Frame] = true
				}
				select {
				case <-ctx.Done():
					return fmt.Errorf("visualiser peak level %d over %d distinct frames: %w", peak, len(frames), ctx.Err())
				case <-time.After(100 * time.Millisecond):
				}
			}
			return nil
		}),
	)
	var steps []string
	b.step(t, "the stepper",
		chromedp.Poll(`document.querySelectorAll('#stepper .room-step').length === 4`, nil, chromedp.WithPollingTimeout(stepTimeout)),
		chromedp.Evaluate(`[...document.querySelectorAll('#stepper .room-step')].map(li => li.dataset.state)`, &steps),
	)
	if strings.Join(steps, ",") != "current,upcoming,upcoming,upcoming" {
		t.Errorf("stepper states %v at the greeting", steps)
	}
	b.shotEverywhere(t, "interviewer-speaking")

	// 4. Mute reaches the published track; unmute brings it back.
	rec = sys.record(t, created.ID, stepTimeout, "a room", func(r *interviews.Record) bool { return r.Room != "" })
	identity := web.CandidateIdentity(created.ID)
	sys.waitMuted(t, rec.Room, identity, false)
	b.step(t, "mute", chromedp.Click(`#mute`, chromedp.ByID), chromedp.WaitVisible(`#mute[aria-pressed="true"]`, chromedp.ByQuery))
	sys.waitMuted(t, rec.Room, identity, true)
	b.shot(t, "muted")
	b.step(t, "unmute", chromedp.Click(`#mute`, chromedp.ByID), chromedp.WaitVisible(`#mute[aria-pressed="false"]`, chromedp.ByQuery))
	sys.waitMuted(t, rec.Room, identity, false)

	// 5. An answer moves the interview on: the stepper follows and the
	// time left in the whole interview shows.
	b.step(t, "the interviewer listens",
		waitCaption(func(c caption) bool { return c.Speaker == "agent" && c.Final && strings.HasSuffix(c.Text, "?") }),
		chromedp.WaitEnabled(`#chat-input`, chromedp.ByID),
	)
	typeAndAwaitReply(t, b, typedAnswer)
	var totalLeft string
	b.step(t, "the stepper moves on",
		chromedp.Poll(`[...document.querySelectorAll('#stepper .room-step')].map(li => li.dataset.state).join() === 'done,current,upcoming,upcoming'`, nil, chromedp.WithPollingTimeout(stepTimeout)),
		chromedp.WaitVisible(`#total-wrap`, chromedp.ByID),
		chromedp.Text(`#total-left`, &totalLeft, chromedp.ByID),
	)
	if !strings.HasSuffix(totalLeft, " min") {
		t.Errorf("time left in the interview %q, want minutes", totalLeft)
	}
	b.shotEverywhere(t, "next-stage")

	// 6. A reload: the earlier captions come back, the greeting marked as
	// interrupted (as if the candidate had cut it off).
	b.step(t, "reload", chromedp.Reload(), chromedp.WaitVisible(`#join`, chromedp.ByID))
	sys.record(t, created.ID, 30*time.Second, "saved as the candidate left", func(r *interviews.Record) bool {
		return r.Status == interviews.StatusCandidateLeft
	})
	const cut = "Hello Mary, I'm Ava"
	if _, err := sys.store.Update(t.Context(), created.ID, func(r *interviews.Record) error {
		r.Turns[0].Text, r.Turns[0].Interrupted = cut, true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var consented bool
	b.step(t, "the agreement stands", chromedp.Evaluate(`document.getElementById('consent').checked && !document.getElementById('join').disabled`, &consented))
	if !consented {
		t.Error("after a reload the page asks for the agreement again")
	}
	var restored []struct {
		Speaker     string `json:"speaker"`
		Text        string `json:"text"`
		Interrupted bool   `json:"interrupted"`
		Mark        bool   `json:"mark"`
	}
	b.step(t, "join again: the captions are back",
		chromedp.Click(`#join`, chromedp.ByID),
		chromedp.WaitVisible(`#live`, chromedp.ByID),
		chromedp.WaitVisible(`.room-caption[data-restored="true"]`, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll('.room-caption[data-restored="true"]')].map(el => ({
			speaker: el.dataset.speaker, text: el.querySelector('.room-caption-text').textContent,
			interrupted: el.dataset.interrupted === 'true', mark: !el.querySelector('.room-caption-mark').hidden}))`, &restored),
	)
	if len(restored) < 3 || restored[0].Text != cut || !restored[0].Interrupted || !restored[0].Mark || restored[0].Speaker != "agent" {
		t.Fatalf("restored captions %+v; want the cut greeting first, marked interrupted", restored)
	}
	found := false
	for _, c := range restored {
		found = found || (c.Speaker == "you" && c.Text == typedAnswer)
	}
	if !found {
		t.Errorf("the candidate's answer is not among the restored captions %+v", restored)
	}
	b.step(t, "welcomed back", waitCaption(func(c caption) bool { return c.Speaker == "agent" && strings.HasPrefix(c.Text, "Welcome back, Mary.") }))
	b.shotEverywhere(t, "restored-captions")

	// 7. A candidate's other pages carry the brand and none of the staff's links.
	var staffLinks int
	var header string
	b.step(t, "a link that is not valid",
		chromedp.Navigate(sys.web.URL+"/interview/0000000000000000"),
		chromedp.WaitVisible(`.site-header-candidate`, chromedp.ByQuery),
		chromedp.Text(`.site-header-candidate`, &header, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('a[href="/"], a[href="/review"], .site-nav').length`, &staffLinks),
	)
	if strings.TrimSpace(header) != e2eBrand || staffLinks != 0 {
		t.Errorf("the not-found page's header reads %q with %d staff links", header, staffLinks)
	}
	b.shotEverywhere(t, "not-found")
	if strings.Contains(b.log(), "favicon") {
		t.Errorf("the browser reports a favicon problem:\n%s", b.log())
	}
	b.checkClean(t)
}
