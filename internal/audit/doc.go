// Package audit judges a run's decisions against what the limiter
// promises: each audited identity's decisions, replayed in server time
// order through the limiter's reference model (or held to its bound on
// the client's clock when the replies carry no server time), its busiest
// window against the bound and the policy, the edge curve around each
// window boundary, and, in a run with faults or an error policy, what the
// faults and the policy did apart from what the limiter did. An Auditor is
// an event.Sink: the engine hands it every outcome.
package audit
