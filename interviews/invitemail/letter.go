package invitemail

import (
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
)

// Letter is what an invitation or reminder says to one candidate.
type Letter struct {
	// Candidate is who is invited.
	Candidate interviews.Candidate
	// Lang is the interview's language (a BCP 47 tag, "" for English):
	// the letter is written in it, dates and lengths too.
	Lang string
	// Brand is the company; empty says "the company".
	Brand string
	// Link is the candidate's join link.
	Link string
	// Length is the interview's planned length; zero leaves it out.
	Length time.Duration
	// ExpiresAt is when the link lapses; nil leaves it out.
	ExpiresAt *time.Time
}

// LetterOf is the letter of rec's interview from brand with the join link
// and the planned length: what Compose writes to its candidate.
func LetterOf(rec *interviews.Record, brand, link string, length time.Duration) Letter {
	return Letter{Candidate: rec.Candidate, Lang: rec.Language, Brand: brand, Link: link, Length: length, ExpiresAt: rec.ExpiresAt}
}

// Compose is the subject and text of the email of kind
// (interviews.MailInvitation or MailReminder), in the letter's language;
// the recruiter's "email the link" draft uses the invitation's words too.
func Compose(kind string, l Letter) (subject, text string) {
	tag := l.Lang
	brand := l.Brand
	if brand == "" {
		brand = lang.Text(tag, lang.MailTheCompany)
	}
	subject = lang.Text(tag, lang.MailInviteSubject)
	if l.Candidate.Role != "" {
		subject = lang.Textf(tag, lang.MailInviteSubjectRolef, l.Candidate.Role)
	}
	opening := lang.Textf(tag, lang.MailInviteOpeningf, brand)
	if kind == interviews.MailReminder {
		subject = lang.Textf(tag, lang.MailReminderSubjectf, subject)
		opening = lang.Textf(tag, lang.MailReminderOpeningf, brand)
	}
	text = lang.Textf(tag, lang.MailHellof, l.Candidate.Name) + "\n\n" + opening + " " + lang.Text(tag, lang.MailHowToJoin) + "\n\n" +
		l.Link + "\n\n"
	if l.Length > 0 {
		text += lang.Textf(tag, lang.MailPlanAboutf, lang.Minutes(tag, l.Length)) + "\n"
	} else {
		text += lang.Text(tag, lang.MailQuietPlace) + "\n"
	}
	if l.ExpiresAt != nil {
		text += lang.Textf(tag, lang.MailLinkUntilf, lang.DateTime(tag, *l.ExpiresAt)) + "\n"
	}
	text += "\n" + lang.Text(tag, lang.MailPrivate) + "\n"
	return subject, text
}
