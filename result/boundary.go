package result

// ClockOffset is how a run aligned the local clock with Redis TIME: a
// server instant s happened locally at s - offset, give or take the
// uncertainty (half the shortest TIME round trip of samples).
type ClockOffset struct {
	OffsetUs      int64 `json:"offset_us"`
	UncertaintyUs int64 `json:"uncertainty_us"`
	RTTUs         int64 `json:"rtt_us"`
	Samples       int   `json:"samples"`
}

// BoundaryParams are the boundary shape's parameters: per identity, a
// burst of Burst requests ending OffsetMs before the window's end and
// another starting OffsetMs after it, each spread over SpreadMs, with
// identities primed StaggerMs apart.
type BoundaryParams struct {
	Burst     int64   `json:"burst"`
	OffsetMs  float64 `json:"offset_ms"`
	SpreadMs  float64 `json:"spread_ms"`
	StaggerMs float64 `json:"stagger_ms"`
}

// WindowProbe is what a boundary run found when it asked Redis where each
// identity's window ends, for a limiter whose window ends when its first
// key expires (a declared fixed window, the fixed window without Lua):
// right after the request that opened the window, that key must expire
// when the window ends.
type WindowProbe struct {
	// Identities counts the identities whose window end was asked.
	Identities int64 `json:"identities"`
	// WithoutTTL counts those whose key had no TTL then: their window never
	// ends, and the run placed their bursts a window after the request
	// that opened it, as for a limiter that cannot be asked.
	WithoutTTL int64 `json:"without_ttl"`
	// Example names one key that had no TTL.
	Example string `json:"example,omitempty"`
}
