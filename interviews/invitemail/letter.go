package invitemail

import (
	"time"

	"github.com/viva-interviews/viva/interviews"
)

// Letter is what an invitation or reminder says to one candidate.
type Letter struct {
	// Candidate is who is invited.
	Candidate interviews.Candidate
	// Brand is the company; empty says "the company".
	Brand string
	// Link is the candidate's join link.
	Link string
	// Length is the interview's planned length; zero leaves it out.
	Length time.Duration
	// ExpiresAt is when the link lapses; nil leaves it out.
	ExpiresAt *time.Time
}

// Compose is the subject and text of the email of kind
// (interviews.MailInvitation or MailReminder); the recruiter's "email the
// link" draft uses the invitation's words too.
func Compose(kind string, l Letter) (subject, text string) {
	brand := l.Brand
	if brand == "" {
		brand = "the company"
	}
	subject = "Your interview"
	if l.Candidate.Role != "" {
		subject += " for the " + l.Candidate.Role + " role"
	}
	opening := "Your interview with " + brand + " is ready."
	if kind == interviews.MailReminder {
		subject = "Reminder: " + subject
		opening = "A reminder: your interview with " + brand + " is waiting for you."
	}
	text = "Hello " + l.Candidate.Name + ",\n\n" + opening +
		" Open this link in Chrome, Edge, Firefox or Safari, allow the microphone (or type your answers), and the interviewer will greet you:\n\n" +
		l.Link + "\n\n"
	if l.Length > 0 {
		text += "Find a quiet place and plan for about " + interviews.LengthInWords(l.Length) + ".\n"
	} else {
		text += "Find a quiet place before you start.\n"
	}
	if l.ExpiresAt != nil {
		text += "The link works until " + l.ExpiresAt.UTC().Format("Monday 2 January 2006, 15:04 MST") + ".\n"
	}
	text += "\nThis link is yours alone; keep it private.\n"
	return subject, text
}
