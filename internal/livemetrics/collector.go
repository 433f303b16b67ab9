package livemetrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The series a scrape reads from the run in progress and the server,
// rather than counts kept as outcomes come.
var (
	inFlightDesc = prometheus.NewDesc("rlbench_in_flight_requests",
		"Requests sent and not yet answered (a pipeline's batch counts each of its requests).", []string{LabelLimiter, LabelScenario}, nil)
	plannedDesc = prometheus.NewDesc("rlbench_planned_requests",
		"Requests the run's schedule holds (this segment's share); absent when only time bounds the run.", []string{LabelLimiter, LabelScenario}, nil)
	boundDesc = prometheus.NewDesc("rlbench_admission_bound_units",
		"The most units the limiter promises to admit to all the run's identities together since its traffic started: its bound for one identity over that time, times the identities. A correct limiter's rlbench_run_admitted_units stays below it.", []string{LabelLimiter, LabelScenario}, nil)
	runAdmittedDesc = prometheus.NewDesc("rlbench_run_admitted_units",
		"Units the limiter admitted since the run's traffic started (rlbench_admitted_units_total adds up every run and repetition).", []string{LabelLimiter, LabelScenario}, nil)
	elapsedDesc = prometheus.NewDesc("rlbench_run_elapsed_seconds",
		"Time since the run's traffic started.", []string{LabelLimiter, LabelScenario}, nil)
	faultActiveDesc = prometheus.NewDesc("rlbench_fault_active",
		"1 inside a fault window the profile scheduled, 0 outside it, per fault kind; a fault that happens at once (a restart, a script flush) has a window of a second.", []string{LabelLimiter, LabelScenario, "fault"}, nil)
	faultsDesc = prometheus.NewDesc("rlbench_faults_started_total",
		"Scheduled faults that have started, per fault kind.", []string{LabelLimiter, LabelScenario, "fault"}, nil)
	usedMemoryDesc = prometheus.NewDesc("rlbench_redis_used_memory_bytes",
		"The server's INFO used_memory (every master's added up), read every second during a run.", nil, nil)
	keysDesc = prometheus.NewDesc("rlbench_redis_keys",
		"The server's keys (DBSIZE, every master's added up), read every second during a run.", nil, nil)
	cpuDesc = prometheus.NewDesc("rlbench_redis_cpu_seconds_total",
		"CPU time the server has used since it started (INFO used_cpu_sys + used_cpu_user, every master's added up).", nil, nil)
)

// instantFaultWindow is how long a fault that happens at once counts as
// active, so that a scrape can see it.
const instantFaultWindow = time.Second

// runCollector reads, at each scrape, the run in progress (requests in
// flight, its bound so far, its fault windows) and the latest reading of
// the server.
type runCollector struct{ e *Exporter }

// Describe implements prometheus.Collector.
func (c runCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{inFlightDesc, plannedDesc, boundDesc, runAdmittedDesc, elapsedDesc, faultActiveDesc, faultsDesc, usedMemoryDesc, keysDesc, cpuDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c runCollector) Collect(ch chan<- prometheus.Metric) {
	if latest := c.e.latest.Load(); latest != nil {
		if m := latest.traffic.Server(); m.Server {
			ch <- prometheus.MustNewConstMetric(usedMemoryDesc, prometheus.GaugeValue, float64(m.UsedMemoryBytes))
			ch <- prometheus.MustNewConstMetric(keysDesc, prometheus.GaugeValue, float64(m.Keys))
			ch <- prometheus.MustNewConstMetric(cpuDesc, prometheus.CounterValue, m.CPUSeconds)
		}
	}
	r := c.e.current.Load()
	if r == nil {
		return
	}
	p, labels := r.traffic, r.labels
	elapsed := time.Since(p.Started)
	ch <- prometheus.MustNewConstMetric(inFlightDesc, prometheus.GaugeValue, float64(p.InFlight()), labels...)
	ch <- prometheus.MustNewConstMetric(elapsedDesc, prometheus.GaugeValue, elapsed.Seconds(), labels...)
	if p.Planned > 0 {
		ch <- prometheus.MustNewConstMetric(plannedDesc, prometheus.GaugeValue, float64(p.Planned), labels...)
	}
	ch <- prometheus.MustNewConstMetric(runAdmittedDesc, prometheus.GaugeValue, float64(r.admittedUnits.Load()), labels...)
	if bound, ok := p.AdmissionBound(elapsed); ok {
		ch <- prometheus.MustNewConstMetric(boundDesc, prometheus.GaugeValue, float64(bound), labels...)
	}
	active, started := map[string]float64{}, map[string]float64{}
	for _, f := range p.Run.Faults {
		kind := string(f.Kind)
		active[kind] += 0
		started[kind] += 0
		if elapsed < f.At {
			continue
		}
		started[kind]++
		if elapsed < f.At+max(f.For, instantFaultWindow) {
			active[kind] = 1
		}
	}
	for kind, v := range active {
		ch <- prometheus.MustNewConstMetric(faultActiveDesc, prometheus.GaugeValue, v, labels[0], labels[1], kind)
		ch <- prometheus.MustNewConstMetric(faultsDesc, prometheus.CounterValue, started[kind], labels[0], labels[1], kind)
	}
}
