package lktest

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Cluster is several livekit-server nodes on 127.0.0.1 sharing one Redis,
// as a self-hosted multi-node LiveKit deployment runs: every node has its
// own signal, RTC TCP and RTC UDP ports and the same API key and secret.
//
// What LiveKit does across the nodes (livekit-server v1.11.0):
//   - A room lives on one node. The first join (or CreateRoom) asks the
//     node selector for a node and stores room → node in Redis; later joins
//     through any node find it there.
//   - A participant whose signal connection reaches another node is not
//     redirected: that node relays its signalling to the room's node over
//     Redis (psrpc), and the ICE candidates it receives are the room node's,
//     so its media goes straight to the node hosting the room.
//   - Agent workers register with the node they connect to; dispatch is a
//     psrpc request over Redis that any node's registered worker can
//     claim, so a worker on node A serves rooms hosted on node B. A node
//     that dies drops its Redis subscriptions at once, and its workers stop
//     being offered jobs; its rooms are lost, and its Redis entry is
//     ignored by the selector once its stats are older than 5 s.
//
// The rig places a room on the node its first participant connected to
// (region-aware selection, one region per node), so a test knows which
// node hosts a room without a race; the default selector ("any", random)
// would put it on either node.
type Cluster struct {
	// Redis is the shared Redis.
	Redis *Redis
	// Nodes are the servers, named node-a, node-b, … in order (Server.Region).
	Nodes []*Server
}

// clusterNode is what makes a server a node of a cluster: the shared
// Redis, its own region, and every node's region for placement.
type clusterNode struct {
	redisAddr string
	region    string
	regions   []string
}

// nodeSpacingDegrees is the distance between neighbouring nodes' made-up
// regions: any non-zero distance makes each node nearest to itself.
const nodeSpacingDegrees = 10

// config is the YAML a cluster node adds to the base config ("" for a
// single server).
func (n *clusterNode) config() string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "redis:\n  address: %s\nregion: %s\nkeys:\n  %s: %s\n", n.redisAddr, n.region, DevAPIKey, DevAPISecret)
	b.WriteString("node_selector:\n  kind: regionaware\n  sort_by: random\n  regions:\n")
	for i, r := range n.regions {
		fmt.Fprintf(&b, "    - name: %s\n      lat: 0\n      lon: %d\n", r, i*nodeSpacingDegrees)
	}
	return b.String()
}

// StartCluster starts a Redis and n livekit-server nodes sharing it, all
// stopped when the test ends. It fails the test with a setup hint when
// redis-server or bin/livekit-server is missing.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	if n < 1 {
		t.Fatalf("lktest: a cluster of %d nodes: start at least one", n)
	}
	c := &Cluster{Redis: StartRedis(t)}
	regions := make([]string, n)
	for i := range regions {
		regions[i] = fmt.Sprintf("node-%c", 'a'+i)
	}
	for _, r := range regions {
		c.Nodes = append(c.Nodes, start(t, &clusterNode{redisAddr: c.Redis.Addr, region: r, regions: regions}))
	}
	return c
}

// Region is the node's region in its cluster (node-a, node-b, …), or ""
// for a single server.
func (s *Server) Region() string {
	if s.node == nil {
		return ""
	}
	return s.node.region
}

// nodeIDPattern finds a server's own node ID in its start line, and
// selectedNodeIDPattern the node chosen for a room in its placement line.
var (
	nodeIDPattern         = regexp.MustCompile(`"nodeID": "([^"]+)"`)
	selectedNodeIDPattern = regexp.MustCompile(`"selectedNodeID": "([^"]+)"`)
)

// startLogLine is the line a server logs once it serves, with its node ID.
const startLogLine = "starting LiveKit server"

// NodeID is the ID the current server process registered in Redis. A
// restarted server is a new node with a new ID.
func (s *Server) NodeID(t testing.TB) string {
	t.Helper()
	line := s.WaitLog(t, 5*time.Second, startLogLine)
	m := nodeIDPattern.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("lktest: no node ID in %q", line)
	}
	return m[1]
}

// placedLogLine is the line a node logs when it assigns a new room to a node.
const placedLogLine = "selected node for room"

// RoomNode returns the node hosting room, as decided by via, the node
// through which the room was created; it waits up to timeout for the
// decision.
func (c *Cluster) RoomNode(t testing.TB, via *Server, room string, timeout time.Duration) *Server {
	t.Helper()
	line := via.WaitLog(t, timeout, placedLogLine, fmt.Sprintf("%q", room))
	m := selectedNodeIDPattern.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("lktest: no node ID in %q", line)
	}
	for _, n := range c.Nodes {
		if n.NodeID(t) == m[1] {
			return n
		}
	}
	t.Fatalf("lktest: room %s placed on node %s, which is none of the cluster's current nodes", room, m[1])
	return nil
}
