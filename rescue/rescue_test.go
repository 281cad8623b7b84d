package rescue_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/livekit/protocol/livekit"
	"github.com/twitchtv/twirp"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/rescue"
)

// fakeLiveKit stands in for the RoomService and AgentDispatchService: rooms
// and who is in them, and the dispatches asked for.
type fakeLiveKit struct {
	mu         sync.Mutex
	rooms      map[string][]*livekit.ParticipantInfo
	dispatches []*livekit.CreateAgentDispatchRequest
	deleted    []string
	removed    []string
}

func (f *fakeLiveKit) ListParticipants(_ context.Context, req *livekit.ListParticipantsRequest) (*livekit.ListParticipantsResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if req.Room == brokenRoom {
		return nil, errors.New("dial tcp 127.0.0.1:7880: connection refused")
	}
	ps, ok := f.rooms[req.Room]
	if !ok {
		return nil, twirp.NotFoundError("requested room does not exist")
	}
	return &livekit.ListParticipantsResponse{Participants: ps}, nil
}

func (f *fakeLiveKit) RemoveParticipant(_ context.Context, req *livekit.RoomParticipantIdentity) (*livekit.RemoveParticipantResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.removed = append(f.removed, req.Identity)
	f.rooms[req.Room] = slices.DeleteFunc(f.rooms[req.Room], func(p *livekit.ParticipantInfo) bool { return p.Identity == req.Identity })
	return &livekit.RemoveParticipantResponse{}, nil
}

func (f *fakeLiveKit) CreateDispatch(_ context.Context, req *livekit.CreateAgentDispatchRequest) (*livekit.AgentDispatch, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dispatches = append(f.dispatches, req)
	return &livekit.AgentDispatch{Id: fmt.Sprintf("AD_%d", len(f.dispatches)), AgentName: req.AgentName, Room: req.Room, Metadata: req.Metadata}, nil
}

func (f *fakeLiveKit) DeleteDispatch(_ context.Context, req *livekit.DeleteAgentDispatchRequest) (*livekit.AgentDispatch, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deleted = append(f.deleted, req.DispatchId)
	return &livekit.AgentDispatch{Id: req.DispatchId}, nil
}

// brokenRoom is a room LiveKit cannot be asked about.
const brokenRoom = "interview-broken"

func candidateOf(id string) string { return "candidate-" + id }

// TestWatchdog: of five interviews whose sessions are in various states,
// only those whose lease lapsed while their candidate waits in the room
// are swept and dispatched again, with their interview id, a dead
// interviewer LiveKit still lists being removed first; a second
// check does not dispatch again while that dispatch is on its way, and one
// no worker took is taken back and replaced.
func TestWatchdog(t *testing.T) {
	store, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	now := start
	store.SetClock(func() time.Time { return now })
	ctx := t.Context()
	newInterview := func(name string, revoked bool) *interviews.Record {
		r := &interviews.Record{Candidate: interviews.Candidate{Name: name, Role: "Engineer"}, Room: "interview-" + name}
		if err := store.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
		r.Start(start)
		r.EnterStage("greeting", "Welcome", start, false, "start")
		if revoked {
			r.Revoke("recruiter@example.com", start)
		}
		if err := store.Save(ctx, r); err != nil {
			t.Fatal(err)
		}
		if _, err := store.AcquireLease(ctx, r.ID, "job "+name, 30*time.Second); err != nil {
			t.Fatal(err)
		}
		return r
	}
	crashed := newInterview("crashed", false)    // lease lapses, candidate waits alone
	live := newInterview("live", false)          // its session renews the lease
	left := newInterview("left", false)          // lease lapses, candidate gone
	ghost := newInterview("ghost", false)        // lease lapses, the dead interviewer is still listed
	withdrawn := newInterview("withdrawn", true) // lease lapses, the link was revoked

	lk := &fakeLiveKit{rooms: map[string][]*livekit.ParticipantInfo{
		crashed.Room:   {{Identity: candidateOf(crashed.ID), Kind: livekit.ParticipantInfo_STANDARD}},
		live.Room:      {{Identity: candidateOf(live.ID)}},
		left.Room:      {{Identity: "observer-1"}},
		ghost.Room:     {{Identity: candidateOf(ghost.ID)}, {Identity: "agent-AJ_1", Kind: livekit.ParticipantInfo_AGENT}},
		withdrawn.Room: {{Identity: candidateOf(withdrawn.ID)}},
	}}
	w := &rescue.Watchdog{Store: store, Rooms: lk, Dispatcher: lk, AgentName: "viva-interviewer",
		CandidateIdentity: candidateOf, Now: func() time.Time { return now },
		Logger: slog.New(slog.DiscardHandler)}

	// While every lease is live, nothing happens.
	now = start.Add(20 * time.Second)
	res, err := w.Check(ctx)
	if err != nil || len(res.Swept) != 0 || len(res.Dispatched) != 0 {
		t.Fatalf("with live leases: %+v, %v", res, err)
	}
	// The live session renews; the others' holders died.
	if _, err := store.RenewLease(ctx, live.ID, "job live", 30*time.Second); err != nil {
		t.Fatal(err)
	}
	now = start.Add(31 * time.Second)
	res, err = w.Check(ctx)
	if err != nil || len(res.Dispatched) != 0 {
		t.Fatalf("first seen alone: %+v, %v; want no dispatch before it settles", res, err)
	}
	swept := res.Swept
	now = now.Add(rescue.DefaultSettle)
	if _, err := store.RenewLease(ctx, live.ID, "job live", 30*time.Second); err != nil {
		t.Fatal(err)
	}
	res, err = w.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res.Swept = append(swept, res.Swept...)
	slices.Sort(res.Swept)
	wantSwept := []string{crashed.ID, left.ID, ghost.ID, withdrawn.ID}
	slices.Sort(wantSwept)
	if !slices.Equal(res.Swept, wantSwept) {
		t.Errorf("swept %v, want %v", res.Swept, wantSwept)
	}
	slices.Sort(res.Dispatched)
	wantDispatched := []string{crashed.ID, ghost.ID}
	slices.Sort(wantDispatched)
	if !slices.Equal(res.Dispatched, wantDispatched) {
		t.Fatalf("dispatched %v, want %v", res.Dispatched, wantDispatched)
	}
	if !slices.Equal(lk.removed, []string{"agent-AJ_1"}) {
		t.Errorf("removed %v, want the dead interviewer agent-AJ_1", lk.removed)
	}
	i := slices.IndexFunc(lk.dispatches, func(d *livekit.CreateAgentDispatchRequest) bool { return d.Room == crashed.Room })
	d := lk.dispatches[i]
	got, err := interviews.ParseDispatch(d.Metadata)
	if err != nil || got.InterviewID != crashed.ID || d.Room != crashed.Room || d.AgentName != "viva-interviewer" {
		t.Errorf("dispatch %+v (metadata %+v, %v)", d, got, err)
	}
	if rec, _ := store.Get(ctx, crashed.ID); !rec.Resumable() || rec.EndedBy != interviews.EndedWorkerCrashed {
		t.Errorf("the crashed record is %s (%s), want failed by worker_crashed and resumable", rec.Status, rec.EndedBy)
	}

	// A worker took the ghost room's dispatch.
	if _, err := store.AcquireLease(ctx, ghost.ID, "job AJ_2", 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	// The dispatch is on its way: not sent twice.
	now = now.Add(rescue.DefaultInterval)
	if res, err := w.Check(ctx); err != nil || len(res.Dispatched) != 0 {
		t.Fatalf("second check: %+v, %v", res, err)
	}
	// No worker took it: it is taken back and sent again.
	now = now.Add(time.Minute)
	if _, err := store.RenewLease(ctx, live.ID, "job live", 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if res, err := w.Check(ctx); err != nil || !slices.Equal(res.Dispatched, []string{crashed.ID}) {
		t.Fatalf("after no worker took it: %+v, %v", res, err)
	}
	if want := fmt.Sprintf("AD_%d", i+1); !slices.Equal(lk.deleted, []string{want}) || len(lk.dispatches) != 3 {
		t.Errorf("deleted %v, dispatches %d; want %s taken back and dispatched again", lk.deleted, len(lk.dispatches), want)
	}
	// A worker resumed it: its lease is live again, nothing more is sent.
	if _, err := store.AcquireLease(ctx, crashed.ID, "job AJ_3", 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Minute)
	if _, err := store.RenewLease(ctx, live.ID, "job live", 30*time.Second); err != nil {
		t.Fatal(err)
	}
	lk.rooms[crashed.Room] = append(lk.rooms[crashed.Room], &livekit.ParticipantInfo{Identity: "agent-AJ_3", Kind: livekit.ParticipantInfo_AGENT})
	if res, err := w.Check(ctx); err != nil || len(res.Dispatched) != 0 {
		t.Fatalf("after resuming: %+v, %v", res, err)
	}
	// Long after the crash, a room still listed is left alone.
	delete(lk.rooms, crashed.Room)
	lk.rooms[left.Room] = []*livekit.ParticipantInfo{{Identity: candidateOf(left.ID)}}
	now = start.Add(2 * rescue.DefaultRecent)
	if res, err := w.Check(ctx); err != nil || len(res.Dispatched) != 0 {
		t.Fatalf("long after the crash: %+v, %v", res, err)
	}
}

// TestRunStops: Run checks at once and every interval, and returns when its
// context ends.
func TestRunStops(t *testing.T) {
	store, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	lk := &fakeLiveKit{}
	w := &rescue.Watchdog{Store: store, Rooms: lk, Dispatcher: lk, AgentName: "a", CandidateIdentity: candidateOf}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx, time.Millisecond) }()
	cancel()
	<-done
}

// TestWatchdogScheduled: a worker that died before the interview started
// leaves it scheduled; once its candidate, who opened the link, has waited
// alone past the settling time the interviewer is dispatched again. An
// interview whose link was never opened is not looked at; one whose room
// LiveKit cannot be asked about is reported without stopping the others.
func TestWatchdogScheduled(t *testing.T) {
	store, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	store.SetClock(func() time.Time { return now })
	ctx := t.Context()
	opened := &interviews.Record{Candidate: interviews.Candidate{Name: "opened", Role: "Engineer"}, Room: "interview-opened", OpenedAt: &now}
	unopened := &interviews.Record{Candidate: interviews.Candidate{Name: "unopened", Role: "Engineer"}, Room: "interview-unopened"}
	broken := &interviews.Record{Candidate: interviews.Candidate{Name: "broken", Role: "Engineer"}, Room: brokenRoom, OpenedAt: &now}
	for _, r := range []*interviews.Record{opened, unopened, broken} {
		if err := store.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	lk := &fakeLiveKit{rooms: map[string][]*livekit.ParticipantInfo{
		opened.Room:   {{Identity: candidateOf(opened.ID)}},
		unopened.Room: {{Identity: candidateOf(unopened.ID)}},
	}}
	w := &rescue.Watchdog{Store: store, Rooms: lk, Dispatcher: lk, AgentName: "viva-interviewer",
		CandidateIdentity: candidateOf, Now: func() time.Time { return now }, Logger: slog.New(slog.DiscardHandler)}
	for i, want := range [][]string{nil, nil, {opened.ID}} {
		res, err := w.Check(ctx)
		if err == nil || !strings.Contains(err.Error(), brokenRoom) || !slices.Equal(res.Dispatched, want) {
			t.Fatalf("check %d: %+v, %v; want dispatched %v and an error naming %s", i, res, err, want, brokenRoom)
		}
		now = now.Add(rescue.DefaultSettle / 2)
	}
}
