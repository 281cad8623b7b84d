package worker

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// msgPlanRefused is what the candidate is told when the interview's plan
// cannot run.
const msgPlanRefused = "Sorry, this interview was set up with a plan the interviewer cannot run, so it cannot start; please contact the recruiter."

// planUnfit says why the interview's plan cannot run on its blueprint: a
// role template the blueprint asks no questions of, or a design problem
// its pool lacks; nil when it can.
func planUnfit(rec *interviews.Record, bp *stages.Blueprint) error {
	if rec.Template != "" {
		if err := bp.TakesTemplate(); err != nil {
			return fmt.Errorf("role template %q: %w", rec.Template, err)
		}
	}
	if rec.Problem != "" {
		if _, err := bp.FindProblem(rec.Problem); err != nil {
			return err
		}
	}
	return nil
}

// refusePlan ends an interview whose plan cannot run before anything is
// said: the record is saved failed with the reason, the lease released.
// It returns the sentence the candidate is told and the reason, or "" and
// nil when the plan can run.
func (s *Sessions) refusePlan(ctx context.Context, rec *interviews.Record, bp *stages.Blueprint, owner string, log *slog.Logger) (string, error) {
	cause := planUnfit(rec, bp)
	if cause == nil {
		return "", nil
	}
	log.Error("rejecting job: the interview's plan cannot run", "err", cause, "told", msgPlanRefused)
	rec.Finish(interviews.StatusFailed, interviews.EndedPlanRefused, time.Now().UTC().Round(0))
	rec.Error = cause.Error()
	if err := s.Store.Save(ctx, rec); err != nil {
		log.Error("could not save the interview as failed", "err", err)
	}
	if err := s.Store.ReleaseLease(ctx, rec.ID, owner); err != nil {
		log.Error("could not release the interview's lease; it lapses on its own", "err", err)
	}
	return msgPlanRefused, fmt.Errorf("the interview's plan cannot run: %w", cause)
}
