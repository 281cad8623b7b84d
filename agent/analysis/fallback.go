package analysis

import (
	"context"

	"github.com/viva-interviews/viva/interviews"
)

// WithFallback returns an Analyzer that asks primary and, when it fails,
// fallback (usually Rules), so an interview never goes without analysis
// because a model is down or keeps answering malformed JSON. onFallback,
// when not nil, is told which method (one of the Method* names) fell back
// and why, so the caller can record an incident. A cancelled context is
// returned as the primary's error, without falling back.
func WithFallback(primary, fallback Analyzer, onFallback func(method string, err error)) Analyzer {
	return fallbackAnalyzer{primary: primary, fallback: fallback, onFallback: onFallback}
}

type fallbackAnalyzer struct {
	primary, fallback Analyzer
	onFallback        func(method string, err error)
}

// fallBack runs the fallback when the primary failed for a reason other
// than the caller giving up.
func fallBack[T any](ctx context.Context, a fallbackAnalyzer, method string, res T, err error, fallback func() (T, error)) (T, error) {
	if err == nil || ctx.Err() != nil {
		return res, err
	}
	if a.onFallback != nil {
		a.onFallback(method, err)
	}
	return fallback()
}

// Answer asks the primary, then the fallback.
func (a fallbackAnalyzer) Answer(ctx context.Context, in AnswerInput) (AnswerResult, error) {
	res, err := a.primary.Answer(ctx, in)
	return fallBack(ctx, a, MethodAnswer, res, err, func() (AnswerResult, error) { return a.fallback.Answer(ctx, in) })
}

// Skills asks the primary, then the fallback.
func (a fallbackAnalyzer) Skills(ctx context.Context, resume, jobDescription string) ([]interviews.Skill, error) {
	res, err := a.primary.Skills(ctx, resume, jobDescription)
	return fallBack(ctx, a, MethodSkills, res, err, func() ([]interviews.Skill, error) { return a.fallback.Skills(ctx, resume, jobDescription) })
}

// Backlog asks the primary, then the fallback.
func (a fallbackAnalyzer) Backlog(ctx context.Context, brief string) ([]interviews.BacklogItem, error) {
	res, err := a.primary.Backlog(ctx, brief)
	return fallBack(ctx, a, MethodBacklog, res, err, func() ([]interviews.BacklogItem, error) { return a.fallback.Backlog(ctx, brief) })
}

// Phase asks the primary, then the fallback.
func (a fallbackAnalyzer) Phase(ctx context.Context, in PhaseInput) (interviews.Phase, error) {
	res, err := a.primary.Phase(ctx, in)
	return fallBack(ctx, a, MethodPhase, res, err, func() (interviews.Phase, error) { return a.fallback.Phase(ctx, in) })
}

// Missing asks the primary, then the fallback.
func (a fallbackAnalyzer) Missing(ctx context.Context, in MissingInput) ([]string, error) {
	res, err := a.primary.Missing(ctx, in)
	return fallBack(ctx, a, MethodMissing, res, err, func() ([]string, error) { return a.fallback.Missing(ctx, in) })
}

// Summarize asks the primary, then the fallback.
func (a fallbackAnalyzer) Summarize(ctx context.Context, in SummaryInput) (interviews.TopicSummary, error) {
	res, err := a.primary.Summarize(ctx, in)
	return fallBack(ctx, a, MethodSummarize, res, err, func() (interviews.TopicSummary, error) { return a.fallback.Summarize(ctx, in) })
}
