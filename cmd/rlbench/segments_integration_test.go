//go:build integration

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
)

// segmentsProfile is open loop with Poisson arrivals and random identities
// over 40 identities, and the boundary shape over 6: every request of the
// single process's schedule belongs to exactly one segment.
const segmentsProfile = `name: segs
policy: {limit: 5, window: 200ms}
concurrency: 8
seed: 11
algorithms: [fixed_window, sliding_log]
scenarios:
  - name: steady
    shape: steady
    rate: 3x
    arrival: poisson
    identities: 40
    duration: 1s
  - name: edge
    shape: boundary
    identities: 6
    burst: 5
    offset: 20ms
    stagger: 30ms
thresholds:
  - "*/* audit.model_mismatches == 0"
`

// TestIntegrationSegmentsMakeOneLoad runs one profile as three segment processes plus
// a merge, and as one process repeated three times, on the same seed
// against the same redis-server. The requests sent agree exactly; allowed,
// denied and the audit's figures agree within the spread the repetitions
// show; the merged audit has no mismatch; the merged histogram holds every
// segment's requests. It does so sending one request at a time, and
// pipelined: then the merged result's batches are the segments'.
func TestIntegrationSegmentsMakeOneLoad(t *testing.T) {
	for _, tc := range []struct {
		name    string
		profile string
		depth   int
	}{
		{"one request at a time", segmentsProfile, 1},
		{"pipelined", strings.Replace(segmentsProfile, "concurrency: 8\n", "concurrency: 8\npipeline: 4\n", 1), 4},
	} {
		t.Run(tc.name, func(t *testing.T) { checkSegmentsMakeOneLoad(t, tc.profile, tc.depth) })
	}
}

func checkSegmentsMakeOneLoad(t *testing.T, profileYAML string, depth int) {
	addr := redistest.Start(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "rlbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	prof := filepath.Join(dir, "segs.yaml")
	if err := os.WriteFile(prof, []byte(profileYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	startAt := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano)
	segOut := filepath.Join(dir, "segments")
	var procs []*exec.Cmd
	var logs []*strings.Builder
	for i := 0; i < 3; i++ {
		cmd := exec.Command(bin, "run", prof, "--quiet", "--no-report", "--redis", addr, "--out", segOut,
			"--segment", fmt.Sprintf("%d/3", i), "--start-at", startAt)
		var log strings.Builder
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs, logs = append(procs, cmd), append(logs, &log)
	}
	for i, p := range procs {
		if err := p.Wait(); err != nil {
			t.Fatalf("segment %d: %v\n%s", i, err, logs[i])
		}
	}
	parts, _ := filepath.Glob(filepath.Join(segOut, "*", "result.json"))
	if len(parts) != 3 {
		t.Fatalf("segment results: %v", parts)
	}
	mergedDir := filepath.Join(dir, "merged")
	if out, err := exec.Command(bin, append([]string{"merge", "--no-report", "-o", mergedDir}, parts...)...).CombinedOutput(); err != nil {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	merged, err := result.ReadFile(filepath.Join(mergedDir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	wholeOut := filepath.Join(dir, "whole")
	if out, err := exec.Command(bin, "run", prof, "--quiet", "--no-report", "--redis", addr, "--out", wholeOut, "--repeat", "3").CombinedOutput(); err != nil {
		t.Fatalf("whole: %v\n%s", err, out)
	}
	wholes, _ := filepath.Glob(filepath.Join(wholeOut, "*", "result.json"))
	whole, err := result.ReadFile(wholes[0])
	if err != nil {
		t.Fatal(err)
	}

	var segResults []*result.Result
	for _, p := range parts {
		r, err := result.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		segResults = append(segResults, r)
	}
	if merged.Verdict != result.Pass || len(merged.Runs) != len(whole.Runs) {
		t.Fatalf("merged: verdict %s, %d runs; want pass and %d", merged.Verdict, len(merged.Runs), len(whole.Runs))
	}
	for i := range merged.Runs {
		m, w := &merged.Runs[i], &whole.Runs[i]
		reps := int64(w.Repeats.Count)
		if m.Requests.Sent*reps != w.Requests.Sent {
			t.Errorf("%s: the segments sent %d, one process %d per repetition", m.Key(), m.Requests.Sent, w.Requests.Sent/reps)
		}
		within := func(what string, got float64, path string) {
			lo, hi, ok := w.Repeats.Spread(path)
			if !ok {
				t.Fatalf("%s: the repetitions recorded no %s", m.Key(), path)
			}
			// The spread of three repetitions, widened by one request for
			// a window that one decision lands on either side of.
			if got < lo-1-0.05*lo || got > hi+1+0.05*hi {
				t.Errorf("%s: %s %v outside the single process's spread %v..%v", m.Key(), what, got, lo, hi)
			}
		}
		if a := m.Audit; a == nil || a.ModelMismatches != 0 || a.Overshoot != 0 {
			t.Errorf("%s: merged audit %+v, want no mismatch and no overshoot", m.Key(), m.Audit)
		} else {
			within("max in window", float64(a.MaxWindowAdmitted), "audit.max_window_admitted")
			within("policy excess", float64(a.PolicyExcess), "audit.policy_excess")
		}
		var sum int64
		for _, r := range segResults {
			for _, run := range r.Runs {
				if run.Key() == m.Key() {
					sum += run.LatencyUs.Count
				}
			}
		}
		if h, _, err := m.Histograms(); err != nil || h.Count() != sum || sum != m.Requests.Sent {
			t.Errorf("%s: merged histogram holds %d (err %v), the segments' %d, sent %d", m.Key(), h.Count(), err, sum, m.Requests.Sent)
		}
		var batches int64
		for _, r := range segResults {
			for _, run := range r.Runs {
				if run.Key() == m.Key() && run.Pipeline != nil {
					batches += run.Pipeline.Batches
				}
			}
		}
		if p := m.Pipeline; p == nil || p.Depth != depth || p.Batches != batches || (depth == 1 && p.Batches != m.Requests.Sent) {
			t.Errorf("%s: merged pipeline %+v, want depth %d and the segments' %d batches", m.Key(), p, depth, batches)
		}
		wAllowed := float64(w.Requests.Allowed) / float64(reps)
		if d := float64(m.Requests.Allowed) - wAllowed; d < -0.05*wAllowed-2 || d > 0.05*wAllowed+2 {
			t.Errorf("%s: the segments admitted %d, one process %.0f per repetition", m.Key(), m.Requests.Allowed, wAllowed)
		}
	}
}
