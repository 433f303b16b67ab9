// Package probe reads the server around a run: its memory and command
// statistics before and after the traffic (every master's on a cluster),
// the census of the run's keys and those left without a TTL, evictions and
// restarts, whether a server that failed calls is still there, and the
// reference — what trivial calls cost on the same server, through the same
// client, during the run — that makes a run's figures comparable across
// machines. It also follows rlbench's own memory.
package probe
