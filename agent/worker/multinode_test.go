package worker_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/livekit/protocol/livekit"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/lkagent"
	"github.com/viva-interviews/viva/testrig/lktest"
	"github.com/viva-interviews/viva/testrig/workertest"
)

// served is one job a worker took: the node it is registered with, the
// room, and the URL it joined the room through.
type served struct {
	node, room, url string
}

// reportServed hands jobs to h after telling jobs which node's worker took
// them.
func reportServed(node *lktest.Server, h lkagent.Handler, jobs chan<- served) lkagent.Handler {
	return lkagent.HandlerFunc(func(ctx context.Context, job lkagent.Job) error {
		jobs <- served{node: node.Region(), room: job.RoomName, url: job.URL}
		return h.HandleJob(ctx, job)
	})
}

// servedRoom waits for the job of room and returns who took it.
func servedRoom(t *testing.T, ctx context.Context, jobs <-chan served, room string) served {
	t.Helper()
	for {
		select {
		case j := <-jobs:
			if j.room == room {
				return j
			}
			t.Logf("job of %s taken by the worker on %s", j.room, j.node)
		case <-ctx.Done():
			t.Fatalf("no worker took the job of %s: %v", room, ctx.Err())
		}
	}
}

// TestInterviewsAcrossLiveKitNodes runs viva on a two-node LiveKit cluster
// (two livekit-server processes sharing a Redis). Rooms are created through
// node B.
//
//  1. With a worker on node A only, an interview whose room lives on node B
//     is dispatched to it over Redis; the worker joins through node A, and
//     the candidate on node B hears the greeting and gets an answer.
//  2. With a worker on each node, interviews land on either.
//  3. With node A killed, a new interview is served by node B's worker;
//     once A is back, its worker registers with it again.
func TestInterviewsAcrossLiveKitNodes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cluster := lktest.StartCluster(t, 2)
	nodeA, nodeB := cluster.Nodes[0], cluster.Nodes[1]

	_, sessions := startFakes(t, fullAnswers, interviewerPolicy("Hello Ada, welcome to your interview."))
	store, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	log := testLogger(t)
	sessions.Store = store
	sessions.Logger = log
	h := &harness{lk: nodeB, store: store, agent: "viva-test-multinode"}
	jobs := make(chan served, 16)
	startWorker := func(node *lktest.Server) {
		s := *sessions
		s.Rooms = node.RoomClient()
		workertest.Run(t, node, h.agent, reportServed(node, &s, jobs), log)
	}
	deleteRoom := func(room string) {
		t.Helper()
		if _, err := nodeB.RoomClient().DeleteRoom(ctx, &livekit.DeleteRoomRequest{Room: room}); err != nil {
			t.Fatalf("delete %s: %v", room, err)
		}
	}
	meta := map[string]string{"name": "Ada Lovelace", "role": "Backend engineer", "level": "senior"}

	// 1. Only node A has a worker; the room lives on node B.
	startWorker(nodeA)
	bot, room := h.join(t, ctx, meta)
	if host := cluster.RoomNode(t, nodeB, room, 10*time.Second); host != nodeB {
		t.Fatalf("room created through node-b lives on %s", host.Region())
	}
	if j := servedRoom(t, ctx, jobs, room); j.node != nodeA.Region() || j.url != nodeA.URL {
		t.Fatalf("job of %s taken by the worker on %s, joining through %s; want node-a's worker joining through %s", room, j.node, j.url, nodeA.URL)
	}
	answer(t, ctx, bot, fullAnswers[0])
	if err := bot.WaitAgentSpeech(ctx, 300*time.Millisecond); err != nil {
		t.Fatalf("no answer to the candidate's turn across nodes: %v", err)
	}
	rec := h.record(t, ctx, room, func(r *interviews.Record) bool {
		n := len(r.Turns)
		return n >= 3 && r.Turns[n-2].Role == interviews.RoleCandidate && r.Turns[n-1].Role == interviews.RoleAgent
	})
	if got := rec.Turns[1].Text; got != fullAnswers[0] {
		t.Errorf("the candidate's turn was heard as %q, want %q", got, fullAnswers[0])
	}
	bot.Leave()
	deleteRoom(room)

	// 2. Workers on both nodes: held interviews lower a worker's
	// availability, so the next ones go to the other worker.
	startWorker(nodeB)
	byNode := map[string][]string{}
	for i := 0; i < 4 && len(byNode) < 2; i++ {
		r := fmt.Sprintf("interview-either-%d-%d", i, time.Now().UnixNano())
		nodeB.Connect(t, "candidate-"+r, r, nil, lktest.WithAgentDispatch(h.agent, `{"name":"Grace Hopper","role":"Backend engineer"}`))
		j := servedRoom(t, ctx, jobs, r)
		byNode[j.node] = append(byNode[j.node], r)
	}
	t.Logf("interviews by node with a worker on each: %v", byNode)
	if len(byNode) != 2 {
		t.Errorf("with a worker on each node every interview went to one: %v", byNode)
	}
	for _, rooms := range byNode {
		for _, r := range rooms {
			deleteRoom(r)
		}
	}

	// 3. Node A dies: new interviews go to node B's worker.
	nodeA.Stop()
	bot, room = h.join(t, ctx, meta)
	if j := servedRoom(t, ctx, jobs, room); j.node != nodeB.Region() {
		t.Fatalf("with node-a down, the job of %s was taken by the worker on %s", room, j.node)
	}
	if err := bot.WaitAgentSpeech(ctx, 300*time.Millisecond); err != nil {
		t.Fatalf("no greeting with node-a down: %v", err)
	}
	bot.Leave()
	deleteRoom(room)

	// Node A comes back as a new node; its worker reconnects to it.
	nodeA.Restart()
	nodeA.WaitLog(t, 30*time.Second, "worker registered", h.agent)
}
