package audit

import (
	"math"
	"testing"
	"time"
)

// TestStoredRecordsReadBackWhole: every decision reads back from the log
// as it was recorded, whichever way it was kept: whole in 16 bytes when it
// fits one, among the extras when it does not. Each row says why it
// exists.
func TestStoredRecordsReadBackWhole(t *testing.T) {
	now := uint64(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC).UnixMicro())
	plain := auditRecord{key: now << 1, remaining: math.NaN(), retryMs: noRetry}
	with := func(f func(*auditRecord)) auditRecord { r := plain; f(&r); return r }
	for _, tc := range []struct {
		why   string
		r     auditRecord
		extra bool
	}{
		{"an admission whose reply carried nothing checked", plain, false},
		{"an admission with an integer remaining", with(func(r *auditRecord) { r.remaining = 99 }), false},
		{"an admission with a fraction a float32 holds exactly", with(func(r *auditRecord) { r.remaining = 12.5 }), false},
		{"a remaining a float32 would round is kept whole", with(func(r *auditRecord) { r.remaining = 99.000123 }), true},
		{"a denial with nothing left and a retry hint", with(func(r *auditRecord) { r.key |= 1; r.remaining, r.retryMs = 0, 1500 }), false},
		{"a denial with a retry hint and no remaining", with(func(r *auditRecord) { r.key |= 1; r.retryMs = 40 }), false},
		{"a denial with a fractional remaining and a retry hint is kept whole", with(func(r *auditRecord) { r.key |= 1; r.remaining, r.retryMs = 0.25, 75 }), true},
		{"minus zero is not zero: kept whole", with(func(r *auditRecord) { r.key |= 1; r.remaining, r.retryMs = math.Copysign(0, -1), 5 }), true},
		{"a time on the client's clock, with its round trip", with(func(r *auditRecord) { r.widthUs = 350 }), true},
		{"a request of several units", with(func(r *auditRecord) { r.units = 3; r.remaining = 7 }), true},
		{"a time the limiter's arguments carried", with(func(r *auditRecord) { r.argsTime, r.widthUs = true, 200 }), true},
	} {
		var l logShard
		l.add(7, plain)
		l.add(7, tc.r)
		got := l.at(1).decode(l.extras)
		if !sameRecord(got, tc.r) || l.at(1).slot != 7 {
			t.Errorf("%s: read back %+v, want %+v", tc.why, got, tc.r)
		}
		if kept := len(l.extras) == 1; kept != tc.extra {
			t.Errorf("%s: kept among the extras %v, want %v", tc.why, kept, tc.extra)
		}
	}
}

// TestLogReadsBackByIdentity: put in identity order and read back one
// identity after another, each identity gets its own records, in the
// order they came, across chunks; an identity with none gets none; and
// every chunk read through is freed.
func TestLogReadsBackByIdentity(t *testing.T) {
	var l logShard
	// Slots 3, 3+64 and 3+192 share a shard (3+128, between them, has no
	// record); 2,500 records fill three chunks.
	slots := []int{3, 3 + auditShards, 3 + 3*auditShards}
	for i := range 2500 {
		l.add(slots[i%3], auditRecord{key: uint64(i) << 1, remaining: float64(i % 7), retryMs: noRetry})
	}
	l.byIdentity(4)
	want := map[int][]int{}
	for i := range 2500 {
		want[slots[i%3]] = append(want[slots[i%3]], i)
	}
	for local := range 4 {
		slot := 3 + auditShards*local
		recs := l.identity(nil, slot)
		if len(recs) != len(want[slot]) {
			t.Fatalf("slot %d: %d records, want %d", slot, len(recs), len(want[slot]))
		}
		for j, r := range recs {
			if w := want[slot][j]; r.at() != int64(w) || r.remaining != float64(w%7) {
				t.Fatalf("slot %d: record %d is %+v, want the %dth that came", slot, j, r, w)
			}
		}
	}
	for j, c := range l.chunks[:len(l.chunks)-1] {
		if c != nil {
			t.Errorf("chunk %d, read through, is still held", j)
		}
	}
}

// sameRecord compares two records, taking NaN remainings as equal.
func sameRecord(a, b auditRecord) bool {
	if math.IsNaN(a.remaining) && math.IsNaN(b.remaining) {
		a.remaining, b.remaining = 0, 0
	}
	return a == b && math.Signbit(a.remaining) == math.Signbit(b.remaining)
}
