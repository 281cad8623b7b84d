package worker

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
	"github.com/viva-interviews/viva/stages"
)

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
// It returns the sentence the candidate is told (lang.RefusePlan, in the
// interview's language) and the reason, or "" and nil when the plan can
// run.
func (s *Sessions) refusePlan(ctx context.Context, rec *interviews.Record, bp *stages.Blueprint, owner string, log *slog.Logger) (string, error) {
	cause := planUnfit(rec, bp)
	if cause == nil {
		return "", nil
	}
	msg := lang.Text(agent.InterviewLanguage(rec, bp), lang.RefusePlan)
	log.Error("rejecting job: the interview's plan cannot run", "err", cause, "told", msg)
	rec.Finish(interviews.StatusFailed, interviews.EndedPlanRefused, time.Now().UTC().Round(0))
	rec.Error = cause.Error()
	if err := s.Store.Save(ctx, rec); err != nil {
		log.Error("could not save the interview as failed", "err", err)
	}
	if err := s.Store.ReleaseLease(ctx, rec.ID, owner); err != nil {
		log.Error("could not release the interview's lease; it lapses on its own", "err", err)
	}
	return msg, fmt.Errorf("the interview's plan cannot run: %w", cause)
}
