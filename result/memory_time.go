package result

// MaxMemorySamples bounds the samples a run's MemoryOverTime keeps: past
// it, every other sample is dropped and the interval doubles, so that an
// hour's run and a day's cost the result alike.
const MaxMemorySamples = 240

// MemorySettleS is how long into a run's traffic rlbench's own memory is
// left to reach its working size (buffers, histograms, the connection
// pool) before RlbenchRSSGrowth measures it.
const MemorySettleS = 60

// MemoryOverTime is rlbench's and the server's memory through a run's
// traffic, sampled every IntervalS seconds: state that grows with time,
// in the limiter's keys or in rlbench itself, shows as a curve that keeps
// rising where it should level off.
type MemoryOverTime struct {
	// IntervalS is the time between samples, in seconds. It starts at one
	// second and doubles each time the samples reach MaxMemorySamples.
	IntervalS float64 `json:"interval_s"`
	// Samples are in time order; the last is taken when the traffic ends.
	Samples []MemorySample `json:"samples"`
	// RlbenchRSS is how rlbench's resident set moved once it had settled;
	// nil for a run shorter than MemorySettleS, or where the resident set
	// is not read (not Linux).
	RlbenchRSS *RSSAfterSettle `json:"rlbench_rss,omitempty"`
}

// RSSAfterSettle is how rlbench's resident set moved after the first
// MemorySettleS seconds of a run's traffic, taken over every reading, not
// only the samples kept: a generator whose memory is bounded stays within a
// few percent of where it settled, however long the run.
type RSSAfterSettle struct {
	// SettledBytes is the first reading at or after MemorySettleS, and
	// PeakBytes the highest from then on.
	SettledBytes uint64 `json:"settled_bytes"`
	PeakBytes    uint64 `json:"peak_bytes"`
	// Growth is PeakBytes over SettledBytes, less one: 0.05 is 5% higher.
	Growth float64 `json:"growth"`
}

// MemorySample is one reading of rlbench's and the server's memory.
type MemorySample struct {
	// TS is when, in seconds from the start of the run's traffic.
	TS float64 `json:"t_s"`
	// RlbenchHeapBytes is the Go heap rlbench's objects held (live or not
	// yet swept), RlbenchRSSBytes its resident set (0 where not read).
	RlbenchHeapBytes uint64 `json:"rlbench_heap_bytes"`
	RlbenchRSSBytes  uint64 `json:"rlbench_rss_bytes"`
	// RedisUsedMemoryBytes is INFO used_memory, and RedisKeys DBSIZE, of
	// the server (every master's added up on a cluster): the whole
	// server's, so on one rlbench did not start they move with other
	// clients' keys too. Both absent where the server was not read (the
	// embedded server, or a reading that failed or came too late).
	RedisUsedMemoryBytes *int64 `json:"redis_used_memory_bytes,omitempty"`
	RedisKeys            *int64 `json:"redis_keys,omitempty"`
}

// BytesPerIdentity is the server's memory per identity through the run:
// at each sample the growth of used_memory since the first sample over
// the identities holding a key by then, counted from the growth of the
// server's keys at the run's own keys per identity (memory.keys over
// memory.identities, from the census after the run). The times are in
// seconds; a sample before MinIdentitiesForBytes identities held a key,
// or without a server reading, gives no point. A limiter whose state per
// identity stays put draws a level line once its identities have come;
// one whose state grows draws a rising one.
func (m *MemoryOverTime) BytesPerIdentity(mem *Memory) (ts, bytes []float64) {
	if m == nil || mem == nil || mem.CensusFailed || mem.Identities <= 0 || mem.Keys <= 0 || len(m.Samples) == 0 {
		return nil, nil
	}
	first := m.Samples[0]
	if first.RedisUsedMemoryBytes == nil || first.RedisKeys == nil {
		return nil, nil
	}
	keysPerIdentity := float64(mem.Keys) / float64(mem.Identities)
	for _, s := range m.Samples[1:] {
		if s.RedisUsedMemoryBytes == nil || s.RedisKeys == nil {
			continue
		}
		identities := float64(*s.RedisKeys-*first.RedisKeys) / keysPerIdentity
		if identities < MinIdentitiesForBytes {
			continue
		}
		ts = append(ts, s.TS)
		bytes = append(bytes, float64(*s.RedisUsedMemoryBytes-*first.RedisUsedMemoryBytes)/identities)
	}
	return ts, bytes
}
