package capacity

import (
	"testing"

	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// TestSearch feeds the search outcomes and checks each rate it asks for,
// how it ends and what it found. Each row says why it exists.
func TestSearch(t *testing.T) {
	auto := plan.Capacity{FromPerSecond: 1000, ToPerSecond: 1_000_000, Auto: true, Precision: 0.05, MaxSteps: 30, Confirm: 1}
	ranged := plan.Capacity{FromPerSecond: 1000, ToPerSecond: 64000, Precision: 0.05, MaxSteps: 30, Confirm: 1}
	const (
		H = StepHeld
		B = StepBroke
		G = StepGeneratorBound
		S = StepGeneratorShort
	)
	for _, tc := range []struct {
		why      string
		c        plan.Capacity
		outcomes []StepOutcome
		rates    []float64 // the rate of each step, in order
		end      string
		held     float64
		broke    float64
	}{
		{"auto doubles until a step breaks, then bisects geometrically (rounded) until within 5%",
			auto, []StepOutcome{H, H, H, B, H, B, B, H},
			[]float64{1000, 2000, 4000, 8000, 5657, 6727, 6169, 5907},
			result.CapacityConverged, 5907, 6169},
		{"a break is believed only when it comes Confirm times in a row: one noisy step is offered again",
			withConfirm(auto, 2), []StepOutcome{H, B, H, B, B, H},
			[]float64{1000, 2000, 2000, 4000, 4000, 2828},
			"", 2828, 4000},
		{"a range offers its bottom, then its top",
			ranged, []StepOutcome{H, H},
			[]float64{1000, 64000},
			result.CapacityTopOfRange, 64000, 0},
		{"a range whose bottom breaks: the capacity is below it",
			ranged, []StepOutcome{B},
			[]float64{1000},
			result.CapacityBelowRange, 0, 1000},
		{"auto halves while nothing holds",
			auto, []StepOutcome{B, B, H},
			[]float64{1000, 500, 250},
			"", 250, 500},
		{"a step rlbench could not keep with all it may add is an upper edge: the search narrows in below it and ends generator-bound",
			auto, []StepOutcome{H, S, G, H, G, H, H},
			[]float64{1000, 2000, 2000, 1414, 1682, 1542, 1610},
			result.CapacityGeneratorBound, 1610, 0},
		{"a break below a rate rlbench could not keep is the limiter's: the search converges",
			auto, []StepOutcome{H, H, G, B, H, H, H},
			[]float64{1000, 2000, 4000, 2828, 2378, 2593, 2708},
			result.CapacityConverged, 2708, 2828},
		{"a search that keeps no step it offers halves below the rate rlbench could not keep",
			auto, []StepOutcome{G, H},
			[]float64{1000, 500},
			"", 500, 0},
		{"a rate rlbench could not keep is believed only when it misses Confirm times in a row; with one break among them it is the machine's edge",
			withConfirm(auto, 2), []StepOutcome{H, G, H, G, B, B, G, H},
			[]float64{1000, 2000, 2000, 4000, 4000, 2828, 2828, 2378},
			"", 2378, 0},
		{"a confirmed break needs every miss to be a break",
			withConfirm(auto, 2), []StepOutcome{H, B, G, H},
			[]float64{1000, 2000, 2000, 1414},
			"", 1414, 0},
		{"max steps ends a search that has not converged",
			withMaxSteps(auto, 3), []StepOutcome{H, H, H},
			[]float64{1000, 2000, 4000},
			result.CapacityMaxSteps, 4000, 0},
		{"auto's top bounds its doubling",
			plan.Capacity{FromPerSecond: 1000, ToPerSecond: 3000, Auto: true, Precision: 0.05, MaxSteps: 30, Confirm: 1}, []StepOutcome{H, H, H},
			[]float64{1000, 2000, 3000},
			result.CapacityTopOfRange, 3000, 0},
	} {
		s := NewSearch(tc.c)
		var rates []float64
		for _, o := range tc.outcomes {
			r, ok := s.Next()
			if !ok {
				t.Fatalf("%s: the search ended after %v, before every outcome was fed", tc.why, rates)
			}
			rates = append(rates, r)
			s.Record(o)
		}
		if !equalRates(rates, tc.rates) {
			t.Errorf("%s: rates %v, want %v", tc.why, rates, tc.rates)
		}
		held, broke, end, _, steps := s.Found()
		if end != tc.end || held != tc.held || broke != tc.broke || steps != len(tc.outcomes) {
			t.Errorf("%s: ended %q with held %v, broke %v after %d steps; want %q, %v, %v after %d",
				tc.why, end, held, broke, steps, tc.end, tc.held, tc.broke, len(tc.outcomes))
		}
		if _, more := s.Next(); more == (tc.end != "") {
			t.Errorf("%s: Next says more %v with end %q", tc.why, more, end)
		}
	}
}

// TestSearchGeneratorBoundAt: a search that narrowed in below a rate
// rlbench could not keep says which rate that was, and every rate it
// offered after it lay below it.
func TestSearchGeneratorBoundAt(t *testing.T) {
	s := NewSearch(plan.Capacity{FromPerSecond: 1000, ToPerSecond: 1e6, Auto: true, Precision: 0.05, MaxSteps: 30})
	s.Record(StepHeld)
	s.Record(StepGeneratorBound)
	for range 10 {
		r, ok := s.Next()
		if !ok {
			break
		}
		if r <= 1000 || r >= 2000 {
			t.Fatalf("offered %v after holding 1000 and falling behind at 2000", r)
		}
		s.Record(StepHeld)
	}
	held, _, end, at, _ := s.Found()
	if end != result.CapacityGeneratorBound || at != 2000 || held*1.05 < 2000 {
		t.Errorf("ended %q at %v having held %v, want generator_bound at 2000 within 5%% of what held", end, at, held)
	}
}

func withConfirm(c plan.Capacity, n int) plan.Capacity { c.Confirm = n; return c }

func withMaxSteps(c plan.Capacity, n int) plan.Capacity { c.MaxSteps = n; return c }

// equalRates compares rates to a whole request a second.
func equalRates(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if d := a[i] - b[i]; d > 0.5 || d < -0.5 {
			return false
		}
	}
	return true
}
