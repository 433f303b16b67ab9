package result

// Reference is what trivial calls cost on the same server, through the
// same client, around and during a run: the round trip of PING and of a
// script that only reads TIME, sent on a fixed schedule while the run's
// traffic goes on; the server time of that script and of the limiter's
// own, interleaved call by call in rounds right after the run; and, for
// a closed-loop run, how fast its goroutines get through the trivial
// script in closed loop. A uniformly slower or busier machine moves these
// and the run's own figures alike.
type Reference struct {
	// PingUs is the round trip of PING, from each call's send.
	PingUs Latency `json:"ping_us"`
	// ScriptUs is the round trip of the trivial script, from its send.
	ScriptUs Latency `json:"script_us"`
	// Calls counts the PING and script calls that got an answer.
	Calls int64 `json:"calls"`
	// UsecPerCall and LimiterUsecPerCall are the server time per call of
	// the trivial script and of the limiter's, interleaved call by call (a
	// script call after every second decision), each the median over
	// CostRounds rounds; zero when the limiter's decision runs no command
	// of its own.
	UsecPerCall        float64 `json:"usec_per_call"`
	LimiterUsecPerCall float64 `json:"limiter_usec_per_call,omitempty"`
	// CostRounds is how many rounds the server cost was measured in; zero
	// when it was not measured.
	CostRounds int `json:"cost_rounds,omitempty"`
	// ThroughputPerS is, for a closed-loop run, how many trivial scripts a
	// second the run's goroutines got through in closed loop, on the same
	// client and server, just before and just after the run (the mean of
	// the two).
	ThroughputPerS float64 `json:"throughput_per_s,omitempty"`
}

// Relative is a run's figures over its Reference. It has no unit: 3 means
// three times what the trivial call took at the same moment.
type Relative struct {
	// LatencyP50 and LatencyP99 are latency_uncorrected_us.p50 and .p99
	// over the same percentiles of reference.ping_us: service times both,
	// from each call's send. (How far a generator on a busy machine fell
	// behind its schedule is in latency_us, not in these.)
	LatencyP50 float64 `json:"latency_p50"`
	LatencyP99 float64 `json:"latency_p99"`
	// ServerCost is the limiter's server time per call over the trivial
	// script's, interleaved call by call: the median over the rounds of
	// the ratio within one. Zero when the limiter's decision runs no
	// command of its own.
	ServerCost float64 `json:"server_cost,omitempty"`
	// ServerCostLow and ServerCostHigh are the first and third quartiles
	// of the rounds' ratios: how far the ratio moved within the run by
	// noise alone. A comparison of single runs allows a change this
	// spread explains.
	ServerCostLow  float64 `json:"server_cost_low,omitempty"`
	ServerCostHigh float64 `json:"server_cost_high,omitempty"`
	// Throughput is, for a closed-loop run, rate.achieved_per_s over
	// reference.throughput_per_s: a machine that is slower all round lowers
	// both alike. Zero for an open-loop run, whose rate is set.
	Throughput float64 `json:"throughput,omitempty"`
}

// CostRatio is the limiter's server time per call over the trivial
// script's, as measured in rounds: the median round's ratio, and the first
// and third quartiles of the rounds' ratios. All zero when it was not
// measured.
type CostRatio struct {
	Median, Low, High float64
}

// NewRelative divides run's latency by its reference's, and takes the
// server cost ratio the reference measured; nil without a reference that
// measured anything.
func NewRelative(run *Run, cost CostRatio) *Relative {
	ref := run.Reference
	if ref == nil || ref.PingUs.P50 <= 0 || ref.PingUs.P99 <= 0 {
		return nil
	}
	rel := &Relative{
		LatencyP50: float64(run.LatencyUncorrectedUs.P50) / float64(ref.PingUs.P50),
		LatencyP99: float64(run.LatencyUncorrectedUs.P99) / float64(ref.PingUs.P99),
		ServerCost: cost.Median, ServerCostLow: cost.Low, ServerCostHigh: cost.High,
	}
	if run.Rate.TargetPerS == 0 && ref.ThroughputPerS > 0 {
		rel.Throughput = run.Rate.AchievedPerS / ref.ThroughputPerS
	}
	return rel
}
