package main

import (
	"context"
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

// testObserver is the observer of the runObserver hook ctx carries, or
// nil.
func testObserver(ctx context.Context, m *liveMetrics) workload.Observer {
	h := hooksOf(ctx)
	if h.runObserver == nil {
		return nil
	}
	return h.runObserver(m.url())
}
