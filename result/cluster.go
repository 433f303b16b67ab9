package result

import "math"

// ClusterInfo describes the Redis Cluster the runs used (RedisInfo.Cluster):
// how many masters served the slots, how many replicas they had together,
// and the masters' addresses in the order of the slots they serve.
type ClusterInfo struct {
	Masters  int      `json:"masters"`
	Replicas int      `json:"replicas"`
	Nodes    []string `json:"nodes"`
}

// Cluster is how one run's work fell on the masters of a Redis Cluster,
// from each master's INFO commandstats and keyspace before and after the
// run (never from the key names): a limiter whose keys share one hash tag
// turns the cluster back into one server, and this is where it shows.
type Cluster struct {
	// HashTag is how the run's keys were tagged: identity, none or fixed
	// for a built-in limiter, "declared" for a user's limiter (its own
	// templates).
	HashTag string `json:"hash_tag"`
	// Nodes are the masters' figures, in slot order.
	Nodes []NodeFigures `json:"nodes"`
	// BusiestNode is the master that made the most decisions, and
	// BusiestNodeShare its share of them: about 1/masters when identities
	// spread, 1 when one master made every decision. When the decisions
	// could not be told apart by master (no calls of the limiter's command
	// were counted), the share is of the keys the run added.
	BusiestNode      string  `json:"busiest_node"`
	BusiestNodeShare float64 `json:"busiest_node_share"`
	// Redirections counts the MOVED and ASK replies the run's calls met.
	Redirections Redirections `json:"redirections"`
	// Note says what a reader of these figures must know.
	Note string `json:"note,omitempty"`
}

// NodeFigures are one master's figures over a run.
type NodeFigures struct {
	Addr string `json:"addr"`
	// Calls counts the limiter's command (EVALSHA, FCALL) on this master:
	// its decisions. Share is Calls over every master's.
	Calls int64   `json:"calls"`
	Share float64 `json:"share"`
	// UsecPerCall is the server time of one of those calls, in
	// microseconds.
	UsecPerCall float64 `json:"usec_per_call"`
	// KeysDelta is the change in the master's key count (INFO keyspace);
	// UsedMemoryDeltaBytes the change in its used_memory less its clients'
	// buffers (what memory.bytes_per_identity adds up over the masters).
	KeysDelta            int64 `json:"keys_delta"`
	UsedMemoryDeltaBytes int64 `json:"used_memory_delta_bytes"`
}

// Redirections counts the redirections of a run's calls: MOVED (the slot
// had moved to another master) and ASK (the slot was being migrated).
type Redirections struct {
	Moved int64 `json:"moved"`
	Ask   int64 `json:"ask"`
}

// Total is every redirection.
func (r Redirections) Total() int64 { return r.Moved + r.Ask }

// Hot reports whether one master made most of the run's decisions: more
// than halfway from an even share (1/masters) to every decision. On three
// masters that is more than two thirds; a fixed hash tag puts them all on
// one.
func (c *Cluster) Hot() bool {
	if c == nil || len(c.Nodes) < 2 {
		return false
	}
	even := 1 / float64(len(c.Nodes))
	return c.BusiestNodeShare > even+(1-even)/2
}

// SetShares fills in each master's share of the decisions and the busiest
// master: by calls when any were counted, else by keys added.
func (c *Cluster) SetShares() {
	var calls, keys int64
	for _, n := range c.Nodes {
		calls += n.Calls
		keys += max(n.KeysDelta, 0)
	}
	c.BusiestNode, c.BusiestNodeShare = "", 0
	for i := range c.Nodes {
		n := &c.Nodes[i]
		switch {
		case calls > 0:
			n.Share = float64(n.Calls) / float64(calls)
		case keys > 0:
			n.Share = float64(max(n.KeysDelta, 0)) / float64(keys)
		default:
			n.Share = 0
		}
		if n.Share > c.BusiestNodeShare || c.BusiestNode == "" && n.Share > 0 {
			c.BusiestNode, c.BusiestNodeShare = n.Addr, n.Share
		}
	}
	c.BusiestNodeShare = math.Min(c.BusiestNodeShare, 1)
}

// mergeClusters merges the segments' cluster figures. The segments shared
// one cluster over one window, so each read the same masters' statistics:
// the merged run keeps the first's, with every segment's redirections
// (each counted its own calls') added up.
func mergeClusters(parts []*Run) *Cluster {
	var out *Cluster
	var r Redirections
	for _, p := range parts {
		if p.Cluster == nil {
			continue
		}
		if out == nil {
			c := *p.Cluster
			out = &c
		}
		r.Moved += p.Cluster.Redirections.Moved
		r.Ask += p.Cluster.Redirections.Ask
	}
	if out != nil {
		out.Redirections = r
	}
	return out
}
