// Package browsertest holds what the headless-Chromium tests of the web
// pages share: the screen sizes and colour schemes every page is checked
// and photographed at, and the emulation that sets them.
package browsertest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// ChromiumPath is Debian's chromium package.
const ChromiumPath = "/usr/bin/chromium"

// Start runs headless Chromium with a fresh profile at size, with the
// extra options, and returns its first tab's context; the browser is
// stopped and its profile removed when the test ends.
func Start(t testing.TB, size ScreenSize, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		t.Fatalf("%s is missing: install Debian's chromium package (scripts/deps.sh does)", ChromiumPath)
	}
	profile, err := os.MkdirTemp("", "viva-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	// Registered before the browser's own cleanup, so it runs after it:
	// Chromium's helpers may write to the profile for a moment after the
	// browser exits, so removal is retried for a while.
	t.Cleanup(func() {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if os.RemoveAll(profile) == nil {
				return
			}
		}
	})
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(ChromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile), chromedp.WindowSize(int(size.Width), int(size.Height)),
		// A loaded machine may take a while to start Chromium.
		chromedp.WSURLReadTimeout(2*time.Minute))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(opts, extra...)...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("starting %s: %v", ChromiumPath, err)
	}
	return ctx
}

// ScreenSize is a screen the pages are checked at, in CSS pixels.
type ScreenSize struct {
	Name          string
	Width, Height int64
	Mobile        bool
}

// ScreenSizes are a desktop and a phone; the desktop comes first.
var ScreenSizes = []ScreenSize{{"desktop", 1280, 900, false}, {"phone", 390, 844, true}}

// Desktop is the first of ScreenSizes.
var Desktop = ScreenSizes[0]

// ColourSchemes are the system preferences the pages follow.
var ColourSchemes = []string{"light", "dark"}

// Emulate sets the viewport to size and the colour scheme preference.
func Emulate(size ScreenSize, scheme string) chromedp.Tasks {
	return chromedp.Tasks{emulation.SetDeviceMetricsOverride(size.Width, size.Height, 1, size.Mobile), PrefersColourScheme(scheme)}
}

// PrefersColourScheme emulates the system's light or dark preference.
func PrefersColourScheme(scheme string) chromedp.Action {
	return emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}})
}
