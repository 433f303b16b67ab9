// Package event is the vocabulary the engine (package workload) shares
// with the packages beside it — the audit, the faults and the probes —
// so that none of them reaches into another: a request's Outcome and the
// Sink that takes every outcome of a run, the Clock outcomes are placed on
// and its Offset from Redis TIME, the KeyScheme that names an identity's
// key, and the events on a run's timeline (a StateLoss, a decision the
// caller's error policy made in Redis's place).
package event
