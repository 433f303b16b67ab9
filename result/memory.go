package result

// Memory is what the run's keys cost in Redis, read after the traffic with
// the keys still alive, and what rlbench itself used. Identities counts the
// identities that hold a key; Keys and KeysWithoutTTL come from a full SCAN
// of the run prefix with PTTL (a key without a TTL never expires: a leak,
// and a failed run); UsedMemoryDeltaBytes is INFO memory used_memory after
// the run minus before; BytesPerIdentity is (UsedMemoryDeltaBytes -
// ClientBuffersDeltaBytes) / Identities; MemoryUsageSampledBytes is the
// mean MEMORY USAGE (SAMPLES 0) over SampledKeys keys drawn uniformly from
// the run's.
type Memory struct {
	Identities              int64   `json:"identities"`
	Keys                    int64   `json:"keys"`
	UsedMemoryDeltaBytes    int64   `json:"used_memory_delta_bytes"`
	BytesPerIdentity        float64 `json:"bytes_per_identity"`
	MemoryUsageSampledBytes float64 `json:"memory_usage_sampled_bytes"`
	KeysWithoutTTL          int64   `json:"keys_without_ttl"`
	// KeysOutsidePrefix counts keys a declared limiter's script wrote
	// outside the run prefix it was given (checked on a server rlbench
	// started, where every key is rlbench's): a script must touch only its
	// KEYS, or cleanup cannot be exact and cluster mode refuses it.
	KeysOutsidePrefix int64 `json:"keys_outside_prefix"`
	// OutsidePrefixExamples names a few of those keys.
	OutsidePrefixExamples []string `json:"outside_prefix_examples,omitempty"`
	// KeysOtherDatabases counts the keys the run's limiter wrote in
	// logical databases other than the run's own (a script that SELECTs
	// another): on a server rlbench started every key there, elsewhere
	// those under the run's prefix (provably rlbench's); all of them were
	// removed. KeysOtherDatabasesWithoutTTL counts those that had no
	// expiry, and OtherDatabaseExamples names a few as db<N>:<key>.
	KeysOtherDatabases           int64    `json:"keys_other_databases,omitempty"`
	KeysOtherDatabasesWithoutTTL int64    `json:"keys_other_databases_without_ttl,omitempty"`
	OtherDatabaseExamples        []string `json:"other_database_examples,omitempty"`

	// ClientBuffersDeltaBytes is the change in mem_clients_normal over the
	// run: the buffers of rlbench's own connections, left out of
	// BytesPerIdentity.
	ClientBuffersDeltaBytes int64 `json:"client_buffers_delta_bytes"`
	SampledKeys             int   `json:"sampled_keys"`
	// Encodings counts the OBJECT ENCODING answers in the sample.
	Encodings map[string]int64 `json:"encodings,omitempty"`
	// RlbenchPeakHeapBytes and RlbenchPeakRSSBytes are rlbench's own Go
	// heap and resident set at their highest during the run.
	RlbenchPeakHeapBytes uint64 `json:"rlbench_peak_heap_bytes"`
	RlbenchPeakRSSBytes  uint64 `json:"rlbench_peak_rss_bytes"`
	// AuditHeapBytes is what the audit held once the run's decisions were
	// in, its most: the decisions it kept (16 bytes each in the common
	// case, 48 for a reply that fits no compact record) and a sample's
	// map. It is part of RlbenchPeakHeapBytes.
	AuditHeapBytes uint64 `json:"audit_heap_bytes"`
	// Notes say what a reader of these figures must know.
	Notes []string `json:"notes,omitempty"`
	// CensusFailed says the key census could not be taken: Identities,
	// Keys, KeysWithoutTTL and the figures per key were not measured (they
	// read as absent, not as zero).
	CensusFailed bool `json:"census_failed,omitempty"`
	// Skipped names each check the probes could not make, and why (the
	// key census failed, so keys without a TTL were not looked for): a
	// reader must not take its absence for a pass.
	Skipped []string `json:"skipped,omitempty"`
	// UsedMemoryUnread says the server's used_memory was not read on both
	// sides of the run (INFO refused, a reading that failed, a server
	// replaced by a fault, the embedded server): UsedMemoryDeltaBytes,
	// ClientBuffersDeltaBytes and BytesPerIdentity were not measured, and
	// read as absent, not as zero.
	UsedMemoryUnread bool `json:"used_memory_unread,omitempty"`
	// ExpiredKeys counts the keys that expired on the server between the
	// reading before the run and the census after it (INFO stats
	// expired_keys, read only on a server rlbench started, where every key
	// is the run's): keys of identities the run decided that no longer
	// held one when they were counted. Then UsedMemoryDeltaBytes still
	// holds the hash tables grown for them, and divided by the identities
	// left it is no cost per identity: BytesPerIdentity is that of Fill,
	// or not measured.
	ExpiredKeys int64 `json:"expired_keys,omitempty"`
	// Fill is the memory per identity measured apart from the run's
	// traffic, when its keys expired before the count: as many fresh
	// identities as the run had (at most MaxFillIdentities) each decided
	// once, inside one MULTI with the memory readings around them, where
	// no key can expire before it is counted.
	Fill *MemoryFill `json:"fill,omitempty"`
	// NoFill says why a run whose keys expired before the count has no
	// Fill (a cluster, someone else's server, a limiter whose decision is
	// not one command).
	NoFill string `json:"no_fill,omitempty"`
}

// usedMemoryFields are the figures read from used_memory before and after
// a run.
var usedMemoryFields = []string{"memory.used_memory_delta_bytes", "memory.client_buffers_delta_bytes", "memory.bytes_per_identity"}

// MemoryFill is memory per identity measured by deciding Identities fresh
// identities once each inside one MULTI, with INFO memory and CLIENT LIST
// read in it before and after them: nothing else runs in between, no
// key expires, and the transaction's own buffers (its queued commands,
// its replies) are the clients' share, left out.
type MemoryFill struct {
	Identities              int64   `json:"identities"`
	UsedMemoryDeltaBytes    int64   `json:"used_memory_delta_bytes"`
	ClientBuffersDeltaBytes int64   `json:"client_buffers_delta_bytes"`
	BytesPerIdentity        float64 `json:"bytes_per_identity"`
}

// MaxFillIdentities bounds a fill: one MULTI of 100,000 decisions holds
// the server for about a second and its replies in a few megabytes.
const MaxFillIdentities = 100_000

// censusFields are the figures the key census measures.
var censusFields = []string{"memory.identities", "memory.keys", "memory.keys_without_ttl",
	"memory.bytes_per_identity", "memory.memory_usage_sampled_bytes", "memory.sampled_keys"}

// MinIdentitiesForBytes is the fewest identities holding a key for which
// memory per identity means something: below it, allocator noise of a few
// kilobytes outweighs the keys themselves (and can even make it negative).
const MinIdentitiesForBytes = 1000

// PerIdentity is BytesPerIdentity when it was measured over at least
// MinIdentitiesForBytes identities holding a key (those of the fill when
// the run's keys expired before the count); otherwise false, and the
// figure is not shown, plotted or compared.
func (m *Memory) PerIdentity() (float64, bool) {
	switch {
	case m == nil:
		return 0, false
	case m.Fill != nil:
		return m.Fill.BytesPerIdentity, m.Fill.Identities >= MinIdentitiesForBytes
	case m.ExpiredKeys > 0 || m.Identities < MinIdentitiesForBytes || m.UsedMemoryUnread:
		return 0, false
	}
	return m.BytesPerIdentity, true
}

// Server is the server-side cost of the limiter's script, from INFO
// commandstats (cmdstat_evalsha, or cmdstat_fcall for a Redis Function)
// before and after the run.
type Server struct {
	// Command is the command whose figures these are ("evalsha", "fcall"),
	// or the commands of one decision joined by "+" ("multi+exec",
	// "incr+pexpire+pttl"), whose times per call add up; empty in results
	// written before declared limiters: evalsha.
	Command     string  `json:"command,omitempty"`
	UsecPerCall float64 `json:"usec_per_call"`
	Calls       int64   `json:"calls"`

	// Usec is the server time of those calls, in microseconds.
	Usec        int64 `json:"usec"`
	FailedCalls int64 `json:"failed_calls"`
	// StatsReset says CONFIG RESETSTAT ran before the run (only ever on a
	// server rlbench started).
	StatsReset bool   `json:"stats_reset"`
	Note       string `json:"note,omitempty"`
}
