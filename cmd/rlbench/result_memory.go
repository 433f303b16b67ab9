package main

import (
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/workload"
)

// addCardinality fills in what the cardinality shape and the probes add to
// a run: how identities were chosen, and the run's cost in Redis.
func addCardinality(run *report.Run, r *workload.RunResult) {
	s := r.Scenario
	run.ScenarioGroup = s.Group
	if s.Shape == workload.ShapeCardinality {
		run.Params.Distribution = string(s.Distribution)
		run.Params.ZipfExponent = s.ZipfExponent
		run.Params.Repeats = s.Repeats
	}
	if m := r.Memory; m != nil {
		run.Memory = &report.Memory{
			Identities:              m.Identities,
			Keys:                    m.Keys,
			UsedMemoryDeltaBytes:    m.UsedMemoryDelta,
			BytesPerIdentity:        m.BytesPerIdentity,
			MemoryUsageSampledBytes: m.SampledMeanBytes,
			KeysWithoutTTL:          m.KeysWithoutTTL,
			ClientBuffersDeltaBytes: m.ClientBuffersDelta,
			SampledKeys:             m.SampledKeys,
			Encodings:               m.Encodings,
			RlbenchPeakHeapBytes:    m.PeakHeapBytes,
			RlbenchPeakRSSBytes:     m.PeakRSSBytes,
			Notes:                   m.Notes,
		}
	}
	if sv := r.Server; sv != nil {
		run.Server = &report.Server{
			UsecPerCall: sv.UsecPerCall(),
			Calls:       sv.Calls,
			Usec:        sv.Usec,
			FailedCalls: sv.FailedCalls,
			StatsReset:  sv.StatsReset,
			Note:        sv.Note,
		}
	}
}
