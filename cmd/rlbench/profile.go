package main

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/workload"
)

// loadProfile reads a profile and checks its thresholds against the result
// contract and its own plan: a threshold naming a field or a run that does
// not exist is a profile error (exit 2), never a silent pass.
func loadProfile(path string) (*workload.Profile, []*report.Threshold, error) {
	p, err := workload.LoadProfile(path)
	if err != nil {
		var perrs workload.ProfileErrors
		if errors.As(err, &perrs) {
			return nil, nil, err
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, nil, usageErrorf("%s: %v", path, pe.Err)
		}
		return nil, nil, usageErrorf("%s: %v", path, err)
	}
	var runs []string
	for _, spec := range p.Plan() {
		runs = append(runs, spec.Algorithm+"/"+spec.Scenario.Name)
	}
	var ts []*report.Threshold
	var perrs workload.ProfileErrors
	for _, spec := range p.Thresholds {
		field := fmt.Sprintf("thresholds[%d]", spec.Index)
		t, err := report.ParseThreshold(spec.Expr)
		if err != nil {
			perrs = append(perrs, &workload.ProfileError{File: path, Line: spec.Line, Field: field, Msg: err.Error()})
			continue
		}
		if !t.MatchesAny(runs) {
			perrs = append(perrs, &workload.ProfileError{File: path, Line: spec.Line, Field: field,
				Msg: fmt.Sprintf("selector %s/%s matches no run (algorithms: %s; scenarios: %s)",
					t.Algorithm, t.Scenario, strings.Join(p.Algorithms, ", "), strings.Join(scenarioNames(p), ", "))})
			continue
		}
		ts = append(ts, t)
	}
	if len(perrs) > 0 {
		return nil, nil, perrs
	}
	return p, ts, nil
}

func scenarioNames(p *workload.Profile) []string {
	var names []string
	for _, s := range p.Scenarios {
		names = append(names, s.Name)
	}
	return names
}
