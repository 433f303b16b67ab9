package result_test

import (
	"math"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

func TestClusterShares(t *testing.T) {
	nodes := func(calls, keys []int64) []result.NodeFigures {
		out := make([]result.NodeFigures, len(calls))
		for i := range calls {
			out[i] = result.NodeFigures{Addr: string(rune('a' + i)), Calls: calls[i], KeysDelta: keys[i]}
		}
		return out
	}
	for _, tc := range []struct {
		why         string
		calls, keys []int64
		busiest     string
		share       float64
		hot         bool
	}{
		{"identities spread over three masters", []int64{340, 330, 330}, []int64{34, 33, 33}, "a", 0.34, false},
		{"a fixed tag: every decision on one master", []int64{0, 1000, 0}, []int64{0, 100, 0}, "b", 1, true},
		{"two thirds on one of three is not yet hot", []int64{200, 400, 0}, []int64{0, 0, 0}, "b", 2.0 / 3, false},
		{"past halfway from an even share to all is hot", []int64{100, 700, 200}, []int64{0, 0, 0}, "b", 0.7, true},
		{"no calls counted: the share is of keys added", []int64{0, 0, 0}, []int64{10, 0, 30}, "c", 0.75, true},
		{"keys that expired do not count against a master", []int64{0, 0}, []int64{-5, 10}, "b", 1, true},
		{"nothing measured: no busiest master", []int64{0, 0, 0}, []int64{0, 0, 0}, "", 0, false},
		{"one master cannot be a hot one among others", []int64{500}, []int64{5}, "a", 1, false},
	} {
		c := &result.Cluster{Nodes: nodes(tc.calls, tc.keys)}
		c.SetShares()
		if c.BusiestNode != tc.busiest || math.Abs(c.BusiestNodeShare-tc.share) > 1e-9 || c.Hot() != tc.hot {
			t.Errorf("%s: busiest %q %.3f hot %v, want %q %.3f %v", tc.why, c.BusiestNode, c.BusiestNodeShare, c.Hot(), tc.busiest, tc.share, tc.hot)
		}
		var sum float64
		for _, n := range c.Nodes {
			sum += n.Share
		}
		if tc.busiest != "" && math.Abs(sum-1) > 1e-9 {
			t.Errorf("%s: shares add up to %g", tc.why, sum)
		}
	}
}

// TestClusterFigures: a run's cluster figures load, a master whose keys
// expired or memory shrank is no damage, and a threshold reads the
// busiest master's share.
func TestClusterFigures(t *testing.T) {
	r := resulttest.Sample()
	r.Redis.Cluster = &result.ClusterInfo{Masters: 2, Nodes: []string{"a:1", "b:1"}}
	c := &result.Cluster{HashTag: "fixed", Redirections: result.Redirections{Moved: 2, Ask: 1}, Nodes: []result.NodeFigures{
		{Addr: "a:1", Calls: 10, KeysDelta: -3, UsedMemoryDeltaBytes: -2048},
		{Addr: "b:1", Calls: 30, KeysDelta: 4, UsedMemoryDeltaBytes: 4096},
	}}
	c.SetShares()
	r.Runs[0].Cluster = c
	data, err := marshalResult(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := result.Decode([]byte(data))
	if err != nil {
		t.Fatalf("signed per-master figures refused: %v", err)
	}
	if v, ok := result.FieldValue(&got.Runs[0], "cluster.busiest_node_share"); !ok || v != 0.75 {
		t.Errorf("cluster.busiest_node_share = %v, %v", v, ok)
	}
	if _, err := result.FieldDimension("cluster.busiest_node_share"); err != nil {
		t.Errorf("a threshold cannot name the share: %v", err)
	}
	if got.Redis.Cluster == nil || got.Redis.Cluster.Masters != 2 || got.Runs[0].Cluster.Redirections.Total() != 3 {
		t.Errorf("round trip lost the cluster: %+v %+v", got.Redis.Cluster, got.Runs[0].Cluster)
	}
	bad := strings.Replace(data, `"calls": 30`, `"calls": -30`, 1)
	if _, err := result.Decode([]byte(bad)); err == nil || !strings.Contains(err.Error(), "cluster.nodes[1].calls is -30") {
		t.Errorf("a negative call count: %v", err)
	}
}

// TestMergeClusterRepetitions: repetitions keep the worst share, and the
// merged run does not share its figures with a repetition.
func TestMergeClusterRepetitions(t *testing.T) {
	reps := make([]result.Run, 3)
	for i, share := range []float64{0.4, 1, 0.5} {
		reps[i] = resulttest.Sample().Runs[0]
		reps[i].Cluster = &result.Cluster{BusiestNodeShare: share}
	}
	out := result.MergeRepeats(reps)
	if out.Cluster.BusiestNodeShare != 1 {
		t.Errorf("merged share %g, want the worst, 1", out.Cluster.BusiestNodeShare)
	}
	for i, share := range []float64{0.4, 1, 0.5} {
		if reps[i].Cluster.BusiestNodeShare != share {
			t.Errorf("repetition %d changed to %g", i, reps[i].Cluster.BusiestNodeShare)
		}
	}
}

// TestMergeClusterSegments: segments of one load on one cluster read the
// same masters, so the merged run keeps one reading of them, and adds up
// the redirections each segment's own calls met.
func TestMergeClusterSegments(t *testing.T) {
	parts := segments(t, 2)
	for i, p := range parts {
		p.Runs[0].Cluster = &result.Cluster{BusiestNodeShare: 0.4, Nodes: []result.NodeFigures{{Addr: "a:1", Calls: 100}},
			Redirections: result.Redirections{Moved: int64(i + 1), Ask: 2}}
	}
	merged, err := result.MergeSegments(parts)
	if err != nil {
		t.Fatal(err)
	}
	c := merged.Runs[0].Cluster
	if c == nil || c.Redirections != (result.Redirections{Moved: 3, Ask: 4}) || c.Nodes[0].Calls != 100 || c.BusiestNodeShare != 0.4 {
		t.Errorf("merged cluster %+v", c)
	}
	if parts[0].Runs[0].Cluster.Redirections.Moved != 1 {
		t.Errorf("merging changed a segment: %+v", parts[0].Runs[0].Cluster)
	}
}
