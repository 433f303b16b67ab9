package profile

import (
	"fmt"

	"github.com/rlbench/rlbench/plan"
)

// MaxPipelineDepth bounds pipeline: far past where batching stops paying
// (a few dozen requests), and small enough that the requests in flight on
// every connection stay a few megabytes.
const MaxPipelineDepth = 1024

// RunPipeline is the pipeline a run of s uses: the scenario's own, else
// the profile's.
func (p *Profile) RunPipeline(s Scenario) plan.Pipeline {
	if s.Pipeline.Given() {
		return s.Pipeline
	}
	return p.Pipeline
}

// parsePipeline reads a pipeline field: a depth, or auto.
func parsePipeline(f *yamlMap) plan.Pipeline {
	n := f.scalar("pipeline")
	if n == nil {
		return plan.Pipeline{}
	}
	if n.Value == "auto" {
		return plan.Pipeline{Auto: true}
	}
	v, err := wholeNumber(n)
	switch {
	case err != nil:
		f.errorf("pipeline", "%q is not a depth like 16, or auto (batch what is queued when a connection is free)", n.Value)
	case v < 1 || v > MaxPipelineDepth:
		f.errorf("pipeline", "%d is not a depth from 1 (no pipelining) to %d", v, MaxPipelineDepth)
	default:
		return plan.Pipeline{Depth: int(v)}
	}
	return plan.Pipeline{}
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
