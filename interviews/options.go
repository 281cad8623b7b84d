package interviews

import (
	"fmt"
	"math"
	"time"

	"github.com/viva-interviews/viva/stages"
)

// The bounds of Options.Length.
const (
	MinLength = 5 * time.Minute
	MaxLength = 3 * time.Hour
)

// Options are the choices a recruiter makes for one interview at
// registration, over its blueprint's own settings. The zero value keeps
// the blueprint as written.
type Options struct {
	// Feedback, when set, says whether the candidate gets their feedback
	// page at the end (a practice interview), whatever the blueprint's
	// candidate_feedback says; nil follows the blueprint.
	Feedback *bool `json:"feedback,omitempty"`
	// FeedbackScores, when set, says whether that page shows the scores;
	// nil follows the blueprint. Scores are shown only with the page.
	FeedbackScores *bool `json:"feedback_scores,omitempty"`
	// Length is the interview's expected length: every stage's limit and
	// minimum time are scaled so that the limits add up to it. Zero keeps
	// the blueprint's timings. Nanoseconds in JSON.
	Length time.Duration `json:"length_ns,omitempty"`
}

// Clone returns a deep copy of o; nil for nil.
func (o *Options) Clone() *Options {
	if o == nil {
		return nil
	}
	c := *o
	if o.Feedback != nil {
		c.Feedback = new(*o.Feedback)
	}
	if o.FeedbackScores != nil {
		c.FeedbackScores = new(*o.FeedbackScores)
	}
	return &c
}

// IsZero reports whether o changes nothing.
func (o Options) IsZero() bool { return o.Feedback == nil && o.FeedbackScores == nil && o.Length == 0 }

// Validate checks o: a Length of zero or between MinLength and MaxLength,
// and scores only with the feedback page.
func (o Options) Validate() error {
	if o.Length != 0 && (o.Length < MinLength || o.Length > MaxLength) {
		return fmt.Errorf("interviews: the expected length %v is not between %v and %v: choose a length in that range, or none to keep the design's timings", o.Length, MinLength, MaxLength)
	}
	if o.FeedbackScores != nil && *o.FeedbackScores && o.Feedback != nil && !*o.Feedback {
		return fmt.Errorf("interviews: the feedback scores are shown on the candidate's feedback page, which is turned off: turn the page on, or the scores off")
	}
	return nil
}

// Apply changes bp, a copy the caller owns, as o asks: the feedback page
// and its scores, and the stage timings scaled to Length (rounded to the
// second, each limit at least a second).
func (o Options) Apply(bp *stages.Blueprint) {
	if o.Feedback != nil {
		bp.CandidateFeedback = *o.Feedback
		if !bp.CandidateFeedback {
			bp.FeedbackScores = false
		}
	}
	if o.FeedbackScores != nil {
		bp.FeedbackScores = *o.FeedbackScores && bp.CandidateFeedback
	}
	planned := PlannedLength(bp, 1)
	if o.Length == 0 || planned <= 0 {
		return
	}
	f := float64(o.Length) / float64(planned)
	scale := func(d time.Duration) time.Duration {
		return time.Duration(math.Round(float64(d)*f/float64(time.Second))) * time.Second
	}
	for i := range bp.Stages {
		st := &bp.Stages[i]
		st.Limit = max(scale(st.Limit), time.Second)
		st.MinTime = min(scale(st.MinTime), st.Limit-time.Second)
	}
}
