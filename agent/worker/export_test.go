package worker

import "github.com/viva-interviews/viva/interviews/lang"

// MsgLeaseHeld is the sentence a candidate is told when the interview is
// already running in another session, for the tests of package worker_test.
var MsgLeaseHeld = lang.Text("", lang.RefuseLeaseHeld)

// MsgRevoked and MsgFinished are what a candidate is told when the
// interview's link was withdrawn or the interview is over.
var (
	MsgRevoked  = lang.Text("", lang.RefuseRevoked)
	MsgFinished = lang.Text("", lang.RefuseFinished)
)

// MsgNoDesign is what a candidate is told when the interview's designs
// are not in the library.
var MsgNoDesign = lang.Text("", lang.RefuseNoDesign)
