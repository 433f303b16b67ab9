package plan

import (
	"math"
	"time"

	"github.com/rlbench/rlbench/trace"
)

// Replay is what a replay scenario sends: the part of a trace it replays,
// as Scan summarized it, at what pace, and whether over and over.
type Replay struct {
	// Trace is the part of the trace, checked and summarized: its
	// requests, identities, span and the dictionary that numbers them.
	Trace *trace.Summary
	// Speed multiplies the trace's pace: 10 sends its requests ten times
	// as fast as the trace had them.
	Speed float64
	// Loop sends the part again each time it ends (one Period after its
	// start), until the run's duration or request count.
	Loop bool
}

// PassLength is how long one pass over the part takes at the replay's
// speed.
func (r *Replay) PassLength() time.Duration {
	return time.Duration(float64(r.Trace.Period) / r.Speed)
}

// RequestsWithin is about how many requests the replay sends in its first
// d.
func (r *Replay) RequestsWithin(d time.Duration) int64 {
	if !r.Loop && d >= r.PassLength() {
		// The whole part, whatever a product of floats rounds to.
		return r.Trace.Requests
	}
	return r.Trace.RequestsWithin(time.Duration(float64(d)*r.Speed), r.Loop)
}

// Share is the part of the replay's requests that come from the
// identities seg owns: planned of them in all, times their share of the
// part's requests; exactly theirs when planned is one pass.
func (r *Replay) Share(planned int64, seg Segment) int64 {
	if seg.Whole() || r.Trace.Requests == 0 {
		return planned
	}
	mine := r.Trace.RequestsOf(seg.Owns)
	if planned == r.Trace.Requests {
		return mine
	}
	return int64(math.Round(float64(planned) * float64(mine) / float64(r.Trace.Requests)))
}
