// Package livemetrics serves what a run is doing while it runs, as
// OpenMetrics for Prometheus (rlbench run --metrics-listen): requests,
// decisions and errors by kind, corrected latency and schedule lag as
// histograms, requests in flight, what the limiter admitted against what
// its bound allows, the server's memory, keys and CPU time, and the
// scheduled fault windows, per limiter and scenario.
//
// An Exporter is a sink of the engine (it sees every outcome, with no
// allocation on the request path) and an observer of its runs; a Server
// serves its registry over HTTP. It is the only user of the Prometheus
// client. It reads the engine's progress and never changes what a run
// does: the result is the same with or without it.
package livemetrics
