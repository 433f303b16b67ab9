package livemetrics

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// scrape reads the exporter's metrics as Prometheus would, through its
// HTTP handler, in the text format, and returns them by name.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// value is the value of the series of family name whose labels include
// want (all of them), summed over the series that match: a counter's or a
// gauge's value, a histogram's count.
func value(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f, ok := fams[name]
	if !ok {
		return 0, false
	}
	sum, found := 0.0, false
	for _, m := range f.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range want {
			match = match && labels[k] == v
		}
		if !match {
			continue
		}
		found = true
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		case m.Untyped != nil:
			sum += m.Untyped.GetValue()
		}
	}
	return sum, found
}

func serve(t *testing.T, e *Exporter) string {
	t.Helper()
	s, err := Listen("127.0.0.1:0", e.Registry())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s.URL()
}

type replyError string

func (e replyError) Error() string { return string(e) }
func (replyError) RedisError()     {}

// TestRecordCountsWhatTheResultCounts: every outcome is a request; its
// decision, its error's kind, its lateness and its latency go where the
// result counts them; outcomes before a run starts or after it ends count
// for nothing.
func TestRecordCountsWhatTheResultCounts(t *testing.T) {
	e := New(Identity{Profile: "p", RunID: "abcd"})
	url := serve(t, e)
	start := time.Unix(1_800_000_000, 0)
	out := func(lateBy, took time.Duration, d algorithms.Decision, err error) *event.Outcome {
		return &event.Outcome{Due: start, Sent: start.Add(lateBy), Done: start.Add(lateBy + took), Decision: d, Err: err}
	}
	e.Record(out(0, time.Millisecond, algorithms.Decision{Allowed: true}, nil)) // no run yet: not counted
	p := trafficOf(plan.Run{Algorithm: "token_bucket", Scenario: "steady"})
	e.TrafficStarted(p)
	for range 7 {
		e.Record(out(0, time.Millisecond, algorithms.Decision{Allowed: true, Cost: 3}, nil))
	}
	for range 5 {
		e.Record(out(2*time.Millisecond, 3*time.Millisecond, algorithms.Decision{}, nil))
	}
	e.Record(out(0, time.Second, algorithms.Decision{}, context.DeadlineExceeded))
	e.Record(out(0, time.Millisecond, algorithms.Decision{}, replyError("NOPERM no")))
	e.Record(out(0, time.Millisecond, algorithms.Decision{}, errors.Join(io.EOF)))
	fams := scrape(t, url)
	run := map[string]string{"limiter": "token_bucket", "scenario": "steady", "profile": "p", "run_id": "abcd"}
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"rlbench_requests_total", run, 15},
		{"rlbench_decisions_total", with(run, "decision", "allowed"), 7},
		{"rlbench_decisions_total", with(run, "decision", "denied"), 5},
		{"rlbench_errors_total", run, 3},
		{"rlbench_errors_total", with(run, "kind", "timeout"), 1},
		{"rlbench_errors_total", with(run, "kind", "NOPERM"), 1},
		{"rlbench_errors_total", with(run, "kind", "EOF"), 1},
		{"rlbench_late_requests_total", run, 5},
		{"rlbench_admitted_units_total", run, 21},
		{"rlbench_latency_seconds", run, 15},
		{"rlbench_schedule_lag_seconds", run, 15},
		{"rlbench_run_active", run, 1},
		{"rlbench_in_flight_requests", run, 0},
	} {
		if got, ok := value(fams, c.name, c.labels); !ok || got != c.want {
			t.Errorf("%s%v = %v (found %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	e.TrafficEnded(p)
	e.Record(out(0, time.Millisecond, algorithms.Decision{Allowed: true}, nil)) // after the run: not counted
	fams = scrape(t, url)
	if got, _ := value(fams, "rlbench_requests_total", run); got != 15 {
		t.Errorf("after the run: %v requests, want 15", got)
	}
	if got, _ := value(fams, "rlbench_run_active", run); got != 0 {
		t.Errorf("after the run: rlbench_run_active %v, want 0", got)
	}
	if _, ok := value(fams, "rlbench_in_flight_requests", run); ok {
		t.Error("after the run: it still says how many requests are in flight")
	}
	if _, ok := value(fams, "rlbench_ideal_false_admits", nil); ok {
		t.Error("a run finished without its result is said to have been set beside the ideal")
	}
}

// TestIdealFiguresOnceTheRunIsAudited: a finished run's decisions beside
// the ideal limiter are exported from its result, labelled with the ideal.
func TestIdealFiguresOnceTheRunIsAudited(t *testing.T) {
	e := New(Identity{Profile: "p", RunID: "abcd"})
	url := serve(t, e)
	run := plan.Run{Algorithm: "fixed_window", Scenario: "edge"}
	p := trafficOf(run)
	e.TrafficStarted(p)
	e.TrafficEnded(p)
	a := &result.Accuracy{Ideal: result.IdealSlidingWindow, Decisions: 400, FalseAdmits: 76, FalseDenies: 4}
	a.SetShares()
	e.RunAssessed(p, &result.Run{Algorithm: "fixed_window", Scenario: "edge", Accuracy: a})
	fams := scrape(t, url)
	labels := map[string]string{"limiter": "fixed_window", "scenario": "edge", "ideal": "sliding_window", "profile": "p", "run_id": "abcd"}
	for name, want := range map[string]float64{
		"rlbench_ideal_decisions": 400, "rlbench_ideal_false_admits": 76, "rlbench_ideal_false_denies": 4,
		"rlbench_ideal_false_admit_share": 0.19, "rlbench_ideal_false_deny_share": 0.01,
	} {
		if got, ok := value(fams, name, labels); !ok || got != want {
			t.Errorf("%s = %v (found %v), want %v", name, got, ok, want)
		}
	}
}

func with(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for a, b := range m {
		out[a] = b
	}
	return out
}

// TestFaultWindows: a scheduled fault reads as active inside its window
// (an instant one for a second), and as started once its time has come.
func TestFaultWindows(t *testing.T) {
	e := New(Identity{})
	url := serve(t, e)
	faults := plan.Faults{
		{Kind: plan.FaultPause, At: 0, For: time.Hour},
		{Kind: plan.FaultRestart, At: 0},
		{Kind: plan.FaultLatency, At: time.Hour, For: time.Minute},
	}
	e.TrafficStarted(trafficOf(plan.Run{Algorithm: "a", Scenario: "s", Faults: faults}))
	fams := scrape(t, url)
	for kind, want := range map[string]float64{"pause": 1, "restart": 1, "latency": 0} {
		if got, ok := value(fams, "rlbench_fault_active", map[string]string{"fault": kind}); !ok || got != want {
			t.Errorf("rlbench_fault_active{fault=%q} = %v (found %v), want %v", kind, got, ok, want)
		}
	}
	if got, _ := value(fams, "rlbench_faults_started_total", nil); got != 2 {
		t.Errorf("faults started: %v, want 2", got)
	}
}

// TestRecordAllocatesNothing: the request path pays for the live metrics
// with atomic adds, never with an allocation.
func TestRecordAllocatesNothing(t *testing.T) {
	e := New(Identity{})
	e.TrafficStarted(trafficOf(plan.Run{Algorithm: "a", Scenario: "s"}))
	now := time.Now()
	allowed := &event.Outcome{Due: now, Sent: now, Done: now.Add(time.Millisecond), Decision: algorithms.Decision{Allowed: true}}
	denied := &event.Outcome{Due: now, Sent: now.Add(5 * time.Millisecond), Done: now.Add(time.Second)}
	if n := testing.AllocsPerRun(1000, func() { e.Record(allowed); e.Record(denied) }); n != 0 {
		t.Errorf("Record allocates %v times per pair of decisions", n)
	}
}

// TestOpenMetrics: a scraper that asks for OpenMetrics (as Prometheus
// does) gets it, and the series follow the naming rules.
func TestOpenMetrics(t *testing.T) {
	e := New(Identity{Profile: "p"})
	e.TrafficStarted(trafficOf(plan.Run{Algorithm: "a", Scenario: "s"}))
	e.Record(&event.Outcome{Err: context.DeadlineExceeded})
	url := serve(t, e)
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	// What Prometheus sends.
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/openmetrics-text") {
		t.Errorf("content type %q, want OpenMetrics", ct)
	}
	if !strings.HasSuffix(string(body), "# EOF\n") || !strings.Contains(string(body), "rlbench_requests_total{") {
		t.Errorf("not an OpenMetrics exposition of rlbench's series:\n%s", body)
	}
	problems, err := promlint.NewWithMetricFamilies(gather(t, e)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if strings.HasPrefix(p.Metric, "rlbench_") {
			t.Errorf("%s: %s", p.Metric, p.Text)
		}
	}
}

func gather(t *testing.T, e *Exporter) []*dto.MetricFamily {
	t.Helper()
	fams, err := e.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// TestServedOnlyWhereAsked: :PORT is the loopback interface; a host named
// is kept; what is not an address is refused with an example.
func TestServedOnlyWhereAsked(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{":9100", "127.0.0.1:9100", ""},
		{"0.0.0.0:9100", "0.0.0.0:9100", ""},
		{"[::1]:0", "[::1]:0", ""},
		{"localhost:http", "localhost:http", ""},
		{"9100", "", "is not HOST:PORT"},
		{":99999", "", "is not a port"},
		{":port", "", "is not a port"},
		{"127.0.0.1:", "", `"127.0.0.1:" names no port: give one (e.g. :9100), or :0 for any free port`},
		{":", "", "names no port"},
	} {
		got, err := ListenAddr(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: %q, %v; want an error saying %q", c.in, got, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%q: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// TestABusyAddressIsRefusedAtOnce: an address another listener holds is
// refused, saying so, without waiting; closing a server frees its
// address.
func TestABusyAddressIsRefusedAtOnce(t *testing.T) {
	first, err := Listen(":0", New(Identity{}).Registry())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(first.Addr(), "127.0.0.1:") {
		t.Errorf(":0 listens on %s, want the loopback interface", first.Addr())
	}
	began := time.Now()
	_, err = Listen(first.Addr(), New(Identity{}).Registry())
	if err == nil || !strings.Contains(err.Error(), "is in use") {
		t.Errorf("a second server on %s: %v, want it refused as in use", first.Addr(), err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("refusing took %s", d)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Listen(first.Addr(), New(Identity{}).Registry())
	if err != nil {
		t.Fatalf("after Close, %s is still held: %v", first.Addr(), err)
	}
	_ = again.Close()
	if _, err := http.Get("http://" + again.Addr() + Path); err == nil {
		t.Error("a closed server still answers")
	}
}

// trafficOf is run's traffic, just started, with nothing in flight, no
// bound and no reading of the server yet.
func trafficOf(run plan.Run) *event.Traffic {
	return &event.Traffic{Run: run, Started: time.Now(), InFlight: func() int64 { return 0 },
		AdmissionBound: func(time.Duration) (int64, bool) { return 0, false },
		Server:         func() event.ServerReading { return event.ServerReading{} }}
}
