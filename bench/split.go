package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
)

const (
	// heardEarliest and heardLatest bound where, after the end of the
	// bot's voice, the worker's end of the candidate's voice may lie for
	// the two to be the same turn's.
	heardEarliest = -200 * time.Millisecond
	heardLatest   = 3 * time.Second
)

// LatencySplit is where each answered turn's time goes, from the records
// the worker wrote (its clock is the bot's: one machine), in milliseconds.
// Upstream + Worker + Hop is the overhead at the bot; Client comes on top
// of it at a client that buffers.
type LatencySplit struct {
	// UpstreamMS is the end of the bot's voice → the end of the
	// candidate's voice as the worker's voice detector saw it: the way in
	// through livekit-server and the detector's frame.
	UpstreamMS Percentiles `json:"upstream_ms"`
	// WorkerMS is the worker's end of voice → the reply's first audio
	// frame written to the track, minus the endpointing delay and the
	// provider latencies: the worker's own share.
	WorkerMS Percentiles `json:"worker_ms"`
	// DecideMS is the part of WorkerMS before the worker decided the
	// candidate's turn had ended (the endpointing delay subtracted):
	// how late the end-of-turn timer fired.
	DecideMS Percentiles `json:"decide_ms"`
	// HopMS is the reply's first frame written to the track → its packet's
	// arrival at the bot: livekit-server and both machines' network
	// stacks.
	HopMS Percentiles `json:"hop_ms"`
	// ClientMS is that packet's arrival → its leaving a jitter buffer like
	// a LiveKit client's (candidatebot.ClientJitterWait).
	ClientMS Percentiles `json:"client_ms"`
	// Matched counts the answered turns found in the records.
	Matched int `json:"matched"`
	// Turns are the matched turns one by one, in the order measured.
	Turns []TurnSplit `json:"turns"`
}

// TurnSplit is one turn's split, in milliseconds (see LatencySplit).
type TurnSplit struct {
	Room       string  `json:"room"`
	AfterCut   bool    `json:"after_barge_in"`
	UpstreamMS float64 `json:"upstream_ms"`
	// OnsetMS is the way in at the start of the candidate's voice: the
	// bot's onset → the worker's.
	OnsetMS  float64 `json:"onset_ms"`
	WorkerMS float64 `json:"worker_ms"`
	DecideMS float64 `json:"decide_ms"`
	HopMS    float64 `json:"hop_ms"`
	ClientMS float64 `json:"client_ms"`
}

// heardTurn is one answered turn as the bot timed it.
type heardTurn struct {
	room string
	// afterCut is true when the bot spoke over the agent's reply.
	afterCut bool
	// onset is the start of the bot's voice, end its end; arrived the arrival of the
	// reply's first voiced packet, buffered its leaving a client's jitter
	// buffer (zero if it never did).
	onset, end, arrived, buffered time.Time
}

// splitLatency reads the records of the worker's data directory dir and
// splits the turns in heard, subtracting endpointing and provider from the
// worker's share.
func splitLatency(ctx context.Context, dir string, heard []heardTurn, endpointing, provider time.Duration) (LatencySplit, error) {
	st, err := filestore.Open(dir)
	if err != nil {
		return LatencySplit{}, fmt.Errorf("bench: open the worker's records: %w", err)
	}
	all, err := interviews.ListAll(ctx, st, interviews.ListOptions{})
	if err != nil {
		return LatencySplit{}, fmt.Errorf("bench: list the worker's records: %w", err)
	}
	byRoom := map[string]*interviews.Record{}
	for _, s := range all {
		rec, err := st.Get(ctx, s.ID)
		if err != nil {
			return LatencySplit{}, fmt.Errorf("bench: read the record %s: %w", s.ID, err)
		}
		byRoom[rec.Room] = rec
	}
	var (
		up, worker, decide, hop, client []float64
		turns                           []TurnSplit
	)
	for _, h := range heard {
		rec := byRoom[h.room]
		if rec == nil {
			continue
		}
		cand, reply, ok := answer(rec.Turns, h.end)
		if !ok {
			continue
		}
		heardEnd := cand.EndedAt
		t := TurnSplit{Room: h.room, AfterCut: h.afterCut, UpstreamMS: ms(heardEnd.Sub(h.end)), OnsetMS: ms(cand.StartedAt.Sub(h.onset)),
			WorkerMS: ms(reply.StartedAt.Sub(heardEnd) - endpointing - provider), HopMS: ms(h.arrived.Sub(reply.StartedAt))}
		up, worker, hop = append(up, t.UpstreamMS), append(worker, t.WorkerMS), append(hop, t.HopMS)
		if m := reply.Metrics; m.EndOfUtteranceMs > 0 {
			t.DecideMS = m.EndOfUtteranceMs - ms(endpointing)
			decide = append(decide, t.DecideMS)
		}
		if !h.buffered.IsZero() {
			t.ClientMS = ms(h.buffered.Sub(h.arrived))
			client = append(client, t.ClientMS)
		}
		turns = append(turns, t)
	}
	return LatencySplit{
		UpstreamMS: Summarize(up), WorkerMS: Summarize(worker), DecideMS: Summarize(decide),
		HopMS: Summarize(hop), ClientMS: Summarize(client), Matched: len(up), Turns: turns,
	}, nil
}

// answer finds in turns the candidate's spoken turn that ended at end by
// the bot's clock (its StartedAt and EndedAt are the onset and the end
// of voice as the worker heard them), and the agent's turn that answered
// it (its StartedAt is when its first audio was written).
func answer(turns []interviews.Turn, end time.Time) (cand, reply interviews.Turn, ok bool) {
	for i, t := range turns {
		if t.Role != interviews.RoleCandidate || t.Source != agent.SourceVoice {
			continue
		}
		d := t.EndedAt.Sub(end)
		if d < heardEarliest || d > heardLatest {
			continue
		}
		for _, r := range turns[i+1:] {
			if r.Role == interviews.RoleAgent && r.Metrics != nil && r.Metrics.EndToEndMs > 0 {
				return t, r, true
			}
		}
		return interviews.Turn{}, interviews.Turn{}, false
	}
	return interviews.Turn{}, interviews.Turn{}, false
}
