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
