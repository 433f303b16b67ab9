package html

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
)

// TestClusterPage: a result from a Redis Cluster gets, on its page, the
// cluster in the environment, the hot-node warning among what a reader
// must not miss before any table, and per scenario a table of each
// master's figures and a plot of decisions per master.
func TestClusterPage(t *testing.T) {
	r := resulttest.Clustered(t)
	page, figs := renderPage(t, r)
	text := pageText(page)
	hot := strings.Index(text, "hot node: 100% of decisions on one master (127.0.0.1:7001, of 3)")
	firstTable := strings.Index(text, "Which limiter")
	if hot < 0 || firstTable >= 0 && hot > firstTable {
		t.Errorf("the hot-node warning is missing or below the first table (at %d, table at %d)", hot, firstTable)
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
