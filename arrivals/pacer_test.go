package arrivals

import (
	"math"
	"testing"
	"time"

	"github.com/rlbench/rlbench/plan"
)

func TestConstantPacer(t *testing.T) {
	p := ConstantPacer{PerSecond: 400}
	for n, want := range map[uint64]time.Duration{0: 0, 1: 2500 * time.Microsecond, 400: time.Second, 1000: 2500 * time.Millisecond} {
		if got := p.Due(n); got != want {
			t.Errorf("Due(%d) = %s, want %s", n, got, want)
		}
	}
}

func TestPoissonPacer(t *testing.T) {
	const rate, span = 2000.0, 10 * time.Second
	count := func(seed int64) (int, []time.Duration) {
		p := NewPoissonPacer(rate, seed)
		var first []time.Duration
		n := uint64(0)
		for ; p.Due(n) < span; n++ {
			if n < 5 {
				first = append(first, p.Due(n))
			}
		}
		return int(n), first
	}
	n, first := count(3)
	want := rate * span.Seconds()
	// A Poisson count has standard deviation sqrt(20000) ~ 141: 5 sigma.
	if math.Abs(float64(n)-want) > 5*math.Sqrt(want) {
		t.Errorf("%d arrivals in %s at %v/s, want about %v", n, span, rate, want)
	}
	if first[0] != 0 {
		t.Errorf("first arrival at %s, want 0", first[0])
	}
	n2, first2 := count(3)
	if n2 != n || first2[4] != first[4] {
		t.Errorf("the same seed gave a different schedule")
	}
	if n3, _ := count(4); n3 == n {
		t.Logf("seeds 3 and 4 gave the same count %d (possible, but unlikely)", n)
	}
}

// TestRampPacer: a ramp's requests are due where the area under its rate
// reaches each count.
func TestRampPacer(t *testing.T) {
	ms := func(d float64) time.Duration { return time.Duration(d * float64(time.Millisecond)) }
	for _, tc := range []struct {
		why    string
		from   float64
		stages []plan.Stage
		due    map[uint64]time.Duration
		count  int // requests due before the end
	}{
		{"a flat stage is a constant rate", 100, []plan.Stage{{PerSecond: 100, Duration: time.Second}},
			map[uint64]time.Duration{0: 0, 1: ms(10), 99: ms(990)}, 100},
		{"from nothing to 100/s in 1s: n is due at sqrt(2n/100)", 0, []plan.Stage{{PerSecond: 100, Duration: time.Second}},
			map[uint64]time.Duration{0: 0, 2: ms(200), 8: ms(400), 32: ms(800), 49: ms(989.949)}, 50},
		{"up, hold, down: 50 + 100 + 50", 0, []plan.Stage{{PerSecond: 100, Duration: time.Second}, {PerSecond: 100, Duration: time.Second}, {PerSecond: 0, Duration: time.Second}},
			map[uint64]time.Duration{50: ms(1000), 150: ms(2000), 199: ms(2858.579)}, 200},
		{"a silent stage offers nothing, then the ramp goes on", 0, []plan.Stage{{PerSecond: 0, Duration: time.Second}, {PerSecond: 100, Duration: time.Second}},
			map[uint64]time.Duration{0: time.Second, 2: ms(1200)}, 50},
	} {
		p := NewRampPacer(tc.from, tc.stages, false, 0)
		for n, want := range tc.due {
			if got := p.Due(n); (got - want).Abs() > time.Microsecond {
				t.Errorf("%s: Due(%d) = %s, want %s", tc.why, n, got, want)
			}
		}
		var end time.Duration
		for _, s := range tc.stages {
			end += s.Duration
		}
		p = NewRampPacer(tc.from, tc.stages, false, 0)
		n := uint64(0)
		for p.Due(n) < end {
			n++
		}
		if int(n) != tc.count {
			t.Errorf("%s: %d requests due before %s, want %d", tc.why, n, end, tc.count)
		}
	}
}

// TestRampPacerPoisson: Poisson arrivals on a ramp come to its area on
// average, and repeat with the seed.
func TestRampPacerPoisson(t *testing.T) {
	count := func(seed int64) int {
		p := NewRampPacer(0, []plan.Stage{{PerSecond: 4000, Duration: 5 * time.Second}}, true, seed)
		n := uint64(0)
		for p.Due(n) < 5*time.Second {
			n++
		}
		return int(n)
	}
	const want = 10000.0 // 4000/s x 5s / 2
	n := count(3)
	if math.Abs(float64(n)-want) > 5*math.Sqrt(want) {
		t.Errorf("%d arrivals, want about %v", n, want)
	}
	if count(3) != n {
		t.Errorf("the same seed gave a different schedule")
	}
}

// TestPacersNeverWrapAround: a due time past what a time.Duration holds
// (a rate of 1e-300/s) stays the latest possible time, so the schedule
// ends instead of taking it for a time long past and sending forever.
func TestPacersNeverWrapAround(t *testing.T) {
	for _, tc := range []struct {
		why   string
		pacer Pacer
	}{
		{"constant: 1/rate is infinite", ConstantPacer{PerSecond: 1e-300}},
		{"Poisson: its gaps are too", NewPoissonPacer(1e-300, 1)},
	} {
		if due := tc.pacer.Due(1); due < time.Hour {
			t.Errorf("%s: request 1 due at %s", tc.why, due)
		}
	}
}
