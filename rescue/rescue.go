// Package rescue serves again the candidates whose interviewer died: a
// worker killed mid-interview leaves its candidate in the room in silence,
// and LiveKit does not dispatch the interviewer a second time. A Watchdog,
// run beside the web app, ends the records whose session died (the lease
// sweep, while processes run rather than only at start) and dispatches the
// interviewer again to each room where such an interview's candidate is
// still waiting with no interviewer; the new worker resumes the record
// where it stopped (see interviews.Record.Resumable).
package rescue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/livekit/protocol/livekit"
	"github.com/twitchtv/twirp"

	"github.com/viva-interviews/viva/internal/every"
	"github.com/viva-interviews/viva/interviews"
)

// DefaultInterval is how often Run checks, when given no interval.
const DefaultInterval = 5 * time.Second

// DefaultSettle is how long a candidate must be seen waiting alone before
// the interviewer is dispatched again, when Watchdog.Settle is zero.
const DefaultSettle = 3 * time.Second

// DefaultRecent is how long after a crash a waiting candidate is still
// served again, when Watchdog.Recent is zero: beyond it the room is gone.
const DefaultRecent = time.Hour

// Rooms is what a Watchdog asks of LiveKit's RoomService
// (*lksdk.RoomServiceClient): who is in a room, and removing a dead
// interviewer LiveKit still lists.
type Rooms interface {
	ListParticipants(ctx context.Context, req *livekit.ListParticipantsRequest) (*livekit.ListParticipantsResponse, error)
	RemoveParticipant(ctx context.Context, req *livekit.RoomParticipantIdentity) (*livekit.RemoveParticipantResponse, error)
}

// Dispatcher is what a Watchdog asks of LiveKit's AgentDispatchService
// (*lksdk.AgentDispatchClient): sending an agent to a room, and taking back
// a dispatch of its own that no worker took.
type Dispatcher interface {
	CreateDispatch(ctx context.Context, req *livekit.CreateAgentDispatchRequest) (*livekit.AgentDispatch, error)
	DeleteDispatch(ctx context.Context, req *livekit.DeleteAgentDispatchRequest) (*livekit.AgentDispatch, error)
}

// Watchdog finds interviews whose worker died while their candidate waits,
// and dispatches the interviewer again. Store, Rooms, Dispatcher, AgentName
// and CandidateIdentity are required. Check and Run must not be called
// concurrently.
type Watchdog struct {
	// Store holds the records and their leases.
	Store interviews.Store
	// Rooms lists a room's participants.
	Rooms Rooms
	// Dispatcher dispatches the interviewer.
	Dispatcher Dispatcher
	// AgentName is the interviewer workers' agent name.
	AgentName string
	// CandidateIdentity is the LiveKit identity of interview id's
	// candidate (web.CandidateIdentity): only the candidate's presence
	// calls for an interviewer, not an observer's.
	CandidateIdentity func(id string) string
	// Recent bounds how long after its crash an interview is still
	// resumed (default DefaultRecent).
	Recent time.Duration
	// Settle is how long a candidate must be seen waiting alone before
	// the interviewer is dispatched again (default DefaultSettle): a room
	// just created is alone while its own dispatch is on its way, and a
	// second interviewer would be refused and close the room.
	Settle time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger receives what the watchdog does (default slog.Default()).
	Logger *slog.Logger

	// dispatched is the watchdog's own dispatch per room, so a room is
	// not sent a second interviewer while the first is on its way, and a
	// dispatch no worker took is replaced rather than left to pile up.
	dispatched map[string]sent
	// alone is when each room was first seen with its candidate waiting
	// alone.
	alone map[string]time.Time
}

// sent is one dispatch the watchdog made.
type sent struct {
	id string
	at time.Time
}

// Result is what one Check did.
type Result struct {
	// Swept are the interviews ended as crashed (failed, worker_crashed).
	Swept []string
	// Dispatched are the interviews whose interviewer was dispatched again.
	Dispatched []string
}

// redispatchAfter is how long the watchdog waits for its dispatch to bring
// an interviewer (a worker takes the lease within moments of the job) before
// it replaces the dispatch.
const redispatchAfter = 30 * time.Second

func (w *Watchdog) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

func (w *Watchdog) log() *slog.Logger {
	if w.Logger != nil {
		return w.Logger
	}
	return slog.Default()
}

// Run checks every interval (DefaultInterval when not positive) until ctx
// ends.
func (w *Watchdog) Run(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultInterval
	}
	every.Run(ctx, interval, func(ctx context.Context) {
		if _, err := w.Check(ctx); err != nil && ctx.Err() == nil {
			w.log().Error("rescue: checking interviews whose worker may have died", "err", err)
		}
	})
}

// Check sweeps the records whose lease lapsed, then dispatches the
// interviewer again to every room where a resumable interview's candidate
// is present and no interviewer is. An error with one interview does not
// stop the others; the errors are joined.
func (w *Watchdog) Check(ctx context.Context) (Result, error) {
	var res Result
	var errs []error
	swept, err := w.Store.SweepCrashed(ctx)
	res.Swept = swept
	if len(swept) > 0 {
		w.log().Warn("rescue: interviews whose session died were saved as failed (worker_crashed); a new dispatch resumes them",
			"count", len(swept), "interview_ids", swept)
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("rescue: sweep: %w", err))
	}
	now := w.now()
	recent := w.Recent
	if recent <= 0 {
		recent = DefaultRecent
	}
	waiting, err := w.resumable(ctx, now.Add(-recent))
	if err != nil {
		return res, errors.Join(append(errs, err)...)
	}
	seen := make(map[string]bool, len(waiting))
	for _, s := range waiting {
		seen[s.Room] = true
		ok, err := w.rescue(ctx, s, now)
		if err != nil {
			errs = append(errs, fmt.Errorf("rescue: interview %s: %w", s.ID, err))
		}
		if ok {
			res.Dispatched = append(res.Dispatched, s.ID)
		}
	}
	for room := range w.dispatched {
		if !seen[room] {
			delete(w.dispatched, room)
		}
	}
	for room := range w.alone {
		if !seen[room] {
			delete(w.alone, room)
		}
	}
	return res, errors.Join(errs...)
}

// resumable lists the interviews whose candidate a dead session may have
// left waiting: in progress, failed by a worker crash after since, or
// scheduled with the link opened after since (a worker that died before the
// interview started).
func (w *Watchdog) resumable(ctx context.Context, since time.Time) ([]interviews.Summary, error) {
	var out []interviews.Summary
	for _, status := range []interviews.Status{interviews.StatusInProgress, interviews.StatusFailed, interviews.StatusScheduled} {
		for offset := 0; ; {
			page, err := w.Store.List(ctx, interviews.ListOptions{Status: status, Offset: offset, Limit: interviews.MaxListLimit})
			if err != nil {
				return nil, fmt.Errorf("rescue: listing %s interviews: %w", status, err)
			}
			for _, s := range page.Items {
				switch {
				case s.Room == "" || s.RevokedAt != nil:
				case s.Status == interviews.StatusFailed && (s.EndedBy != interviews.EndedWorkerCrashed || s.EndedAt == nil || s.EndedAt.Before(since)):
				case s.Status == interviews.StatusScheduled && (s.OpenedAt == nil || s.OpenedAt.Before(since)):
				default:
					out = append(out, s)
				}
			}
			offset += len(page.Items)
			if len(page.Items) == 0 || offset >= page.Total {
				break
			}
		}
	}
	return out, nil
}

// rescue dispatches the interviewer to s's room when no live session holds
// the interview, its candidate is in the room and no interviewer is.
func (w *Watchdog) rescue(ctx context.Context, s interviews.Summary, now time.Time) (bool, error) {
	lease, held, err := w.Store.Lease(ctx, s.ID)
	if err != nil {
		return false, fmt.Errorf("reading the lease: %w", err)
	}
	if held && !lease.Expired(now) {
		delete(w.dispatched, s.Room) // a session runs it, or is ending it
		delete(w.alone, s.Room)
		return false, nil
	}
	candidate, ghosts, err := w.inRoom(ctx, s)
	if err != nil {
		return false, err
	}
	if !candidate {
		delete(w.alone, s.Room)
		return false, nil
	}
	settle := w.Settle
	if settle <= 0 {
		settle = DefaultSettle
	}
	if w.alone == nil {
		w.alone = make(map[string]time.Time)
	}
	first, ok := w.alone[s.Room]
	if !ok {
		w.alone[s.Room] = now
		first = now
	}
	if now.Sub(first) < settle {
		return false, nil // its own dispatch may be on its way
	}
	prev, ok := w.dispatched[s.Room]
	if ok && now.Sub(prev.at) < redispatchAfter {
		return false, nil // on its way
	}
	if ok {
		// No worker took it: take it back so it cannot start a second
		// session later.
		if _, err := w.Dispatcher.DeleteDispatch(ctx, &livekit.DeleteAgentDispatchRequest{DispatchId: prev.id, Room: s.Room}); err != nil {
			w.log().Warn("rescue: could not take back a dispatch no worker took", "room", s.Room, "dispatch_id", prev.id, "err", err)
		}
	}
	d, err := w.dispatchAgain(ctx, s, ghosts)
	if err != nil {
		return false, err
	}
	if w.dispatched == nil {
		w.dispatched = make(map[string]sent)
	}
	w.dispatched[s.Room] = sent{id: d.GetId(), at: now}
	w.log().Warn("rescue: the candidate is waiting and the interviewer is gone; dispatched it again",
		"interview_id", s.ID, "room", s.Room, "status", s.Status, "dispatch_id", d.GetId())
	return true, nil
}

// inRoom reports whether s's candidate is in its room (false when the
// room is gone) and lists the interviewers still listed there.
func (w *Watchdog) inRoom(ctx context.Context, s interviews.Summary) (candidate bool, ghosts []string, err error) {
	resp, err := w.Rooms.ListParticipants(ctx, &livekit.ListParticipantsRequest{Room: s.Room})
	if terr, ok := errors.AsType[twirp.Error](err); ok && terr.Code() == twirp.NotFound {
		// The room is gone (the candidate left and it closed): nobody waits.
		return false, nil, nil
	}
	if err != nil {
		return false, nil, fmt.Errorf("listing room %s (is LiveKit reachable with LIVEKIT_URL and the API key?): %w", s.Room, err)
	}
	// An interviewer still listed without the lease is dead: a live
	// session renews its lease every few seconds and takes it before it
	// joins. LiveKit keeps a participant whose connection dropped listed
	// for a while, so it is not waited for.
	for _, p := range resp.GetParticipants() {
		switch {
		case p.GetKind() == livekit.ParticipantInfo_AGENT:
			ghosts = append(ghosts, p.GetIdentity())
		case p.GetIdentity() == w.CandidateIdentity(s.ID):
			candidate = true
		}
	}
	return candidate, ghosts, nil
}

// dispatchAgain removes the dead interviewers ghosts from s's room and
// dispatches a new one.
func (w *Watchdog) dispatchAgain(ctx context.Context, s interviews.Summary, ghosts []string) (*livekit.AgentDispatch, error) {
	for _, id := range ghosts {
		// The candidate's page must see one interviewer, the live one.
		if _, err := w.Rooms.RemoveParticipant(ctx, &livekit.RoomParticipantIdentity{Room: s.Room, Identity: id}); err != nil {
			w.log().Warn("rescue: could not remove a dead interviewer from the room", "room", s.Room, "identity", id, "err", err)
		}
	}
	meta, err := interviews.Dispatch{InterviewID: s.ID}.Encode()
	if err != nil {
		return nil, err
	}
	d, err := w.Dispatcher.CreateDispatch(ctx, &livekit.CreateAgentDispatchRequest{AgentName: w.AgentName, Room: s.Room, Metadata: meta})
	if err != nil {
		return nil, fmt.Errorf("dispatching the interviewer to room %s: %w", s.Room, err)
	}
	return d, nil
}
