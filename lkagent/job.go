package lkagent

import (
	"context"

	"github.com/livekit/protocol/livekit"
)

// A job the server assigns, and the handler that runs it.

// Job is one dispatch assigned to this worker: a room to join.
type Job struct {
	// ID is LiveKit's job id (AJ_…).
	ID string
	// RoomName is the room to join.
	RoomName string
	// Token joins RoomName as the agent participant (kind AGENT); it is a
	// secret and must not be logged.
	Token string
	// URL is the LiveKit URL to join with Token (ws:// or wss://).
	URL string
	// ParticipantIdentity is the agent participant's identity in the room.
	ParticipantIdentity string
	// Metadata is the dispatch metadata (JSON chosen by whoever dispatched
	// the agent). It may hold candidate data: do not log it.
	Metadata string
	// AgentName is the agent name the job was dispatched to.
	AgentName string
	// Raw is the job as the server sent it.
	Raw *livekit.Job

	run *jobRun
}

// Complete reports the job's outcome to the server now: SUCCESS when err is
// nil, FAILED with err's text otherwise. Call it before leaving or deleting
// the room: livekit-server marks a job whose agent participant leaves first
// as failed ("agent worker left the room"). When HandleJob returns, the
// worker reports its result unless Complete already did; later calls do
// nothing.
func (j Job) Complete(err error) {
	if j.run != nil {
		j.run.report(err)
	}
}

// Handler runs one job: it joins the room with job.Token at job.URL and
// holds the session until it is over.
//
// ctx is cancelled when the server terminates the job (cause
// ErrJobTerminated), when a drain times out (ErrDrainTimeout) or when the
// worker stops at once (ErrWorkerStopped); while a worker drains, ctx stays
// alive up to Options.DrainTimeout. The returned error is reported to the
// server as the job's FAILED status; nil reports SUCCESS. A panic is
// recovered and reported as a failure.
type Handler interface {
	HandleJob(ctx context.Context, job Job) error
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, job Job) error

// HandleJob calls f(ctx, job).
func (f HandlerFunc) HandleJob(ctx context.Context, job Job) error { return f(ctx, job) }
