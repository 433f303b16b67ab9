// Package report holds the result contract (result.json) and everything that
// renders it: the terminal summary, plots, the HTML page, thresholds and
// baseline comparison. It needs no Redis: a result file is enough.
package report

import "time"

// Schema identifies version 1 of the result contract.
const Schema = "rlbench.result/v1"

// Verdicts.
const (
	Pass = "pass"
	Fail = "fail"
)

// Result is one rlbench invocation: every run of a profile and the verdict.
// Tools and CI read these fields; their JSON names are the contract.
type Result struct {
	Schema  string      `json:"schema"`
	Tool    Tool        `json:"tool"`
	Profile ProfileInfo `json:"profile"`
	Redis   RedisInfo   `json:"redis"`
	Host    HostInfo    `json:"host"`
	// RunID is the id in every key the invocation wrote (rlbench:<run_id>:...).
	RunID      string    `json:"run_id"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	// Complete is false when the invocation was interrupted or aborted;
	// IncompleteReason then says why, and the runs hold what was measured.
	Complete         bool              `json:"complete"`
	IncompleteReason string            `json:"incomplete_reason,omitempty"`
	Runs             []Run             `json:"runs"`
	Thresholds       []ThresholdResult `json:"thresholds"`
	Verdict          string            `json:"verdict"`
}

// Tool identifies the rlbench build that wrote the result.
type Tool struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	GoVersion string `json:"go_version"`
}

// ProfileInfo says which profile produced the result.
type ProfileInfo struct {
	Name        string     `json:"name"`
	Path        string     `json:"path"`
	SHA256      string     `json:"sha256"`
	Seed        int64      `json:"seed"`
	Policy      PolicyInfo `json:"policy"`
	Algorithms  []string   `json:"algorithms"`
	Concurrency int        `json:"concurrency"`
	WarmupS     float64    `json:"warmup_s"`
}

// PolicyInfo is the policy every algorithm interpreted.
type PolicyInfo struct {
	Limit    int64 `json:"limit"`
	WindowMs int64 `json:"window_ms"`
	Burst    int64 `json:"burst"`
}

// RedisInfo describes the server the runs used. It never holds a password.
type RedisInfo struct {
	// Mode is private (started by rlbench), external or embedded (not Redis).
	Mode            string `json:"mode"`
	Version         string `json:"version"`
	Addr            string `json:"addr"`
	MaxmemoryPolicy string `json:"maxmemory_policy,omitempty"`
	Note            string `json:"note,omitempty"`
}

// HostInfo describes the machine the load came from.
type HostInfo struct {
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
}

// Run is one algorithm in one scenario.
type Run struct {
	Algorithm  string      `json:"algorithm"`
	Scenario   string      `json:"scenario"`
	Shape      string      `json:"shape"`
	Params     Params      `json:"params"`
	Identities int         `json:"identities"`
	Requests   Requests    `json:"requests"`
	Rate       RateFigures `json:"rate"`
	// ScenarioGroup is the scenario's name as written when it lists several
	// sizes; its runs (one per size) draw one curve.
	ScenarioGroup string `json:"scenario_group,omitempty"`
	// ElapsedS is the issuing window the achieved rate is measured over.
	ElapsedS float64 `json:"elapsed_s"`
	// LatencyUs runs from each request's due time (corrected for
	// coordinated omission); LatencyUncorrectedUs from its actual send.
	LatencyUs            Latency `json:"latency_us"`
	LatencyUncorrectedUs Latency `json:"latency_uncorrected_us"`
	LatencyAllowedUs     Latency `json:"latency_allowed_us"`
	LatencyDeniedUs      Latency `json:"latency_denied_us"`
	// LatencyHDR and LatencyUncorrectedHDR are the full histograms
	// (HdrHistogram V2 compressed, base64), so results can be merged and
	// re-plotted.
	LatencyHDR            string `json:"latency_hdr"`
	LatencyUncorrectedHDR string `json:"latency_uncorrected_hdr"`
	// MaxLagUs is the furthest behind schedule any request was sent.
	MaxLagUs int64    `json:"max_lag_us"`
	Audit    *Audit   `json:"audit,omitempty"`
	Memory   *Memory  `json:"memory,omitempty"`
	Server   *Server  `json:"server,omitempty"`
	Series   []Second `json:"series"`
	// Repeats is set when the run was repeated (--repeat N): the run's
	// figures are then medians over the repetitions, and Repeats holds each
	// repetition's values so a comparison can tell noise from change.
	Repeats *Repeats `json:"repeats,omitempty"`
	// Errors lists distinct error messages with their counts.
	Errors     []ErrorCount `json:"errors,omitempty"`
	Incomplete bool         `json:"incomplete,omitempty"`
	Note       string       `json:"note,omitempty"`

	// ClockOffset is how the run aligned the local clock with Redis TIME,
	// for shapes that schedule in server time.
	ClockOffset *ClockOffset `json:"clock_offset,omitempty"`
}

// Params are the scenario parameters the run used.
type Params struct {
	Rate        string  `json:"rate"`
	Arrival     string  `json:"arrival,omitempty"`
	DurationS   float64 `json:"duration_s"`
	Requests    int64   `json:"requests,omitempty"`
	Concurrency int     `json:"concurrency"`
	Limit       int64   `json:"limit"`
	WindowMs    int64   `json:"window_ms"`
	Capacity    int64   `json:"capacity"`
	KeyPrefix   string  `json:"key_prefix"`
	// Boundary holds the boundary shape's parameters.
	Boundary *BoundaryParams `json:"boundary,omitempty"`

	// Distribution, ZipfExponent and Repeats describe how a cardinality
	// scenario chose identities.
	Distribution string  `json:"distribution,omitempty"`
	ZipfExponent float64 `json:"zipf_exponent,omitempty"`
	Repeats      int64   `json:"repeats,omitempty"`
}

// Requests tallies a run. Sent = Allowed + Denied + Errors.
type Requests struct {
	Sent            int64 `json:"sent"`
	Allowed         int64 `json:"allowed"`
	Denied          int64 `json:"denied"`
	Errors          int64 `json:"errors"`
	Late            int64 `json:"late"`
	Unsent          int64 `json:"unsent"`
	NoScriptReloads int64 `json:"noscript_reloads"`
}

// RateFigures compare the offered rate with what was sent; target is 0 in
// closed loop.
type RateFigures struct {
	TargetPerS   float64 `json:"target_per_s"`
	AchievedPerS float64 `json:"achieved_per_s"`
}

// Latency digests a latency histogram, in microseconds.
type Latency struct {
	Count int64   `json:"count"`
	P50   int64   `json:"p50"`
	P90   int64   `json:"p90"`
	P99   int64   `json:"p99"`
	P999  int64   `json:"p999"`
	Max   int64   `json:"max"`
	Mean  float64 `json:"mean"`
}

// Audit compares what a limiter admitted with its own bound and with an
// exact reference model. Identities, Decisions and Allowed say what it
// covered: every identity, or a seeded sample when Sampled.
type Audit struct {
	Identities        int64 `json:"identities"`
	Sampled           bool  `json:"sampled"`
	Decisions         int64 `json:"decisions"`
	Allowed           int64 `json:"allowed"`
	ExpectedAllowed   int64 `json:"expected_allowed"`
	ModelMismatches   int64 `json:"model_mismatches"`
	Overshoot         int64 `json:"overshoot"`
	PolicyExcess      int64 `json:"policy_excess"`
	MaxWindowAdmitted int64 `json:"max_window_admitted"`
	BoundWindow       int64 `json:"bound_window"`
	Violations        int64 `json:"violations"`
}

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
	// Notes say what a reader of these figures must know.
	Notes []string `json:"notes,omitempty"`
}

// MinIdentitiesForBytes is the fewest identities holding a key for which
// memory per identity means something: below it, allocator noise of a few
// kilobytes outweighs the keys themselves (and can even make it negative).
const MinIdentitiesForBytes = 1000

// PerIdentity is BytesPerIdentity when at least MinIdentitiesForBytes
// identities held a key; otherwise false, and the figure is not shown,
// plotted or compared.
func (m *Memory) PerIdentity() (float64, bool) {
	if m == nil || m.Identities < MinIdentitiesForBytes {
		return 0, false
	}
	return m.BytesPerIdentity, true
}

// Server is the server-side cost of the limiter's script, from INFO
// commandstats (cmdstat_evalsha) before and after the run.
type Server struct {
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

// Second is one second of a run.
type Second struct {
	TS      int   `json:"t_s"`
	Allowed int64 `json:"allowed"`
	Denied  int64 `json:"denied"`
	Errors  int64 `json:"errors"`
	P99Us   int64 `json:"p99_us"`
}

// ErrorCount is one distinct error message and how often it occurred.
type ErrorCount struct {
	Message string `json:"message"`
	Count   int64  `json:"count"`
}

// ThresholdResult is one threshold evaluated on one run.
type ThresholdResult struct {
	Expression string `json:"expression"`
	// Run is algorithm/scenario.
	Run string `json:"run"`
	// Value is what the run measured; Against is the right-hand side
	// worked out for this run (e.g. 2*limit = 200), in the field's unit.
	Value   float64 `json:"value"`
	Against float64 `json:"against"`
	OK      bool    `json:"ok"`
	// Note says why a threshold failed without a value (the run lacks the
	// field).
	Note string `json:"note,omitempty"`
}

// Repeats records the repetitions of a repeated run.
type Repeats struct {
	Count int `json:"count"`
	// Values maps a field's JSON path (e.g. "latency_us.p99") to its value in
	// each repetition, in run order.
	Values map[string][]float64 `json:"values"`
}

// Spread is the smallest and largest value of path over the repetitions.
func (r *Repeats) Spread(path string) (lo, hi float64, ok bool) {
	if r == nil || len(r.Values[path]) == 0 {
		return 0, 0, false
	}
	vs := r.Values[path]
	lo, hi = vs[0], vs[0]
	for _, v := range vs[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi, true
}

// Key names a run as algorithm/scenario.
func (r *Run) Key() string { return r.Algorithm + "/" + r.Scenario }
