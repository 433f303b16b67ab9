package main

import (
	"fmt"
	"io"

	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/livemetrics"
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/workload"
)

// liveMetrics is what --metrics-listen serves while `rlbench run` runs:
// an exporter fed every outcome and told of every run, behind an HTTP
// server on the address given.
type liveMetrics struct {
	exporter *livemetrics.Exporter
	server   *livemetrics.Server
}

// startLiveMetrics starts serving the live metrics of the invocation id at
// addr, and says where on stderr. An address that cannot be served (taken,
// malformed) is bad usage.
func startLiveMetrics(addr string, id livemetrics.Identity, stderr io.Writer) (*liveMetrics, error) {
	e := livemetrics.New(id)
	s, err := livemetrics.Listen(addr, e.Registry())
	if err != nil {
		return nil, usageErrorf("--metrics-listen: %v", err)
	}
	fmt.Fprintf(stderr, "rlbench: live metrics at %s\n", report.Printable(s.URL()))
	return &liveMetrics{exporter: e, server: s}, nil
}

// sinks are what the runner hands every outcome to, and tells of each
// run's traffic: the exporter, when metrics are served.
func (m *liveMetrics) sinks() []event.Sink {
	if m == nil {
		return nil
	}
	return []event.Sink{m.exporter}
}

// url is where the metrics are served ("" when they are not).
func (m *liveMetrics) url() string {
	if m == nil {
		return ""
	}
	return m.server.URL()
}

// close stops serving; a nil liveMetrics has nothing to stop.
func (m *liveMetrics) close() {
	if m != nil {
		_ = m.server.Close()
	}
}

// runObserver, when a test sets it, is told of every run as the progress
// bar is, given where the live metrics are served: it acts at a known
// point of each run (after its traffic, before the next).
var runObserver func(metricsURL string) workload.Observer

// testObserver is runObserver's observer, or nil.
func testObserver(m *liveMetrics) workload.Observer {
	if runObserver == nil {
		return nil
	}
	return runObserver(m.url())
}
