package workload

import (
	"encoding/base64"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rlbench/rlbench/algorithms"
)

// Counts tallies the requests of one run. Once a run is over,
// Sent = Allowed + Denied + Errors: no request is lost from the counts.
type Counts struct {
	// Sent is every request handed to a limiter.
	Sent int64
	// Allowed and Denied are the limiter's answers; a denial is not an error.
	Allowed int64
	Denied  int64
	// Errors are calls that got no decision (timeouts, refused connections).
	Errors int64
	// Late counts requests sent more than LateThreshold after they were due:
	// the generator could not keep the schedule.
	Late int64
	// Unsent counts requests that were due before the end but never sent,
	// because the run ended while the generator was behind.
	Unsent int64
	// NoScriptReloads counts NOSCRIPT replies that made the limiter load its
	// script again.
	NoScriptReloads int64
}

// LateThreshold is how far behind its due time a request may be sent before
// it counts as late.
const LateThreshold = time.Millisecond

// Latencies are HDR histograms of one latency measure, in microseconds.
type Latencies struct {
	All     *hdrhistogram.Histogram
	Allowed *hdrhistogram.Histogram
	Denied  *hdrhistogram.Histogram
}

// Second is one second of a run, counted by when requests completed.
type Second struct {
	T         int
	Allowed   int64
	Denied    int64
	Errors    int64
	P99Micros int64
}

// ErrorCount is one distinct error message and how often it occurred.
type ErrorCount struct {
	Message string
	Count   int64
}

// RunResult is what one algorithm did in one scenario.
type RunResult struct {
	Algorithm string
	Scenario  Scenario
	// Repetition counts from 0 when runs are repeated.
	Repetition int
	Policy     algorithms.Policy
	// KeyPrefix is where the run's keys lived.
	KeyPrefix   string
	Identities  int
	Concurrency int
	Started     time.Time
	// Elapsed is the issuing window the achieved rate is measured over.
	Elapsed time.Duration
	// TargetPerSecond is the offered rate; zero in closed loop.
	TargetPerSecond float64
	Counts          Counts
	// Corrected latency runs from the due time (coordinated omission
	// corrected); Uncorrected from the actual send.
	Corrected   Latencies
	Uncorrected Latencies
	// MaxLag is the furthest behind schedule any request was sent.
	MaxLag time.Duration
	Series []Second
	Errors []ErrorCount
	// Audit is what the correctness audit found; nil when the limiter has
	// no reference model or the audit was off.
	Audit *Audit
	// ClockOffset is how the run aligned the local clock with Redis TIME,
	// for shapes that schedule in server time.
	ClockOffset *ClockOffset
	// Memory and Server are what the run cost in Redis; nil when the run
	// failed before they could be read.
	Memory *MemoryFigures
	Server *ServerFigures
	// Incomplete marks a run that was interrupted or aborted; Note says why.
	Incomplete bool
	Note       string
}

// AchievedPerSecond is the rate requests were actually sent at.
func (r *RunResult) AchievedPerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Counts.Sent) / r.Elapsed.Seconds()
}

// LatencySummary is the usual digest of a latency histogram, in microseconds.
type LatencySummary struct {
	Count                    int64
	P50, P90, P99, P999, Max int64
	Mean                     float64
}

// Summarize digests h; a nil or empty histogram gives zeros.
func Summarize(h *hdrhistogram.Histogram) LatencySummary {
	if h == nil || h.TotalCount() == 0 {
		return LatencySummary{}
	}
	return LatencySummary{
		Count: h.TotalCount(),
		P50:   h.ValueAtQuantile(50),
		P90:   h.ValueAtQuantile(90),
		P99:   h.ValueAtQuantile(99),
		P999:  h.ValueAtQuantile(99.9),
		Max:   h.Max(),
		Mean:  h.Mean(),
	}
}

// EncodeHistogram returns h in the HdrHistogram V2 compressed base64 form, so
// results can be merged and re-plotted by any HdrHistogram tool.
func EncodeHistogram(h *hdrhistogram.Histogram) (string, error) {
	if h == nil {
		return "", nil
	}
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", err
	}
	// Encode already returns base64 text; check rather than assume.
	if _, err := base64.StdEncoding.DecodeString(string(b)); err != nil {
		return base64.StdEncoding.EncodeToString(b), nil
	}
	return string(b), nil
}
