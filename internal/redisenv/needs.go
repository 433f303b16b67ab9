package redisenv

// Need is a command rlbench sends to a server it did not start, besides
// those of the limiters (algorithms.ACLCommands): as ACL SETUSER grants
// it, what rlbench does with it, and when it sends it. `rlbench acl`
// builds a user's line from these, and docs/redis.md tabulates them.
type Need struct {
	// ACL names the command as ACL SETUSER grants it: "info",
	// "memory|usage".
	ACL string
	// For says what rlbench does with it, and what is missing without it.
	For string
	// When says when rlbench sends it: WhenAlways, or a condition.
	When string
}

// When a Need applies.
const (
	// WhenAlways: every run on a server rlbench did not start.
	WhenAlways = ""
	// WhenCluster: on a Redis Cluster.
	WhenCluster = "cluster"
	// WhenPause and WhenStall: a profile that schedules that fault.
	WhenPause = "pause"
	WhenStall = "stall"
	// WhenSegment: a run with --segment.
	WhenSegment = "segment"
)

// Needs lists the commands of Need, in the order `rlbench acl` grants
// them.
var Needs = []Need{
	{ACL: "ping", For: "connecting, and asking whether a server that failed calls is still there"},
	{ACL: "time", For: "the server's clock, which requests, faults and what the watch sees are placed on"},
	{ACL: "info", For: "the version and eviction policy; used_memory before and after each run (memory per identity); " +
		"INFO commandstats (server time per decision, the server cost against the reference); evictions, expiries and restarts; " +
		"the watch that finds state reset by another client (FLUSHALL, DEL, evictions, a restart, a script flush); memory and CPU over time"},
	{ACL: "multi", For: "the watch reads TIME and INFO in one transaction, as the faults read TIME with the command they inject"},
	{ACL: "exec", For: "(as multi)"},
	{ACL: "dbsize", For: "the server's keys over time"},
	{ACL: "scan", For: "the key census (keys, identities, keys without a TTL) and removing the run's keys"},
	{ACL: "pttl", For: "the key census: which keys have no TTL (a leak)"},
	{ACL: "unlink", For: "removing the run's keys (without it DEL removes them; without both they are left to expire)"},
	{ACL: "memory|usage", For: "the size of a sample of the run's keys (MEMORY USAGE)"},
	{ACL: "object|encoding", For: "the encodings of a sample of the run's keys"},
	{ACL: "evalsha_ro", For: "the reference: a trivial script called beside each run, which its relative figures are measured against"},
	{ACL: "script|load", For: "loading the reference's script and each scripted limiter's"},
	{ACL: "command|info", For: "checking, before any traffic, that the server knows every command the limiters send and their scripts call: one renamed away would fail every decision without saying which (not checked where refused)"},
	{ACL: "cluster|slots", For: "which master serves which slot: without it no key can be routed", When: WhenCluster},
	{ACL: "client|pause", For: "the pause fault (CLIENT PAUSE) on a server rlbench did not start", When: WhenPause},
	{ACL: "debug", For: "the stall fault (DEBUG SLEEP) on a server rlbench did not start; the server must also allow DEBUG (enable-debug-command)", When: WhenStall},
	{ACL: "get", For: "the segments of one load meeting under rlbench:seg-* before they start", When: WhenSegment},
	{ACL: "set", For: "(as get)", When: WhenSegment},
	{ACL: "incr", For: "(as get)", When: WhenSegment},
	{ACL: "expire", For: "(as get)", When: WhenSegment},
	{ACL: "select", For: "choosing the database (redis.db); looking in another logical database that gained keys during a run for keys the limiter's script wrote there (a script that SELECTs it)"},
}

// ACLKeys is the key pattern of every key rlbench writes or reads.
const ACLKeys = "~" + KeyPrefixRoot + "*"
