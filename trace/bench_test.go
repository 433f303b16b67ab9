package trace

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// benchTrace writes a gzip combined access log of 100,000 lines from
// 10,000 sources.
func benchTrace(b *testing.B) string {
	b.Helper()
	s := Synth{Seed: 1, Start: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), Lines: 100_000, PerSecond: 2000,
		Sources: 10_000, Zipf: DefaultSynthZipf, Near: 100, NearSpread: 0.2, Limit: 100, Window: 10 * time.Minute,
		BurstOn: DefaultSynthBurstOn, BurstOff: DefaultSynthBurstOff, Format: Combined}
	path := filepath.Join(b.TempDir(), "bench.log.gz")
	if _, err := s.WriteFile(context.Background(), path); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkReplay is what handing out one arrival of a gzip access log
// costs whoever paces a replay (the reading runs in a goroutine of its
// own, so this is the cost of both together): one op, one arrival.
func BenchmarkReplay(b *testing.B) {
	sum, err := Scan(context.Background(), Spec{File: benchTrace(b)}, Part{})
	if err != nil {
		b.Fatal(err)
	}
	rp, err := sum.Replay(context.Background(), 1, true)
	if err != nil {
		b.Fatal(err)
	}
	defer rp.Close()
	b.ReportAllocs()
	b.ResetTimer()
	var a Arrival
	for i := 0; i < b.N; i++ {
		if !rp.Next(&a) {
			b.Fatal(rp.Err())
		}
	}
}

// BenchmarkScan is what checking one line of a gzip access log costs (one
// op, one line).
func BenchmarkScan(b *testing.B) {
	path := benchTrace(b)
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += 100_000 {
		if _, err := Scan(context.Background(), Spec{File: path}, Part{}); err != nil {
			b.Fatal(err)
		}
	}
}
