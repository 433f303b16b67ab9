//go:build integration

package html

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
)

// TestIntegrationClusterPage: a result from a Redis Cluster gets, on its page, the
// cluster in the environment, the hot-node warning among the notes right
// after the decision, before the runs' tables, and per scenario a table of each
// master's figures and a plot of decisions per master.
func TestIntegrationClusterPage(t *testing.T) {
	r := resulttest.Clustered(t)
	page, figs := renderPage(t, r)
	text := pageText(page)
	hot := strings.Index(text, "hot node: 100% of decisions on one master (127.0.0.1:7001, of 3)")
	decision, env := strings.Index(text, "Which limiter"), strings.Index(text, "\nEnvironment\n")
	if hot < 0 || hot < decision || hot > env {
		t.Errorf("the hot-node warning is missing, or not among the notes between the decision and the environment (at %d, decision at %d, environment at %d)", hot, decision, env)
	}
	for _, want := range []string{
		"Redis Cluster of 3 masters and 0 replicas; masters in slot order: 127.0.0.1:7001, 127.0.0.1:7002, 127.0.0.1:7003",
		"m1 127.0.0.1:7001", "decisions (share)", "100% hot", "[image: Decisions per master of the Redis Cluster — scenario",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	v := newView(r)
	n := 0
	for _, f := range figs {
		if strings.HasPrefix(f.File, "cluster-") {
			n++
		}
	}
	if n != len(v.scenarios) {
		t.Errorf("%d plots of decisions per master, want one per scenario (%d)", n, len(v.scenarios))
	}
	single, err := Plots(resulttest.Fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range single {
		if strings.HasPrefix(f.File, "cluster-") {
			t.Errorf("a single server's result got %s", f.File)
		}
	}
}
