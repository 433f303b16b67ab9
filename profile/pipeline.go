package profile

import (
	"fmt"
	"strconv"
)

// Pipeline depths a profile may give.
const (
	// MaxPipelineDepth bounds pipeline: far past where batching stops
	// paying (a few dozen requests), and small enough that the requests in
	// flight on every connection stay a few megabytes.
	MaxPipelineDepth = 1024
	// AutoPipelineDepth is the most requests pipeline: auto sends in one
	// batch; what is queued beyond it goes in the next.
	AutoPipelineDepth = 256
)

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

// RunPipeline is the pipeline a run of s uses: the scenario's own, else
// the profile's.
func (p *Profile) RunPipeline(s Scenario) Pipeline {
	if s.Pipeline.Given() {
		return s.Pipeline
	}
	return p.Pipeline
}

// parsePipeline reads a pipeline field: a depth, or auto.
func parsePipeline(f *yamlMap) Pipeline {
	n := f.scalar("pipeline")
	if n == nil {
		return Pipeline{}
	}
	if n.Value == "auto" {
		return Pipeline{Auto: true}
	}
	v, err := wholeNumber(n)
	switch {
	case err != nil:
		f.errorf("pipeline", "%q is not a depth like 16, or auto (batch what is queued when a connection is free)", n.Value)
	case v < 1 || v > MaxPipelineDepth:
		f.errorf("pipeline", "%d is not a depth from 1 (no pipelining) to %d", v, MaxPipelineDepth)
	default:
		return Pipeline{Depth: int(v)}
	}
	return Pipeline{}
}

// checkPipelines refuses pipeline: auto for a closed loop: auto batches
// what an open loop has queued, and a closed loop queues nothing. Each
// scenario is reported once, at its own field when it gave one.
func checkPipelines(d *decoder, top *yamlMap, p *Profile) {
	nodes := top.sequence("scenarios")
	reported := map[int]bool{}
	for _, s := range p.Scenarios {
		if !s.Rate.Max || !p.RunPipeline(s).Auto || reported[s.Line] {
			continue
		}
		reported[s.Line] = true
		i := 0
		for k, n := range nodes {
			if n.Line == s.Line {
				i = k
			}
		}
		msg := "pipeline: auto batches the requests an open loop has queued, and a closed loop (rate: max) queues none: give a depth, e.g. pipeline: 16"
		if s.Pipeline.Given() {
			d.errorf(keyLine(nodes[i], "pipeline"), fmt.Sprintf("scenarios[%d].pipeline", i), "%s", msg)
			continue
		}
		d.errorf(s.Line, fmt.Sprintf("scenarios[%d]", i), "%s (the profile's pipeline: auto applies to every scenario that gives none)", msg)
	}
}
