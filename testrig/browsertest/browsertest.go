// Package browsertest holds what the headless-Chromium tests of the web
// pages share: the screen sizes and colour schemes every page is checked
// and photographed at, and the emulation that sets them.
package browsertest

import (
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

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
