package worker

// MsgLeaseHeld is the sentence a candidate is told when the interview is
// already running in another session, for the tests of package worker_test.
const MsgLeaseHeld = msgLeaseHeld

// MsgRevoked and MsgFinished are what a candidate is told when the
// interview's link was withdrawn or the interview is over.
const (
	MsgRevoked  = msgRevoked
	MsgFinished = msgFinished
)

// MsgNoDesign is what a candidate is told when the interview's designs
// are not in the library.
const MsgNoDesign = msgNoDesign
