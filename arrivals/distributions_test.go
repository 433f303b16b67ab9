package arrivals

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/rlbench/rlbench/plan"
)

// TestZipfIsSkewedAndRepeatable: identity 0 is the most frequent, the head
// takes a large share, every draw is in range, and the seed fixes the
// sequence.
func TestZipfIsSkewedAndRepeatable(t *testing.T) {
	const count, draws = 1_000_000, 100_000
	z, err := NewZipf(count, 1.2, 7)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := NewZipf(count, 1.2, 7)
	other, _ := NewZipf(count, 1.2, 8)
	freq := map[uint64]int{}
	differs := false
	for n := uint64(0); n < draws; n++ {
		id := z.Pick(n)
		if id >= count {
			t.Fatalf("draw %d: identity %d out of [0, %d)", n, id, count)
		}
		if again.Pick(n) != id {
			t.Fatalf("draw %d: the same seed gave another identity", n)
		}
		differs = differs || other.Pick(n) != id
		freq[id]++
	}
	if !differs {
		t.Errorf("seeds 7 and 8 drew the same %d identities", draws)
	}
	for id, c := range freq {
		if id != 0 && c >= freq[0] {
			t.Errorf("identity %d drawn %d times, identity 0 only %d", id, c, freq[0])
		}
	}
	// With s = 1.2 over a million identities the first ten take about 45%
	// of the draws; a uniform draw would give them 0.001%.
	head := 0
	for id := uint64(0); id < 10; id++ {
		head += freq[id]
	}
	if head < draws/4 {
		t.Errorf("the 10 hottest identities took %d of %d draws: not a Zipf head", head, draws)
	}
	if len(freq) < 1000 {
		t.Errorf("only %d distinct identities in %d draws: no tail", len(freq), draws)
	}
}

// TestZipfHoldsNoTablePerIdentity: a Zipf over 2^40 identities costs what a
// Zipf over ten does. Bytes are averaged over many runs, so what other
// goroutines of the test binary allocate meanwhile averages away instead
// of being blamed on the sampler.
func TestZipfHoldsNoTablePerIdentity(t *testing.T) {
	const runs = 50
	bytesPerRun := func(count uint64) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := 0; i < runs; i++ {
			z, err := NewZipf(count, 1.1, 1)
			if err != nil {
				t.Fatal(err)
			}
			for n := uint64(0); n < 1000; n++ {
				z.Pick(n)
			}
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / runs
	}
	if huge, small := bytesPerRun(1<<40), bytesPerRun(10); huge > small+1024 {
		t.Errorf("a Zipf over 2^40 identities allocates %d bytes, one over 10 %d", huge, small)
	}
}

func TestNewZipfRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		why   string
		count uint64
		s     float64
	}{
		{"s = 1: the harmonic series diverges", 100, 1},
		{"s below 1", 100, 0.5},
		{"no identities to draw from", 0, 1.2},
	} {
		if _, err := NewZipf(tc.count, tc.s, 1); err == nil {
			t.Errorf("%s: no error", tc.why)
		}
	}
}

// TestSequentialThenHead: identities go out once each in order, then the
// rest come from Then; without Then the order starts over.
func TestSequentialThenHead(t *testing.T) {
	head := RoundRobin{Count: 2}
	seq := Sequential{Count: 4, Then: head}
	var got []uint64
	for n := uint64(0); n < 7; n++ {
		got = append(got, seq.Pick(n))
	}
	if want := []uint64{0, 1, 2, 3, 0, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("sequential then head: %v, want %v", got, want)
	}
	got = got[:0]
	for n := uint64(0); n < 6; n++ {
		got = append(got, Sequential{Count: 4}.Pick(n))
	}
	if want := []uint64{0, 1, 2, 3, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("sequential alone: %v, want %v", got, want)
	}
}

// TestSharedPickerUnderConcurrency: a closed loop calls Pick from every
// worker; Shared must make that safe (the race detector checks) and lose no
// draw from the sequence.
func TestSharedPickerUnderConcurrency(t *testing.T) {
	z, _ := NewZipf(1000, 1.3, 3)
	ref, _ := NewZipf(1000, 1.3, 3)
	p := Shared(z)
	want := map[uint64]int{}
	for n := uint64(0); n < 8000; n++ {
		want[ref.Pick(n)]++
	}
	got := map[uint64]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				id := p.Pick(0)
				mu.Lock()
				got[id]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for id, c := range want {
		if got[id] != c {
			t.Fatalf("identity %d drawn %d times across goroutines, %d times in order", id, got[id], c)
		}
	}
	if _, ok := Shared(RoundRobin{Count: 3}).(RoundRobin); !ok {
		t.Errorf("Shared wrapped RoundRobin, which needs no lock")
	}
}

// TestScenarioPicker: each shape and distribution gets the picker it names.
func TestScenarioPicker(t *testing.T) {
	for _, tc := range []struct {
		why  string
		s    plan.Run
		want string
	}{
		{"steady, uniform arrivals: identities in turn", plan.Run{Shape: plan.ShapeSteady, Identities: 5, Arrival: plan.Uniform}, "arrivals.RoundRobin"},
		{"steady, Poisson arrivals: identities at random", plan.Run{Shape: plan.ShapeSteady, Identities: 5, Arrival: plan.Poisson}, "*arrivals.RandomPicker"},
		{"steady, zipf: a few hot identities", plan.Run{Shape: plan.ShapeSteady, Identities: 5, Distribution: plan.ZipfIdentities, ZipfExponent: 1.2}, "*arrivals.Zipf"},
		{"steady, uniform: identities at random whatever the arrivals", plan.Run{Shape: plan.ShapeSteady, Identities: 5, Distribution: plan.UniformIdentities}, "*arrivals.RandomPicker"},
		{"cardinality, uniform", plan.Run{Shape: plan.ShapeCardinality, Identities: 5, Distribution: plan.UniformIdentities}, "*arrivals.RandomPicker"},
		{"cardinality, zipf (exponent defaulted)", plan.Run{Shape: plan.ShapeCardinality, Identities: 5, Distribution: plan.ZipfIdentities}, "*arrivals.Zipf"},
		{"cardinality, sequential", plan.Run{Shape: plan.ShapeCardinality, Identities: 5, Distribution: plan.SequentialIdentities}, "arrivals.Sequential"},
	} {
		p, err := NewPicker(tc.s, 1)
		if err != nil {
			t.Errorf("%s: %v", tc.why, err)
			continue
		}
		if got := typeName(p); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.why, got, tc.want)
		}
	}
	seq, err := NewPicker(plan.Run{Shape: plan.ShapeCardinality, Identities: 5, Distribution: plan.SequentialIdentities, Repeats: 3, ZipfExponent: 1.4}, 1)
	if err != nil || typeName(seq.(Sequential).Then) != "*arrivals.Zipf" {
		t.Errorf("sequential with repeats: %#v, %v; want a Zipf head after the pass", seq, err)
	}
	if _, err := NewPicker(plan.Run{Shape: plan.ShapeCardinality, Identities: 5, Distribution: plan.ZipfIdentities, ZipfExponent: 0.9}, 1); err == nil {
		t.Errorf("a Zipf exponent below 1 built a picker")
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }

// BenchmarkPickers measures the per-request cost of each identity picker
// over a million identities, with its allocations (none expected).
func BenchmarkPickers(b *testing.B) {
	z, _ := NewZipf(1_000_000, 1.2, 1)
	for _, bc := range []struct {
		name string
		p    IdentityPicker
	}{
		{"round_robin", RoundRobin{Count: 1_000_000}},
		{"uniform", NewRandomPicker(1_000_000, 1)},
		{"zipf", z},
		{"zipf_shared", Shared(z)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var sink uint64
			for n := uint64(0); b.Loop(); n++ {
				sink += bc.p.Pick(n)
			}
			_ = sink
		})
	}
}
