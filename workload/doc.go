// Package workload is rlbench's engine: it turns a profile's plan into
// traffic — open-loop schedules (constant, Poisson), closed loops and the
// boundary shape, over many goroutines — against the limiters, records
// every outcome (HDR latency corrected for coordinated omission, counts,
// per-second series), audits the decisions against each limiter's reference
// model and bound, reads the server's memory and command statistics, and
// reports all of it as the result contract (package result).
package workload
