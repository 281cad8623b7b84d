package interviews

// The events a hiring system hears about an interview: the report runner
// raises the first two, a reviewer's decision the third, and package
// webhooks delivers them.
const (
	// EventInterviewCompleted: an interview ended and will get a report
	// (it completed, or the candidate left after answering enough).
	EventInterviewCompleted = "interview.completed"
	// EventReportReady: the interview's feedback report is ready.
	EventReportReady = "report.ready"
	// EventDecisionRecorded: a reviewer recorded a decision.
	EventDecisionRecorded = "decision.recorded"
)

// Notifier tells hiring systems about event concerning rec, in the
// background: Notify returns at once and never fails (a *webhooks.Sender
// is one; a nil *webhooks.Sender tells nobody).
type Notifier interface {
	Notify(event string, rec *Record)
}
