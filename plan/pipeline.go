package plan

import "strconv"

// AutoPipelineDepth is the most requests pipeline: auto sends in one
// batch; what is queued beyond it goes in the next.
const AutoPipelineDepth = 256

// Pipeline is how many requests one connection sends at once. Requests of
// one batch go out in one write and their replies come back in order; each
// keeps its own due time, send time and completion time. The zero value
// means "not given": a scenario then follows the profile, and a profile
// sends every request alone.
type Pipeline struct {
	// Depth is the most requests one connection sends in one batch; 1
	// sends each request alone.
	Depth int
	// Auto sends, whenever a connection is free to write, whatever
	// requests are queued for it (at most AutoPipelineDepth).
	Auto bool
}

// Given reports whether the profile or scenario set the field.
func (p Pipeline) Given() bool { return p.Auto || p.Depth > 0 }

// MaxBatch is the most requests one batch holds: the depth, the auto
// cap, or 1 when pipelining is off.
func (p Pipeline) MaxBatch() int {
	switch {
	case p.Auto:
		return AutoPipelineDepth
	case p.Depth > 0:
		return p.Depth
	}
	return 1
}

// String says it as a profile writes it: "16", "auto", or "1".
func (p Pipeline) String() string {
	if p.Auto {
		return "auto"
	}
	return strconv.Itoa(p.MaxBatch())
}
