package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// scrapingObserver scrapes the live metrics when each run's traffic has
// ended and every outcome of it is recorded: a known point, so what it
// reads is certain.
type scrapingObserver struct {
	t       *testing.T
	url     string
	scrapes []map[string]*dto.MetricFamily
	during  []map[string]*dto.MetricFamily
}

func (s *scrapingObserver) RunStarted(*workload.Progress) {
	s.during = append(s.during, scrapeMetrics(s.t, s.url))
}

func (s *scrapingObserver) RunFinished(*workload.Progress, *result.Run) {
	s.scrapes = append(s.scrapes, scrapeMetrics(s.t, s.url))
}

func scrapeMetrics(t *testing.T, url string) map[string]*dto.MetricFamily {
	resp, err := http.Get(url)
	if err != nil {
		t.Errorf("scraping %s: %v", url, err)
		return nil
	}
	defer resp.Body.Close()
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Errorf("scraping %s: %v", url, err)
	}
	return fams
}

// series is the value of one series (a histogram's count) of the family
// whose labels include want, and whether there is one.
func series(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
	total, found := 0.0, false
	for _, m := range f.Metric {
		match := 0
		for _, l := range m.Label {
			if v, ok := want[l.GetName()]; ok && v == l.GetValue() {
				match++
			}
		}
		if match != len(want) {
			continue
		}
		found = true
		switch {
		case m.Counter != nil:
			total += m.Counter.GetValue()
		case m.Gauge != nil:
			total += m.Gauge.GetValue()
		case m.Histogram != nil:
			total += float64(m.Histogram.GetSampleCount())
		}
	}
	return total, found
}

// TestLiveMetricsMatchTheResult: a run with --metrics-listen serves its
// metrics while it runs; scraped when each run's traffic has ended, every
// count equals the one result.json records for that run, and the server's
// memory is there; once rlbench has finished, nothing is served.
func TestLiveMetricsMatchTheResult(t *testing.T) {
	t.Parallel()
	obs := &scrapingObserver{t: t}
	scrape := hooks{runObserver: func(url string) workload.Observer {
		obs.url = url
		return obs
	}}
	res, _, _ := runAndReadWith(t, scrape, "tiny", tinyProfile, "--metrics-listen", ":0")
	if !strings.HasPrefix(obs.url, "http://127.0.0.1:") {
		t.Fatalf("metrics served at %q, want the loopback interface", obs.url)
	}
	if len(obs.scrapes) != len(res.Runs) {
		t.Fatalf("%d scrapes for %d runs", len(obs.scrapes), len(res.Runs))
	}
	for i, run := range res.Runs {
		fams := obs.scrapes[i]
		labels := map[string]string{"limiter": run.Algorithm, "scenario": run.Scenario, "profile": "tiny", "run_id": res.RunID}
		q := run.Requests
		for _, c := range []struct {
			name string
			with map[string]string
			want int64
		}{
			{"rlbench_requests_total", nil, q.Sent},
			{"rlbench_decisions_total", map[string]string{"decision": "allowed"}, q.Allowed},
			{"rlbench_decisions_total", map[string]string{"decision": "denied"}, q.Denied},
			{"rlbench_late_requests_total", nil, q.Late},
			{"rlbench_admitted_units_total", nil, q.Allowed},
			{"rlbench_latency_seconds", nil, run.LatencyUs.Count},
			{"rlbench_schedule_lag_seconds", nil, q.Sent},
			{"rlbench_run_active", nil, 0},
		} {
			want := map[string]string{}
			for k, v := range labels {
				want[k] = v
			}
			for k, v := range c.with {
				want[k] = v
			}
			if got, ok := series(fams, c.name, want); !ok || int64(got) != c.want {
				t.Errorf("%s: %s%v = %v (found %v), result.json says %d", run.Key(), c.name, c.with, got, ok, c.want)
			}
		}
		if got, _ := series(fams, "rlbench_errors_total", labels); int64(got) != q.Errors {
			t.Errorf("%s: %v errors served, result.json says %d", run.Key(), got, q.Errors)
		}
		if used, ok := series(fams, "rlbench_redis_used_memory_bytes", nil); !ok || used <= 0 {
			t.Errorf("%s: no server memory served", run.Key())
		}
		// As the run began, its traffic was on, and its bound was served.
		if active, _ := series(obs.during[i], "rlbench_run_active", labels); active != 1 {
			t.Errorf("%s: rlbench_run_active %v as its traffic began", run.Key(), active)
		}
		if _, ok := series(obs.during[i], "rlbench_admission_bound_units", labels); !ok {
			t.Errorf("%s: no admission bound served during the run", run.Key())
		}
	}
	if _, err := http.Get(obs.url); err == nil {
		t.Error("the metrics are still served after rlbench finished")
	}
}

// TestMetricsListenRefusesABusyAddress: an address another program holds
// is bad usage, said at once, before any Redis is started.
func TestMetricsListenRefusesABusyAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	began := time.Now()
	code, _, stderr := runCLI(t, "run", "--metrics-listen", ln.Addr().String(), "--out", t.TempDir(), writeProfile(t, tinyProfile))
	if code != exitUsage || !strings.Contains(stderr, "--metrics-listen: "+ln.Addr().String()+" is in use") {
		t.Errorf("exit %d, stderr %q; want exit 2 saying the address is in use", code, stderr)
	}
	if strings.Contains(stderr, "redis-server") {
		t.Errorf("a Redis was started before the address was refused: %q", stderr)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("refusing took %s", d)
	}
}

// cancellingObserver interrupts the run (as Ctrl-C does) as soon as its
// first run starts.
type cancellingObserver struct {
	cancel func()
	url    string
	served bool
	t      *testing.T
}

func (c *cancellingObserver) RunStarted(*workload.Progress) {
	c.served = scrapeMetrics(c.t, c.url) != nil
	c.cancel()
}

func (c *cancellingObserver) RunFinished(*workload.Progress, *result.Run) {}

// TestMetricsStopOnCtrlC: a run interrupted while the metrics are served
// stops serving them when it stops.
func TestMetricsStopOnCtrlC(t *testing.T) {
	t.Parallel()
	redistest.ServerPath(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	obs := &cancellingObserver{cancel: cancel, t: t}
	cancelling := hooks{runObserver: func(url string) workload.Observer {
		obs.url = url
		return obs
	}}
	var out, errb bytes.Buffer
	code := run(withHooks(ctx, cancelling), []string{"run", "--quiet", "--metrics-listen", ":0", "--out", t.TempDir(), writeProfile(t, tinyProfile)}, &out, &errb)
	if code != exitRuntime || !obs.served {
		t.Errorf("exit %d (want 3), metrics served before the interrupt: %v\n%s", code, obs.served, errb.String())
	}
	if _, err := http.Get(obs.url); err == nil {
		t.Error("the metrics are still served after the interrupted run ended")
	}
}
