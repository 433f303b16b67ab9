// Package faults runs a scenario's faults and the limiter's caller: the
// Session opens what the faults need (a control connection, an in-process
// Toxiproxy between rlbench and Redis, a private replica for a failover),
// wraps the limiter in the caller that bounds, retries and, when Redis
// gives no decision, decides by its error policy, injects the faults on
// the run's clock, watches them from the server's side, and reports each
// fault's window and recovery. It takes the run's outcomes as an
// event.Sink, and tells the audit of calls that may have run unseen.
package faults
