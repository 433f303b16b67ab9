// Package plan is what rlbench runs, resolved: every run of a profile (one
// limiter in one scenario, one repetition) with everything it needs
// decided once — its policy, its offered rate in requests a second, its
// concurrency and pipeline, its faults and its caller's error policy — so
// that the engine (package workload) and the packages beside it (the
// audit, the faults, the probes) execute it without reading a profile.
// Package profile reads YAML and produces a Plan; a program may also build
// one itself.
package plan
