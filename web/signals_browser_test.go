package web_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/viva-interviews/viva/interviews"
)

// TestRoomReportsFocusAndPaste: in headless Chromium, a candidate who
// reads the notice (it says what is observed), joins, whose window loses
// focus for a few seconds, comes back and pastes an answer into the box has
// both noted beside that answer in the record: how long the interview's
// tab was hidden, and how many characters were pasted (never the text).
func TestRoomReportsFocusAndPaste(t *testing.T) {
	var notice string
	sys := startSystem(t)
	b, created := joinTyping(t, sys, "Grace", "Compiler engineer", chromedp.Text(`#consent-text`, &notice, chromedp.ByID))
	for _, want := range []string{"loses focus", "pasted into the answer box", "never a verdict"} {
		if !strings.Contains(notice, want) {
			t.Errorf("the consent notice does not say what is observed (%q): %q", want, notice)
		}
	}

	// The window loses focus for a few seconds and gets it back.
	// Headless Chromium keeps every tab focused and visible (a second tab
	// brought to the front, a minimised window change neither), so the
	// browser's own blur and focus events are sent to the window here.
	b.step(t, "the window loses focus",
		chromedp.Evaluate(`window.vivaAway = Date.now(), window.dispatchEvent(new FocusEvent('blur')), true`, nil),
		// Away long enough to be worth noting (signals.js MIN_FOCUS_LOSS_MS).
		chromedp.Poll(`Date.now() - window.vivaAway > 3000`, nil, chromedp.WithPollingTimeout(stepTimeout)),
		chromedp.Evaluate(`window.dispatchEvent(new FocusEvent('focus')), true`, nil),
	)

	// The answer is copied from elsewhere on the page and pasted.
	const pasted = "I wrote the first compiler and I have a lot to say about it."
	b.step(t, "paste an answer",
		chromedp.Evaluate(`(() => { const t = document.createElement('textarea'); t.id = 'clip'; t.value = `+strconv.Quote(pasted)+`; document.body.append(t); t.select(); return true; })()`, nil),
		chromedp.ActionFunc(func(ctx context.Context) error { return editCommand(ctx, "copy") }),
		chromedp.Evaluate(`document.getElementById('clip').remove(), document.getElementById('chat-input').focus(), true`, nil),
		chromedp.ActionFunc(func(ctx context.Context) error { return editCommand(ctx, "paste") }),
		chromedp.Poll(`document.getElementById('chat-input').value.length > 0`, nil, chromedp.WithPollingTimeout(stepTimeout)),
		chromedp.Click(`#chat-send`, chromedp.ByID),
	)
	rec := sys.record(t, created.ID, stepTimeout, "the answer with its signals", func(r *interviews.Record) bool {
		for _, turn := range r.Turns {
			if turn.Role == interviews.RoleCandidate && len(r.SignalsOf(turn.Seq)) >= 2 {
				return true
			}
		}
		return false
	})
	var answer interviews.Turn
	for _, turn := range rec.Turns {
		if turn.Role == interviews.RoleCandidate {
			answer = turn
		}
	}
	if answer.Text != pasted {
		t.Errorf("the answer recorded is %q, want the pasted %q", answer.Text, pasted)
	}
	var focus, paste *interviews.Signal
	for _, s := range rec.SignalsOf(answer.Seq) {
		t.Logf("beside the answer: %s", s.Describe())
		switch s.Kind {
		case interviews.SignalFocusLost:
			focus = &s
		case interviews.SignalPaste:
			paste = &s
		}
	}
	if focus == nil || focus.Ms < 3000 {
		t.Errorf("focus loss noted %+v, want one of at least 3 s", focus)
	}
	if paste == nil || paste.Chars != len(pasted) {
		t.Errorf("paste noted %+v, want %d characters", paste, len(pasted))
	}
	b.checkClean(t)

	// The reviewer reads both beside the answer, as context.
	var beside string
	b.step(t, "the reviewer's timeline",
		signIn(sys.web.URL+"/review/login", e2eReviewer),
		chromedp.WaitNotPresent(`#password`, chromedp.ByID),
		chromedp.Navigate(sys.web.URL+"/review/"+created.ID),
		chromedp.Text(`#turn-`+strconv.Itoa(answer.Seq)+` .signals`, &beside, chromedp.ByQuery),
	)
	for _, want := range []string{"Context, not a verdict", "lost focus for", "Text of 60 characters was pasted"} {
		if !strings.Contains(beside, want) {
			t.Errorf("beside the answer on the reviewer's page: %q, want %q in it", beside, want)
		}
	}
}

// joinTyping registers a candidate of first name first, opens their link
// in a phone-sized Chromium with a silent microphone, runs before (on the
// join page), agrees, joins and waits for the greeting.
func joinTyping(t *testing.T, sys *system, first, role string, before ...chromedp.Action) (*browser, registered) {
	t.Helper()
	created := sys.register(t, first+" Tester", role)
	b := newBrowser(t, fakeMicrophone(micFile(t, time.Second, nil, 16000))...)
	b.step(t, "join", append(append([]chromedp.Action{chromedp.Navigate(created.JoinURL)}, before...),
		agree,
		chromedp.Click(`#join`, chromedp.ByID),
		chromedp.WaitVisible(`#live`, chromedp.ByID),
		chromedp.WaitEnabled(`#chat-input`, chromedp.ByID),
		waitCaption(func(c caption) bool { return c.Speaker == "agent" && strings.Contains(c.Text, "Hello "+first) }),
	)...)
	return b, created
}

// editCommand runs an editing command (copy, paste) as its keyboard
// shortcut would in the focused page.
func editCommand(ctx context.Context, cmd string) error {
	key := map[string]string{"copy": "c", "paste": "v"}[cmd]
	down := input.DispatchKeyEvent(input.KeyDown).WithKey(key).WithModifiers(input.ModifierCtrl).WithCommands([]string{cmd})
	if err := down.Do(ctx); err != nil {
		return err
	}
	return input.DispatchKeyEvent(input.KeyUp).WithKey(key).WithModifiers(input.ModifierCtrl).Do(ctx)
}
