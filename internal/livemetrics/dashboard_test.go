package livemetrics

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/plan"
)

// dashboardFile is the Grafana dashboard over the live metrics.
const dashboardFile = "../../deploy/grafana/rlbench.json"

// dashboard is what the test reads of the dashboard's JSON.
type dashboard struct {
	Title      string `json:"title"`
	UID        string `json:"uid"`
	Templating struct {
		List []struct {
			Name       string `json:"name"`
			Type       string `json:"type"`
			Definition string `json:"definition"`
		} `json:"list"`
	} `json:"templating"`
	Panels []struct {
		Title      string `json:"title"`
		Datasource struct {
			UID string `json:"uid"`
		} `json:"datasource"`
		GridPos struct{ H, W, X, Y int } `json:"gridPos"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// seriesName finds the metric names a PromQL expression reads.
var seriesName = regexp.MustCompile(`\b(?:rlbench|process|go)_[a-z0-9_]+\b`)

// servedNames is every series name the exporter serves with a run in
// progress that has seen every kind of outcome, a fault, a bound and a
// reading of the server: a histogram's family by its _bucket, _sum and
// _count.
func servedNames(t *testing.T) map[string]bool {
	e := New(Identity{Profile: "p", RunID: "r"})
	p := trafficOf(plan.Run{Algorithm: "a", Scenario: "s", Faults: plan.Faults{{Kind: plan.FaultPause, For: time.Hour}}})
	p.Planned = 10
	p.Server = func() event.ServerReading {
		return event.ServerReading{Server: true, UsedMemoryBytes: 1, Keys: 1, CPUSeconds: 1}
	}
	p.AdmissionBound = func(time.Duration) (int64, bool) { return 1, true }
	e.TrafficStarted(p)
	now := time.Now()
	e.Record(&event.Outcome{Due: now, Sent: now, Done: now, Decision: algorithms.Decision{Allowed: true}})
	e.Record(&event.Outcome{Due: now, Sent: now, Done: now})
	e.Record(&event.Outcome{Due: now, Sent: now, Done: now, Err: replyError("OOM")})
	fams, err := e.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range fams {
		names[f.GetName()] = true
		if f.GetType() == dto.MetricType_HISTOGRAM {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				names[f.GetName()+suffix] = true
			}
		}
	}
	return names
}

// TestDashboardReadsServedSeries: deploy/grafana/rlbench.json is a valid
// dashboard whose every query (and variable) names series the exporter
// serves, through the datasource variable, in panels that do not overlap.
func TestDashboardReadsServedSeries(t *testing.T) {
	data, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s is not valid JSON: %v", dashboardFile, err)
	}
	if d.Title == "" || d.UID == "" || len(d.Panels) == 0 {
		t.Fatalf("%s: title %q, uid %q, %d panels: not a dashboard", dashboardFile, d.Title, d.UID, len(d.Panels))
	}
	served := servedNames(t)
	read := map[string]bool{}
	check := func(where, expr string) {
		names := seriesName.FindAllString(expr, -1)
		if len(names) == 0 {
			t.Errorf("%s: %q reads no series", where, expr)
		}
		for _, n := range names {
			read[n] = true
			if !served[n] {
				t.Errorf("%s: %q reads %s, which the live metrics do not serve", where, expr, n)
			}
		}
	}
	for _, v := range d.Templating.List {
		if v.Type == "query" {
			check("variable "+v.Name, v.Definition)
		}
	}
	area := map[[2]int]string{}
	for _, p := range d.Panels {
		if p.Datasource.UID != "${datasource}" {
			t.Errorf("panel %q: datasource %q, want the dashboard's ${datasource}", p.Title, p.Datasource.UID)
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			check("panel "+p.Title, q.Expr)
			if !strings.Contains(q.Expr, `run_id=~"$run_id"`) {
				t.Errorf("panel %q: %q does not pick the runs the dashboard shows", p.Title, q.Expr)
			}
		}
		g := p.GridPos
		for x := g.X; x < g.X+g.W; x++ {
			for y := g.Y; y < g.Y+g.H; y++ {
				if other, ok := area[[2]int{x, y}]; ok {
					t.Fatalf("panels %q and %q overlap", other, p.Title)
				}
				area[[2]int{x, y}] = p.Title
			}
		}
	}
	// The dashboard shows what the issue asks of it.
	for _, n := range []string{"rlbench_requests_total", "rlbench_decisions_total", "rlbench_errors_total", "rlbench_latency_seconds_bucket",
		"rlbench_schedule_lag_seconds_bucket", "rlbench_run_admitted_units", "rlbench_admission_bound_units", "rlbench_in_flight_requests",
		"rlbench_redis_used_memory_bytes", "rlbench_redis_cpu_seconds_total", "rlbench_fault_active", "process_resident_memory_bytes"} {
		if !read[n] {
			t.Errorf("no panel shows %s", n)
		}
	}
}
