package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestRoomOnATouchPhone: on a phone's touch screen, the answer box stays
// on screen however long the captions grow, wherever the page is
// scrolled, and ending asks to tap (not click) again.
func TestRoomOnATouchPhone(t *testing.T) {
	var coarse bool
	b, _ := joinTyping(t, startSystem(t), "Katherine", "Mathematician",
		chromedp.ActionFunc(func(ctx context.Context) error {
			return emulation.SetTouchEmulationEnabled(true).WithMaxTouchPoints(5).Do(ctx)
		}),
		chromedp.Reload(),
		chromedp.Evaluate(`matchMedia('(pointer: coarse)').matches`, &coarse),
	)
	if !coarse {
		t.Fatal("the emulated touch screen does not match (pointer: coarse)")
	}
	// Long typed answers fill the captions.
	long := strings.Repeat("I measured the trajectory by hand and checked it twice. ", 12)
	for range 3 {
		b.step(t, "type a long answer",
			chromedp.SendKeys(`#chat-input`, long, chromedp.ByID),
			chromedp.Click(`#chat-send`, chromedp.ByID),
			chromedp.Poll(`document.getElementById('chat-input').value === ''`, nil, chromedp.WithPollingTimeout(stepTimeout)),
		)
	}
	for _, at := range []string{"top", "bottom"} {
		var inView bool
		b.step(t, "scroll to the "+at,
			chromedp.Evaluate(`window.scrollTo(0, `+map[string]string{"top": "0", "bottom": "document.body.scrollHeight"}[at]+`), true`, nil),
			chromedp.Evaluate(`(() => { const r = document.getElementById('chat-input').getBoundingClientRect();
  return r.top >= 0 && r.bottom <= window.innerHeight; })()`, &inView),
		)
		b.shot(t, "scrolled-"+at)
		if !inView {
			t.Errorf("scrolled to the %s, the answer box is off screen", at)
		}
	}
	var label, hint string
	b.step(t, "arm End interview",
		chromedp.Click(`#end`, chromedp.ByID),
		chromedp.Poll(`document.getElementById('end').dataset.armed === 'true'`, nil, chromedp.WithPollingTimeout(stepTimeout)),
		chromedp.Text(`#end`, &label, chromedp.ByID),
		chromedp.Text(`#end-hint`, &hint, chromedp.ByID),
	)
	if label != "Tap again to end" || !strings.HasPrefix(hint, "Tap again") {
		t.Errorf("on a touch screen End says %q and %q, want Tap again to end", label, hint)
	}
	b.checkClean(t)
}
