package worker

// MsgLeaseHeld is the sentence a candidate is told when the interview is
// already running in another session, for the tests of package worker_test.
const MsgLeaseHeld = msgLeaseHeld
