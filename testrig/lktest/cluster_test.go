package lktest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/livekit/protocol/livekit"
)

// TestClusterSharesRoomsAcrossNodes: a room created through node B lives
// on B; a participant connecting through node A joins the same room (its
// signalling relayed over Redis), and either node's RoomService sees both.
func TestClusterSharesRoomsAcrossNodes(t *testing.T) {
	t.Parallel()
	c := StartCluster(t, 2)
	a, b := c.Nodes[0], c.Nodes[1]
	if a.Region() != "node-a" || b.Region() != "node-b" {
		t.Fatalf("regions %q, %q; want node-a, node-b", a.Region(), b.Region())
	}
	if a.URL == b.URL || a.NodeID(t) == b.NodeID(t) {
		t.Fatalf("nodes share %s / node ID %s", a.URL, a.NodeID(t))
	}
	for _, n := range c.Nodes {
		if line := n.WaitLog(t, 5*time.Second, "connecting to redis"); !strings.Contains(line, c.Redis.Addr) {
			t.Errorf("%s connects to redis as %q, want %s", n.Region(), line, c.Redis.Addr)
		}
	}

	const room = "shared-room"
	b.Connect(t, "alice", room, nil)
	if host := c.RoomNode(t, b, room, 10*time.Second); host != b {
		t.Fatalf("room created through node-b placed on %s", host.Region())
	}
	a.Connect(t, "bob", room, nil)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, n := range c.Nodes {
		res, err := n.RoomClient().ListParticipants(ctx, &livekit.ListParticipantsRequest{Room: room})
		if err != nil {
			t.Fatalf("ListParticipants through %s: %v", n.Region(), err)
		}
		var ids []string
		for _, p := range res.Participants {
			ids = append(ids, p.Identity)
		}
		slices.Sort(ids)
		if strings.Join(ids, ",") != "alice,bob" {
			t.Errorf("participants through %s = %v, want alice and bob", n.Region(), ids)
		}
	}
}

// TestClusterNodeRestartsIntoTheSameCluster: a restarted node is a new
// node (new ID) on the same ports and the same Redis.
func TestClusterNodeRestartsIntoTheSameCluster(t *testing.T) {
	t.Parallel()
	c := StartCluster(t, 2)
	a := c.Nodes[0]
	before := a.NodeID(t)
	a.Restart()
	if after := a.NodeID(t); after == before {
		t.Fatalf("restarted node kept its ID %s", before)
	}
	a.WaitLog(t, 5*time.Second, "connecting to redis", c.Redis.Addr)
	if err := c.Redis.Ping(); err != nil {
		t.Fatal(err)
	}
}

func TestFindRedisMissingSaysHowToInstall(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := findRedis()
	if err == nil || !strings.Contains(err.Error(), "redis-server missing: run `make deps`") {
		t.Fatalf("findRedis error = %v, want the setup hint", err)
	}
}
