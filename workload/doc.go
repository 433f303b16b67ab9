// Package workload is rlbench's engine: it runs a resolved plan (package
// plan) against one Redis — open-loop schedules (constant, Poisson, ramp),
// closed loops and the boundary shape, over many goroutines, pipelined or
// not — records every outcome (HDR latency corrected for coordinated
// omission, counts, per-second series, a timeline) and hands each to the
// run's sinks: the audit (package internal/audit) and the faults' recorder
// (internal/faults). Around the traffic it opens the faults and the caller,
// the probes and the reference (internal/probe), lets each finish on its
// own state, and assembles the run's result in one place (assemble).
package workload
