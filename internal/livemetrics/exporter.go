package livemetrics

import (
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/result"
)

// Labels every rlbench series carries, besides its own.
const (
	// LabelLimiter and LabelScenario name the run: the algorithm (or
	// declared limiter) and the scenario.
	LabelLimiter  = "limiter"
	LabelScenario = "scenario"
)

// Identity names the invocation the series come from, as constant labels
// on every rlbench series: a dashboard picks one run, and adds up the
// segments of a load (each one process, one scrape target).
type Identity struct {
	// Profile is the profile's name, RunID the invocation's run id.
	Profile, RunID string
	// Segment is "I/N" for one segment of a load; empty for a whole one.
	Segment string
}

// maxErrorKinds bounds the error kinds kept apart (as the result does);
// the rest count as other.
const maxErrorKinds = 20

// latencyBuckets and lagBuckets are the histograms' upper bounds, in
// seconds: doubling from 50µs to 26s, and from 100µs to 6.5s.
var (
	latencyBuckets = prometheus.ExponentialBuckets(50e-6, 2, 20)
	lagBuckets     = prometheus.ExponentialBuckets(100e-6, 2, 17)
)

// Exporter keeps the live metrics of an invocation's runs. It is an
// event.Sink of every outcome, an event.Watcher of each run's traffic and
// an event.Assessor of each run's result (give it to workload.Runner.Sinks);
// Registry is what a Server serves.
type Exporter struct {
	reg *prometheus.Registry

	requests, late, admitted *prometheus.CounterVec
	decisions, errors        *prometheus.CounterVec
	latency, lag             *prometheus.HistogramVec
	active                   *prometheus.GaugeVec
	// idealDecisions, falseAdmits, falseDenies, falseAdmitShare and
	// falseDenyShare are each finished run's decisions beside the ideal
	// limiter of its policy (result: accuracy), set once its audit is
	// done.
	idealDecisions, falseAdmits, falseDenies *prometheus.GaugeVec
	falseAdmitShare, falseDenyShare          *prometheus.GaugeVec

	// current is the run whose traffic is going on: what Record adds to,
	// and what the run collector reads; latest is the latest run started,
	// whose readings of the server stand until the next.
	current, latest atomic.Pointer[runMetrics]

	kindsMu sync.Mutex
	kinds   map[string]bool
}

var (
	_ event.Sink     = (*Exporter)(nil)
	_ event.Watcher  = (*Exporter)(nil)
	_ event.Assessor = (*Exporter)(nil)
)

// New makes an Exporter whose series carry id. Its registry also serves
// the Go runtime's and the process's own metrics (go_*, process_*:
// rlbench's heap and resident set), with id's labels too.
func New(id Identity) *Exporter {
	e := &Exporter{reg: prometheus.NewRegistry(), kinds: map[string]bool{}}
	run := []string{LabelLimiter, LabelScenario}
	e.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rlbench_requests_total",
		Help: "Requests the run sent that have been answered or failed (result: requests.sent)."}, run)
	e.decisions = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rlbench_decisions_total",
		Help: "The limiter's decisions, allowed or denied (result: requests.allowed, requests.denied)."}, append(run, "decision"))
	e.errors = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rlbench_errors_total",
		Help: "Calls that got no decision, by kind: timeout, connection refused, EOF, connection reset, a Redis error code, other (result: errors)."}, append(run, "kind"))
	e.late = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rlbench_late_requests_total",
		Help: "Requests sent more than 1ms after they were due: the generator fell behind its schedule (result: requests.late)."}, run)
	e.admitted = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rlbench_admitted_units_total",
		Help: "Units the limiter admitted (one per request unless the scenario gives requests a cost)."}, run)
	e.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rlbench_latency_seconds",
		Help: "Decision latency from each request's due time to its reply, corrected for coordinated omission (result: latency_us).", Buckets: latencyBuckets}, run)
	e.lag = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rlbench_schedule_lag_seconds",
		Help: "How long after its due time each request went out.", Buckets: lagBuckets}, run)
	e.active = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rlbench_run_active",
		Help: "1 while the run's traffic goes on, 0 once it has ended."}, run)
	ideal := append(run[:len(run):len(run)], "ideal")
	e.idealDecisions = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rlbench_ideal_decisions",
		Help: "The finished run's decisions set beside the ideal limiter of its policy, which is run on the same arrivals; set once the run's audit is done (result: accuracy.decisions)."}, ideal)
	e.falseAdmits = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rlbench_ideal_false_admits",
		Help: "Of them, those the limiter admitted and the ideal denies (result: accuracy.false_admits)."}, ideal)
	e.falseDenies = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rlbench_ideal_false_denies",
		Help: "Of them, those the limiter denied and the ideal admits (result: accuracy.false_denies)."}, ideal)
	e.falseAdmitShare = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rlbench_ideal_false_admit_share",
		Help: "False admits over the decisions compared, 0 to 1 (result: accuracy.false_admit_share)."}, ideal)
	e.falseDenyShare = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rlbench_ideal_false_deny_share",
		Help: "False denies over the decisions compared, 0 to 1 (result: accuracy.false_deny_share)."}, ideal)

	labels := prometheus.Labels{"profile": id.Profile, "run_id": id.RunID, "segment": id.Segment}
	own := prometheus.WrapRegistererWith(labels, e.reg)
	own.MustRegister(e.requests, e.decisions, e.errors, e.late, e.admitted, e.latency, e.lag, e.active, runCollector{e},
		e.idealDecisions, e.falseAdmits, e.falseDenies, e.falseAdmitShare, e.falseDenyShare,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return e
}

// Registry is what the exporter serves.
func (e *Exporter) Registry() *prometheus.Registry { return e.reg }

// runMetrics are one run's series, looked up once when it starts, so that
// recording an outcome allocates nothing and takes no lock.
type runMetrics struct {
	traffic *event.Traffic
	labels  []string
	// admittedUnits counts what the limiter admitted in this run, against
	// its bound since the run started.
	admittedUnits atomic.Int64

	requests, late, admitted prometheus.Counter
	allowed, denied          prometheus.Counter
	latency, lag             prometheus.Observer

	// errorsMu guards errors: an error's kind is looked up by name, off
	// the path of answered requests.
	errorsMu sync.Mutex
	errors   map[string]prometheus.Counter
}

// TrafficStarted implements event.Watcher: from now on, outcomes count
// towards t's run.
func (e *Exporter) TrafficStarted(t *event.Traffic) {
	p := t
	labels := []string{p.Run.Algorithm, p.Run.Scenario}
	r := &runMetrics{
		traffic: t, labels: labels,
		requests: e.requests.WithLabelValues(labels...),
		late:     e.late.WithLabelValues(labels...),
		admitted: e.admitted.WithLabelValues(labels...),
		allowed:  e.decisions.WithLabelValues(p.Run.Algorithm, p.Run.Scenario, "allowed"),
		denied:   e.decisions.WithLabelValues(p.Run.Algorithm, p.Run.Scenario, "denied"),
		latency:  e.latency.WithLabelValues(labels...),
		lag:      e.lag.WithLabelValues(labels...),
		errors:   map[string]prometheus.Counter{},
	}
	e.active.WithLabelValues(labels...).Set(1)
	e.latest.Store(r)
	e.current.Store(r)
}

// TrafficEnded implements event.Watcher: the run's traffic is over and
// every outcome of it has been recorded.
func (e *Exporter) TrafficEnded(t *event.Traffic) {
	e.active.WithLabelValues(t.Run.Algorithm, t.Run.Scenario).Set(0)
	e.current.Store(nil)
}

// RunAssessed implements event.Assessor: the run's result is whole, and its
// decisions beside the ideal limiter, when it has them, are exported.
func (e *Exporter) RunAssessed(t *event.Traffic, r *result.Run) {
	if r == nil || r.Accuracy == nil {
		return
	}
	a := r.Accuracy
	labels := []string{t.Run.Algorithm, t.Run.Scenario, a.Ideal}
	e.idealDecisions.WithLabelValues(labels...).Set(float64(a.Decisions))
	e.falseAdmits.WithLabelValues(labels...).Set(float64(a.FalseAdmits))
	e.falseDenies.WithLabelValues(labels...).Set(float64(a.FalseDenies))
	e.falseAdmitShare.WithLabelValues(labels...).Set(a.FalseAdmitShare)
	e.falseDenyShare.WithLabelValues(labels...).Set(a.FalseDenyShare)
}

// Record implements event.Sink. It allocates nothing for a decision.
func (e *Exporter) Record(o *event.Outcome) {
	r := e.current.Load()
	if r == nil {
		return
	}
	r.requests.Inc()
	r.latency.Observe(float64(result.HistMicros(o.Done.Sub(o.Due))) / 1e6)
	lag := max(o.Sent.Sub(o.Due), 0)
	r.lag.Observe(lag.Seconds())
	if lag > event.LateThreshold {
		r.late.Inc()
	}
	switch {
	case o.Err != nil:
		r.countError(e, redisenv.ErrorKind(o.Err))
	case o.Decision.Allowed:
		r.allowed.Inc()
		units := o.Decision.Units()
		r.admitted.Add(float64(units))
		r.admittedUnits.Add(units)
	default:
		r.denied.Inc()
	}
}

// countError counts one failed call of kind, keeping at most
// maxErrorKinds kinds apart over the invocation.
func (r *runMetrics) countError(e *Exporter, kind string) {
	e.kindsMu.Lock()
	if !e.kinds[kind] {
		if len(e.kinds) >= maxErrorKinds {
			kind = redisenv.KindOther
		}
		e.kinds[kind] = true
	}
	e.kindsMu.Unlock()
	r.errorsMu.Lock()
	c, ok := r.errors[kind]
	if !ok {
		c = e.errors.WithLabelValues(r.labels[0], r.labels[1], kind)
		r.errors[kind] = c
	}
	r.errorsMu.Unlock()
	c.Inc()
}
