package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/viva-interviews/viva/internal/sandbox"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
)

// fieldErrors maps field names to what is wrong with each: the
// candidate's (interviews.Candidate.Validate) and the registration's own.
type fieldErrors = interviews.FieldErrors

// validated is a registration that passed validation, ready to store.
type validated struct {
	candidate      interviews.Candidate
	blueprint      string
	jobDescription string
	resumeText     string
	resumeSource   string // the file name the text came from; empty for pasted text
	template       string
	language       string
	problem        string
	brief          string
	keys           interviews.Keys
	options        *interviews.Options // nil for none
}

// validate checks and normalises a submission: the candidate as
// interviews.Candidate has it (Normalize, Validate), a known blueprint, a job
// description and a résumé within their limits. It extracts the text of an
// uploaded résumé; when another field is wrong, that text is kept in
// sub.reg.ResumeText so the form can show it instead of asking for the
// file again.
func (s *registrar) validate(ctx context.Context, sub *submission) (*validated, fieldErrors) {
	errs := fieldErrors{}
	in := &sub.reg
	v := &validated{}

	v.candidate = interviews.Candidate{Name: in.Name, Email: in.Email, Role: in.Role, Level: in.Level}
	v.candidate.Normalize()
	in.Name, in.Email, in.Role, in.Level = v.candidate.Name, v.candidate.Email, v.candidate.Role, v.candidate.Level
	if fe, ok := errors.AsType[interviews.FieldErrors](v.candidate.Validate()); ok {
		maps.Copy(errs, fe)
	}

	cur := s.plans.current(ctx)
	cur.checkPlan(in, errs)
	v.blueprint, v.template, v.problem = in.Blueprint, in.Template, in.Problem

	s.validateBrief(cur, sub, errs)
	v.brief = in.Brief

	in.JobDescription = strings.TrimSpace(normalizeNewlines(in.JobDescription))
	if !utf8.ValidString(in.JobDescription) {
		in.JobDescription = strings.ToValidUTF8(in.JobDescription, "")
	}
	if n := utf8.RuneCountInString(in.JobDescription); n > interviews.MaxJobDescriptionLen {
		errs[fieldJobDesc] = fmt.Sprintf("The job description has %s characters; shorten it to %s or fewer",
			thousands(n), thousands(interviews.MaxJobDescriptionLen))
	}
	v.jobDescription = in.JobDescription

	s.checkResume(ctx, sub, v, errs)

	s.checkKeys(in, v, errs)
	v.language = s.checkLanguage(ctx, in, v.keys, errs)
	v.options = checkInterviewOptions(in, errs)
	if len(errs) > 0 {
		return nil, errs
	}
	return v, nil
}

// checkPlan checks the chosen blueprint (default: the first offered) and
// role template against those offered and each other.
func (s *plans) checkPlan(in *registration, errs fieldErrors) {
	in.Blueprint = interviews.CleanLine(in.Blueprint)
	if in.Blueprint == "" {
		in.Blueprint = s.blueprints[0].Name
	}
	if !slices.ContainsFunc(s.blueprints, func(b blueprintOption) bool { return b.Name == in.Blueprint }) {
		errs[fieldBlueprint] = "Choose one of the interview plans offered: " + strings.Join(s.blueprintNames(), ", ")
	}

	in.Template = interviews.CleanLine(in.Template)
	if in.Template != "" && !slices.ContainsFunc(s.templates, func(t TemplateChoice) bool { return t.Name == in.Template }) {
		if len(s.templates) == 0 {
			errs[fieldTemplate] = "This server offers no role templates: leave the template empty"
		} else {
			errs[fieldTemplate] = "Choose one of the role templates offered: " + strings.Join(s.templateNames(), ", ")
		}
	}
	if i := slices.IndexFunc(s.blueprints, func(b blueprintOption) bool { return b.Name == in.Blueprint }); in.Template != "" && errs[fieldTemplate] == "" && i >= 0 && s.blueprints[i].NoTemplate != "" {
		errs[fieldTemplate] = "The " + s.blueprints[i].Title + " plan asks no role template's questions: leave the template empty, or choose another plan"
	}
	s.checkProblem(in, errs)
}

// checkProblem checks the chosen design problem against the chosen
// plan's pool; empty draws one when the interview starts.
func (s *plans) checkProblem(in *registration, errs fieldErrors) {
	in.Problem = strings.ToLower(interviews.CleanLine(in.Problem))
	i := slices.IndexFunc(s.blueprints, func(b blueprintOption) bool { return b.Name == in.Blueprint })
	if in.Problem == "" || i < 0 {
		return
	}
	b := s.blueprints[i]
	switch {
	case len(b.Problems) == 0:
		errs[fieldProblem] = "The " + b.Title + " plan has no design problems to choose from: leave the problem empty, or choose a plan that has some"
	case !slices.ContainsFunc(b.Problems, func(p problemOption) bool { return p.ID == in.Problem }):
		ids := make([]string, len(b.Problems))
		for j, p := range b.Problems {
			ids[j] = p.ID
		}
		errs[fieldProblem] = "Choose one of the " + b.Title + " plan's problems: " + strings.Join(ids, ", ") + ", or leave it empty to draw one"
	}
}

// checkResume reads the résumé: the text of an uploaded file (kept in
// sub.reg.ResumeText so the form can show it) or the pasted text, within
// its limit.
func (s *registrar) checkResume(ctx context.Context, sub *submission, v *validated, errs fieldErrors) {
	in := &sub.reg
	in.ResumeText = normalizeText(in.ResumeText)
	switch f := sub.file; {
	case f != nil && f.tooLarge:
		errs[fieldResume] = msgResumeTooLarge
	case f != nil:
		ctx, cancel := context.WithTimeout(ctx, resumeReadTimeout)
		text, err := ExtractResume(ctx, f.name, f.data)
		cancel()
		if re, ok := errors.AsType[*ResumeError](err); ok {
			errs[fieldResume] = re.Message
			// The cause is not logged: parser messages may quote the file.
			attrs := []any{"file_type", strings.ToLower(pathExt(f.name)), "size", len(f.data), "reason", re.Message}
			if je, ok := errors.AsType[*sandbox.JobError](err); ok && je.Reason != sandbox.ReasonJob {
				attrs = append(attrs, "stopped_by", string(je.Reason)) // a file built to exhaust the parser
			}
			s.log.Info("web: résumé refused", attrs...)
			break
		} else if err != nil {
			errs[fieldResume] = msgResumeBadPDF
			break
		}
		in.ResumeText, v.resumeSource = text, f.name
	}
	if len(in.ResumeText) > interviews.MaxResumeTextLen {
		errs[fieldResumeText] = msgResumeTextLarge
	}
	v.resumeText = in.ResumeText
}

// checkLanguage checks the interview's language: a tag of a language
// viva ships (lang.Parse), or the plan's when none is chosen, that the
// interviewer's engines (the server's, or the interview's own keys') can
// speak. It returns the tag, "" for the plan's English.
func (s *plans) checkLanguage(ctx context.Context, in *registration, keys interviews.Keys, errs fieldErrors) string {
	tag, err := lang.Parse(in.Language)
	if err != nil {
		errs[fieldLanguage] = err.Error()
		return ""
	}
	in.Language = tag
	if tag == "" && errs[fieldBlueprint] == "" {
		if b, _, err := (interviews.Library{Store: s.designs}).Blueprint(ctx, in.Blueprint, ""); err == nil {
			tag, _ = lang.Parse(b.Language)
		}
	}
	if s.speaks != nil {
		if err := s.speaks(tag, keys); err != nil {
			errs[fieldLanguage] = err.Error()
		}
	}
	return tag
}

// checkKeys checks the interview's own provider keys: their shape, and
// that the store can keep them.
func (s *registrar) checkKeys(in *registration, v *validated, errs fieldErrors) {
	in.OpenAIAPIKey, in.DeepgramAPIKey = strings.TrimSpace(in.OpenAIAPIKey), strings.TrimSpace(in.DeepgramAPIKey)
	v.keys = in.keys()
	if !v.keys.Empty() && !s.store.KeepsKeys() {
		msg := "This server cannot keep interview keys: its operator must set VIVA_SECRETS_KEY (for the web app and the worker). Leave the key fields empty to use the server's own engines."
		for field, key := range map[string]string{fieldOpenAIKey: in.OpenAIAPIKey, fieldDeepgramKey: in.DeepgramAPIKey} {
			if key != "" {
				errs[field] = msg
			}
		}
	} else {
		if msg := checkProviderKey(in.OpenAIAPIKey, openAIKeyPrefix, "An OpenAI API key"); msg != "" {
			errs[fieldOpenAIKey] = msg
		}
		if msg := checkProviderKey(in.DeepgramAPIKey, "", "A Deepgram API key"); msg != "" {
			errs[fieldDeepgramKey] = msg
		}
	}
}

// checkProviderKey says what is wrong with the shape of a provider key
// (empty is fine: the key is optional); what names the key in the message.
// The message never quotes the key.
func checkProviderKey(key, prefix, what string) string {
	switch {
	case key == "":
		return ""
	case !strings.HasPrefix(key, prefix):
		return what + " starts with " + strconv.Quote(prefix) + ": paste the whole key from the provider's dashboard"
	case len(key) < minProviderKeyLen || len(key) > maxProviderKeyLen:
		return fmt.Sprintf("%s is %d to %d characters long: paste the whole key from the provider's dashboard", what, minProviderKeyLen, maxProviderKeyLen)
	}
	for _, c := range key {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return what + " has only letters, digits, '-' and '_': paste the whole key and nothing else"
		}
	}
	return ""
}

// validateBrief checks the brief, typed or uploaded (an uploaded one's
// text is kept in sub.reg.Brief): text within interviews.MaxBriefLen characters,
// required by a knowledge-capture plan and refused by any other.
func (s *registrar) validateBrief(cur *plans, sub *submission, errs fieldErrors) {
	in := &sub.reg
	in.Brief = strings.TrimSpace(normalizeNewlines(in.Brief))
	if f := sub.brief; f != nil {
		switch {
		case !slices.Contains(briefFileExts, strings.ToLower(pathExt(f.name))):
			errs[fieldBriefFile] = "The brief must be a Markdown (.md) or plain text (.txt) file: save it as one, or paste its text below"
			return
		case f.tooLarge:
			errs[fieldBriefFile] = fmt.Sprintf("The brief file is larger than %d KB: a brief has at most %s characters; shorten it", maxBriefFileSize>>10, thousands(interviews.MaxBriefLen))
			return
		case !utf8.Valid(f.data) || bytes.IndexByte(f.data, 0) >= 0:
			errs[fieldBriefFile] = "The brief file is not text: save it as Markdown or plain text (UTF-8) and upload it again"
			return
		case in.Brief != "":
			errs[fieldBriefFile] = "Give the brief either as a file or as text, not both: clear the text or leave out the file"
			return
		}
		in.Brief = strings.TrimSpace(normalizeNewlines(strings.TrimPrefix(string(f.data), "\uFEFF")))
	}
	if !utf8.ValidString(in.Brief) {
		in.Brief = strings.ToValidUTF8(in.Brief, "")
	}
	i := slices.IndexFunc(cur.blueprints, func(b blueprintOption) bool { return b.Name == in.Blueprint })
	capture := i >= 0 && cur.blueprints[i].KnowledgeCapture
	switch n := utf8.RuneCountInString(in.Brief); {
	case n > interviews.MaxBriefLen:
		errs[fieldBrief] = fmt.Sprintf("The brief has %s characters; shorten it to %s or fewer", thousands(n), thousands(interviews.MaxBriefLen))
	case n == 0 && capture:
		errs[fieldBrief] = "A knowledge-capture interview needs a brief: write the topics to cover, as headings and bullet points, or upload a .md or .txt file"
	case n > 0 && i >= 0 && !capture:
		errs[fieldBrief] = "Only a knowledge-capture plan uses a brief: choose one, or leave the brief empty"
	}
}

// normalizeNewlines turns CRLF and CR line ends (browsers send CRLF) into
// LF, so limits count a line break as one character.
func normalizeNewlines(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

func pathExt(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 && !strings.ContainsAny(name[i:], `/\`) {
		return name[i:]
	}
	return ""
}

// thousands formats n with comma separators, "20,000".
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// checkInterviewOptions reads the interview's options: the feedback page and its
// scores ("yes", "no" or empty for the blueprint's choice) and the
// expected length in whole minutes.
func checkInterviewOptions(in *registration, errs fieldErrors) *interviews.Options {
	var o interviews.Options
	yesNo := func(field, v string) *bool {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "":
			return nil
		case "yes", "on", "true":
			return new(true)
		case "no", "off", "false":
			return new(false)
		}
		errs[field] = "Choose yes, no, or leave it to the interview plan"
		return nil
	}
	o.Feedback = yesNo(fieldFeedback, in.Feedback)
	o.FeedbackScores = yesNo(fieldFeedbackScores, in.FeedbackScores)
	if m := strings.TrimSpace(in.LengthMinutes); m != "" {
		n, err := strconv.Atoi(m)
		if err != nil || time.Duration(n)*time.Minute < interviews.MinLength || time.Duration(n)*time.Minute > interviews.MaxLength {
			errs[fieldLength] = fmt.Sprintf("Enter the expected length in whole minutes, from %d to %d, or leave it empty for the plan's own timings",
				int(interviews.MinLength.Minutes()), int(interviews.MaxLength.Minutes()))
		}
		o.Length = time.Duration(n) * time.Minute
	}
	if err := o.Validate(); err != nil && errs[fieldLength] == "" && errs[fieldFeedbackScores] == "" {
		errs[fieldFeedbackScores] = "The scores are shown on the feedback page: turn the page on, or the scores off"
	}
	if o.IsZero() {
		return nil
	}
	return &o
}
