package result

// Reference is what trivial calls cost on the same server, through the
// same client, while a run's traffic was going on: the round trip of PING
// and of a script that only reads TIME, sent on a fixed schedule, and that
// script's server time per call. A uniformly slower or busier machine
// moves these and the run's own figures alike.
type Reference struct {
	// PingUs is the latency of PING, from each call's due time.
	PingUs Latency `json:"ping_us"`
	// ScriptUs is the latency of the trivial script, from its due time.
	ScriptUs Latency `json:"script_us"`
	// UsecPerCall is the trivial script's server time per call: the median,
	// over the run's slices, of the mean within a slice.
	UsecPerCall float64 `json:"usec_per_call"`
	// Calls counts the reference calls (PING and script) that got an
	// answer; Slices is how many slices the server's statistics were read
	// in.
	Calls  int64 `json:"calls"`
	Slices int   `json:"slices"`
}

// Relative is a run's figures over its Reference. It has no unit: 3 means
// three times what the trivial call took at the same moment.
type Relative struct {
	// LatencyP50 and LatencyP99 are latency_us.p50 and .p99 over the same
	// percentiles of reference.ping_us.
	LatencyP50 float64 `json:"latency_p50"`
	LatencyP99 float64 `json:"latency_p99"`
	// ServerCost is server.usec_per_call_median over
	// reference.usec_per_call; zero when the limiter runs no script.
	ServerCost float64 `json:"server_cost,omitempty"`
}

// NewRelative divides run's figures by its reference; nil without a
// reference that measured anything.
func NewRelative(run *Run) *Relative {
	ref := run.Reference
	if ref == nil || ref.PingUs.P50 <= 0 || ref.PingUs.P99 <= 0 {
		return nil
	}
	rel := &Relative{
		LatencyP50: float64(run.LatencyUs.P50) / float64(ref.PingUs.P50),
		LatencyP99: float64(run.LatencyUs.P99) / float64(ref.PingUs.P99),
	}
	if s := run.Server; s != nil && s.UsecPerCallMedian > 0 && ref.UsecPerCall > 0 {
		rel.ServerCost = s.UsecPerCallMedian / ref.UsecPerCall
	}
	return rel
}
