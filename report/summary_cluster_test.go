package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

func TestFormatMasterShare(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{1, "100%"},      // everything
		{0.996, "99%"},   // not everything: never rounded up to all
		{1.0 / 3, "33%"}, // an even share of three
		{0.004, "1%"},    // something: never rounded down to nothing
		{0, "0%"},        // nothing
	} {
		if got := FormatMasterShare(tc.f); got != tc.want {
			t.Errorf("FormatMasterShare(%g) = %s, want %s", tc.f, got, tc.want)
		}
	}
}

// TestSummaryOfACluster: the summary names the cluster in its head, flags
// the hot node first among the notes, before the tables (once),
// and shows each run's shares per master with the busiest one marked.
func TestSummaryOfACluster(t *testing.T) {
	r := resulttest.Clustered(t)
	var buf bytes.Buffer
	if err := WriteSummary(&buf, r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	lines := strings.Split(out, "\n")
	first := r.Runs[0].Scenario
	if !strings.Contains(lines[1], "redis private Redis Cluster 7.") || !strings.Contains(lines[1], "3 masters, 0 replicas") {
		t.Errorf("the head does not name the cluster: %q", lines[1])
	}
	// The limiter failed nothing, so the hot node opens the notes, right
	// after the decision and before the tables.
	want := "! " + first + ": hot node: 100% of decisions on one master (127.0.0.1:7001, of 3) for "
	notes := slices.Index(lines, "notes:")
	if notes < 0 || notes+1 >= len(lines) || !strings.HasPrefix(lines[notes+1], want) || !strings.Contains(lines[notes+1], "hash_tag: fixed puts every identity under one hash tag") {
		t.Errorf("the notes do not open with the hot node %q:\n%s", want, out)
	} else if tables := strings.Index(out, "sent  allowed"); tables < strings.Index(out, want) {
		t.Errorf("the hot node comes after the tables:\n%s", out)
	}
	if n := strings.Count(out, "hot node:"); n != 1 {
		t.Errorf("the hot node is flagged %d times", n)
	}
	if !strings.Contains(out, "cluster: decisions per master, and what else each master took (m1 127.0.0.1:7001, m2 127.0.0.1:7002, m3 127.0.0.1:7003)") ||
		!strings.Contains(out, "100% HOT") || !strings.Contains(out, "33%") {
		t.Errorf("no cluster table, or no HOT mark:\n%s", out)
	}
	if notes := Notes(r); len(notes) == 0 || !strings.Contains(strings.Join(notes, "\n"), "hot node: 100%") {
		t.Errorf("the page's notes lack the hot node: %v", notes)
	}
}

// TestHotNodeReasons: the warning says why one master took the work.
func TestHotNodeReasons(t *testing.T) {
	hot := func(tag string, identities int) *result.Result {
		r := resulttest.Sample()
		r.Redis.Cluster = &result.ClusterInfo{Masters: 3, Nodes: resulttest.ClusterMasters}
		run := &r.Runs[0]
		run.Identities = identities
		run.Cluster = &result.Cluster{HashTag: tag, Nodes: []result.NodeFigures{{Addr: "a", Calls: 9}, {Addr: "b", Calls: 1}, {Addr: "c"}}}
		run.Cluster.SetShares()
		return r
	}
	for _, tc := range []struct {
		why, tag   string
		identities int
		want       string
	}{
		{"the issue's bad tag", "fixed", 60, "hash_tag: fixed puts every identity under one hash tag"},
		{"too few identities", "identity", 2, "2 identities cannot spread over 3 masters"},
		{"a user's templates", "declared", 60, "the limiter's key templates share a hash tag across identities"},
		{"bad luck of the slots", "identity", 60, "fell unevenly on the masters"},
	} {
		notes := HotNodeNotes(hot(tc.tag, tc.identities))
		if len(notes) != 1 || !strings.Contains(notes[0], "hot node: 90% of decisions on one master (a, of 3)") || !strings.Contains(notes[0], tc.want) {
			t.Errorf("%s: %v, want %q", tc.why, notes, tc.want)
		}
	}
	if notes := HotNodeNotes(resulttest.Fixture(t)); len(notes) != 0 {
		t.Errorf("a single server has no hot node: %v", notes)
	}
}

// TestHotNodeThreshold: the threshold fails the verdict on the
// runs whose busiest master made every decision, and holds on the runs
// spread over three masters.
func TestHotNodeThreshold(t *testing.T) {
	r := resulttest.Clustered(t)
	r.Verdict, r.VerdictReasons = "", nil
	th, err := result.ParseThreshold("*/* cluster.busiest_node_share <= 0.5")
	if err != nil {
		t.Fatal(err)
	}
	verdict.Judge(r, []*result.Threshold{th})
	hot := r.Runs[0].Scenario
	if len(r.Thresholds) != len(r.Runs) {
		t.Fatalf("%d threshold results for %d runs", len(r.Thresholds), len(r.Runs))
	}
	for _, tr := range r.Thresholds {
		wantOK := !strings.HasSuffix(tr.Run, "/"+hot)
		if tr.OK != wantOK || (!wantOK && tr.Value != 1) {
			t.Errorf("%s: ok %v at %g, want ok %v", tr.Run, tr.OK, tr.Value, wantOK)
		}
	}
	if r.Verdict != result.Fail || !strings.Contains(strings.Join(r.VerdictReasons, "\n"), "cluster.busiest_node_share <= 0.5") {
		t.Errorf("verdict %s: %v", r.Verdict, r.VerdictReasons)
	}
}
