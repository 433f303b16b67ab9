// Package arrivals says when each request of a run is due and whose it
// is: the pacers of an open loop (constant, Poisson, a ramp through
// stages), the identity pickers (in turn, at random, Zipf, sequential
// then a Zipf head), the schedule they make together, and a trace's
// requests replayed as one. Everything here is pure given its inputs and
// seed, so the same plan gives the same arrivals in every process of a
// segmented load; the engine (workload) sends them and never decides them.
package arrivals
