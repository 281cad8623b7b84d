package lkagent

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/livekit/protocol/livekit"
)

// Jobs: accepting an assignment, running its handler and reporting its
// status to the server.

// agentIdentity is the agent participant's identity for a job.
func agentIdentity(jobID string) string { return "agent-" + jobID }

// release frees a slot whose assignment never came.
func (w *Worker) release(id string) {
	if w.unreserve(id) {
		w.log.Warn("lkagent: accepted job was never assigned; slot released", "job_id", id)
	}
}

// startJob runs the handler for an assigned job.
func (w *Worker) startJob(a *livekit.JobAssignment) {
	raw := a.GetJob()
	id := raw.GetId()
	log := w.log.With("job_id", id, "room", raw.GetRoom().GetName())
	roomURL := w.roomURL
	if a.Url != nil && a.GetUrl() != "" {
		roomURL = a.GetUrl()
	}
	identity := raw.GetState().GetParticipantIdentity()
	if identity == "" {
		identity = agentIdentity(id)
	}

	w.mu.Lock()
	if t, ok := w.reserved[id]; ok {
		t.Stop()
		delete(w.reserved, id)
	}
	if _, dup := w.jobs[id]; dup || id == "" {
		w.mu.Unlock()
		log.Warn("lkagent: ignoring duplicate or anonymous job assignment")
		return
	}
	if w.closing {
		w.mu.Unlock()
		log.Warn("lkagent: job assigned while stopping; reporting it failed")
		w.sendJobStatus(id, livekit.JobStatus_JS_FAILED, ErrWorkerStopped.Error())
		return
	}
	ctx, cancel := context.WithCancelCause(w.jobsCtx)
	run := &jobRun{w: w, id: id, assigned: time.Now(), cancel: cancel}
	w.jobs[id] = run
	w.wg.Add(1)
	w.mu.Unlock()
	w.kickStatus()

	job := Job{
		ID:                  id,
		RoomName:            raw.GetRoom().GetName(),
		Token:               a.GetToken(),
		URL:                 roomURL,
		ParticipantIdentity: identity,
		Metadata:            raw.GetMetadata(),
		AgentName:           raw.GetAgentName(),
		Raw:                 raw,
		run:                 run,
	}
	log.Info("lkagent: job started", "dispatch_id", raw.GetDispatchId(), "identity", identity)
	w.sendJobStatus(id, livekit.JobStatus_JS_RUNNING, "")
	go w.runJob(ctx, run, job, log)
}

// runJob calls the handler and reports how it ended.
func (w *Worker) runJob(ctx context.Context, run *jobRun, job Job, log *slog.Logger) {
	defer w.wg.Done()
	start := time.Now()
	err := w.callHandler(ctx, job, log)
	run.cancel(context.Canceled)
	run.report(err)

	w.mu.Lock()
	delete(w.jobs, run.id)
	w.notifyLocked()
	w.mu.Unlock()
	w.kickStatus()
	if err != nil {
		log.Warn("lkagent: job failed", "err", err, "duration", time.Since(start))
	} else {
		log.Info("lkagent: job finished", "duration", time.Since(start))
	}
}

// callHandler runs the handler, turning a panic into an error.
func (w *Worker) callHandler(ctx context.Context, job Job, log *slog.Logger) (err error) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("lkagent: job handler panicked", "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("lkagent: job handler panicked: %v", r)
		}
	}()
	return w.handler.HandleJob(ctx, job)
}

// terminate cancels a job the server ended.
func (w *Worker) terminate(id string) {
	w.mu.Lock()
	run := w.jobs[id]
	w.mu.Unlock()
	if run == nil {
		return
	}
	w.log.Info("lkagent: server terminated job", "job_id", id)
	run.cancel(ErrJobTerminated)
}

// report sends the job's final status once.
func (r *jobRun) report(err error) {
	if !r.reported.CompareAndSwap(false, true) {
		return
	}
	// livekit-server records a job only after it has sent the assignment,
	// and drops a status for a job it has not recorded yet; a job that ends
	// at once therefore reports after a short grace.
	if wait := r.w.minReportDelay - time.Since(r.assigned); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-r.w.stop:
		}
		t.Stop()
	}
	if err == nil {
		r.w.sendJobStatus(r.id, livekit.JobStatus_JS_SUCCESS, "")
		return
	}
	text := err.Error()
	if len(text) > maxJobErrorBytes {
		text = strings.ToValidUTF8(text[:maxJobErrorBytes], "")
	}
	r.w.sendJobStatus(r.id, livekit.JobStatus_JS_FAILED, text)
}

// sendJobStatus reports a job's status on the current connection; while
// disconnected the update is dropped (a reconnected server no longer knows
// the job).
func (w *Worker) sendJobStatus(id string, status livekit.JobStatus, errText string) {
	w.mu.Lock()
	tr := w.tr
	w.mu.Unlock()
	if tr == nil {
		w.log.Debug("lkagent: not connected; job status dropped", "job_id", id, "status", status.String())
		return
	}
	err := tr.Write(&livekit.WorkerMessage{Message: &livekit.WorkerMessage_UpdateJob{UpdateJob: &livekit.UpdateJobStatus{
		JobId:  id,
		Status: status,
		Error:  errText,
	}}})
	if err != nil {
		w.log.Debug("lkagent: job status not sent", "job_id", id, "status", status.String(), "err", err)
	}
}
