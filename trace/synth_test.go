package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// synthFor is a small synthetic trace's parameters.
func synthFor(format Format) Synth {
	return Synth{
		Seed: 7, Start: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), Duration: 5 * time.Minute, PerSecond: 100,
		Sources: 500, Zipf: DefaultSynthZipf, Near: 10, NearSpread: 0.2, Limit: 60, Window: time.Minute,
		BurstOn: DefaultSynthBurstOn, BurstOff: DefaultSynthBurstOff, Diurnal: 0.5, DiurnalPeriod: 5 * time.Minute, Format: format,
	}
}

func TestSynthIsSeededAndSaysItsParameters(t *testing.T) {
	s := synthFor(CSV)
	s.Duration = time.Minute
	var a, b, c bytes.Buffer
	if _, err := s.Write(context.Background(), &a); err != nil {
		t.Fatal(err)
	}
	s.Write(context.Background(), &b)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the same seed wrote two traces")
	}
	s.Seed = 8
	s.Write(context.Background(), &c)
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Error("another seed wrote the same trace")
	}
	first, _, _ := strings.Cut(a.String(), "\n")
	var head map[string]any
	if err := json.Unmarshal([]byte(strings.TrimPrefix(first, "# ")), &head); err != nil {
		t.Fatalf("header %q: %v", first, err)
	}
	if head["seed"] != 7.0 || head["sources"] != 500.0 || head["near"] != 10.0 || head["window_s"] != 60.0 || head["tool"] != "rlbench trace synth" {
		t.Errorf("header %v", head)
	}
}

// The trace has the shape its parameters describe: its mean rate, the
// Zipf split's head, the sources near the limit, the daily swing.
func TestSynthHasTheShapeAsked(t *testing.T) {
	s := synthFor(CSV)
	// Bursts (TestSynthBursts) would make the heavy sources' counts too
	// uncertain to hold to their means here.
	s.BurstOff = 0
	path := filepath.Join(t.TempDir(), "s.csv")
	w, err := s.WriteFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	seconds := s.Duration.Seconds()
	if got := float64(w.Lines) / seconds; math.Abs(got-s.PerSecond)/s.PerSecond > 0.1 {
		t.Errorf("mean rate %.1f/s, want about %v", got, s.PerSecond)
	}
	// Count requests per source and per half of the day's swing.
	sum, err := Scan(context.Background(), Spec{File: path}, Part{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Requests != w.Lines {
		t.Fatalf("scan read %d requests, synth wrote %d", sum.Requests, w.Lines)
	}
	var firstHalf, secondHalf int
	rp, _ := sum.Replay(context.Background(), 1, false)
	defer rp.Close()
	ids := make([]int64, sum.Identities)
	var a Arrival
	for rp.Next(&a) {
		ids[a.Identity]++
		if a.Due < s.Duration/2 {
			firstHalf++
		} else {
			secondHalf++
		}
	}
	// The swing's first half (sine above 0) against its second: (1 +
	// 2A/pi)/(1 - 2A/pi) for the Zipf sources, the near ones steady.
	nearRate := float64(s.Near) * float64(s.Limit) / s.Window.Seconds()
	zipfRate := s.PerSecond - nearRate
	k := 2 * s.Diurnal / math.Pi
	want := (zipfRate*(1+k) + nearRate) / (zipfRate*(1-k) + nearRate)
	if got := float64(firstHalf) / float64(secondHalf); math.Abs(got-want)/want > 0.1 {
		t.Errorf("first half / second half %.3f, want about %.3f", got, want)
	}
	// The top 1% of the sources send about their Zipf share.
	counts := slices.Clone(ids)
	slices.Sort(counts)
	slices.Reverse(counts)
	var top int64
	for _, c := range counts[:s.Sources/100] {
		top += c
	}
	wantTop := s.topShare() * zipfRate * seconds
	if got := float64(top); math.Abs(got-wantTop)/wantTop > 0.15 {
		t.Errorf("the top 1%% sent %v, want about %.0f", got, wantTop)
	}
	// Sources near the limit: at least a quarter of the identities that
	// sent between 0.6 and 1.4 times the limit a window are counted; the
	// Zipf ones there are few.
	near := 0
	for _, n := range ids {
		perWindow := float64(n) / (seconds / s.Window.Seconds())
		if perWindow >= 0.6*float64(s.Limit) && perWindow <= 1.4*float64(s.Limit) {
			near++
		}
	}
	if near < s.Near {
		t.Errorf("%d sources sent near the limit, want at least the %d near ones", near, s.Near)
	}
}

func TestSynthFormatsReadBack(t *testing.T) {
	for _, f := range []Format{CSV, JSONL, Combined} {
		s := synthFor(f)
		s.Duration, s.Lines = 0, 5000
		name := map[Format]string{CSV: "t.csv", JSONL: "t.jsonl", Combined: "t.log.gz"}[f]
		path := filepath.Join(t.TempDir(), name)
		w, err := s.WriteFile(context.Background(), path)
		if err != nil || w.Lines != 5000 {
			t.Fatalf("%s: wrote %d lines, %v", f, w.Lines, err)
		}
		sum, err := Scan(context.Background(), Spec{File: path}, Part{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if sum.Requests != 5000 || sum.Identities > s.Sources+s.Near || sum.Skipped != 0 {
			t.Errorf("%s: %d requests from %d identities", f, sum.Requests, sum.Identities)
		}
		if f == Combined {
			side, err := os.ReadFile(SidecarPath(path))
			if err != nil || !strings.Contains(string(side), `"format":"combined"`) {
				t.Errorf("sidecar: %s %v", side, err)
			}
		}
	}
}

func TestSynthChecksItsParameters(t *testing.T) {
	for _, tc := range []struct {
		change func(*Synth)
		want   string
	}{
		{func(s *Synth) { s.Duration, s.Lines = 0, 0 }, "give the trace's length"},
		{func(s *Synth) { s.PerSecond = 0 }, "want a positive number"},
		{func(s *Synth) { s.Near = 1000 }, "as much as the whole rate"},
		{func(s *Synth) { s.Diurnal = 1 }, "diurnal swing 1"},
		{func(s *Synth) { s.Format = Regex }, "synth writes csv, jsonl or combined"},
		{func(s *Synth) { s.Sources, s.Near = 0, 0 }, "want 1 to"},
	} {
		s := synthFor(CSV)
		tc.change(&s)
		if err := s.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
}

// A replay holds what its window and dictionary need, not the trace: the
// heap after 200,000 arrivals is what it was after 25,000.
func TestReplayMemoryIsBounded(t *testing.T) {
	s := synthFor(Combined)
	s.Duration, s.Lines, s.PerSecond = 0, 200_000, 2000
	// Plain: under the race detector, compressing is most of the time.
	path := filepath.Join(t.TempDir(), "big.log")
	if _, err := s.WriteFile(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	sum, err := Scan(context.Background(), Spec{File: path}, Part{})
	if err != nil {
		t.Fatal(err)
	}
	rp, err := sum.Replay(context.Background(), 1, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	heapNow := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var a Arrival
	var n int64
	var early, late uint64
	for rp.Next(&a) {
		n++
		switch n {
		case 25_000:
			early = heapNow()
		case 199_000:
			late = heapNow()
		}
	}
	if n != 200_000 || rp.Err() != nil {
		t.Fatalf("replayed %d, %v", n, rp.Err())
	}
	if late > early+1<<20 {
		t.Errorf("heap %d bytes after 25,000 arrivals, %d after 199,000: the replay holds what it read", early, late)
	}
}

// On and off periods make a source bursty: its requests per second vary
// far more than a steady (Poisson) source's, whose variance is its mean.
func TestSynthBursts(t *testing.T) {
	dispersion := func(s Synth) float64 {
		var b bytes.Buffer
		if _, err := s.Write(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "b.csv")
		os.WriteFile(path, b.Bytes(), 0o644)
		sum, err := Scan(context.Background(), Spec{File: path}, Part{})
		if err != nil {
			t.Fatal(err)
		}
		// Count the heaviest source's requests per second.
		perSecond := map[uint64][]float64{}
		rp, _ := sum.Replay(context.Background(), 1, false)
		defer rp.Close()
		var a Arrival
		for rp.Next(&a) {
			b := perSecond[a.Identity]
			if b == nil {
				b = make([]float64, int(s.Duration.Seconds())+1)
				perSecond[a.Identity] = b
			}
			b[int(a.Due.Seconds())]++
		}
		var bins []float64
		most := 0.0
		for _, b := range perSecond {
			var n float64
			for _, c := range b {
				n += c
			}
			if n > most {
				most, bins = n, b[:len(b)-1]
			}
		}
		var mean, v float64
		for _, c := range bins {
			mean += c
		}
		mean /= float64(len(bins))
		for _, c := range bins {
			v += (c - mean) * (c - mean)
		}
		return v / float64(len(bins)) / mean
	}
	s := synthFor(CSV)
	s.Diurnal, s.Near = 0, 0
	steady := s
	steady.BurstOff = 0
	if d := dispersion(steady); d < 0.7 || d > 1.3 {
		t.Errorf("a steady source's variance/mean %.2f, want about 1", d)
	}
	if d := dispersion(s); d < 20 {
		t.Errorf("a bursty source's variance/mean %.2f, want well above 1", d)
	}
}
