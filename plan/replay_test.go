package plan

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rlbench/rlbench/trace"
)

// A segment plans its own identities' requests of a replay: exactly
// theirs for one pass, their share of a loop's.
func TestReplayShare(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	// Identity a (0) sends 7 requests, b (1) 2, c (2) 1: 10 over 10s.
	body := "time,identity\n0,a\n1,a\n2,b\n3,a\n4,c\n5,a\n6,a\n7,b\n8,a\n9,a\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := trace.Scan(context.Background(), trace.Spec{File: path}, trace.Part{})
	if err != nil {
		t.Fatal(err)
	}
	r := &Replay{Trace: sum, Speed: 2}
	if r.PassLength() != 5*time.Second || r.RequestsWithin(r.PassLength()) != 10 {
		t.Fatalf("a pass: %s, %d requests; want 5s, 10", r.PassLength(), r.RequestsWithin(r.PassLength()))
	}
	for _, tc := range []struct {
		seg     Segment
		planned int64
		want    int64
	}{
		{Segment{}, 10, 10},
		{Segment{Index: 0, Count: 2}, 10, 8}, // a and c
		{Segment{Index: 1, Count: 2}, 10, 2}, // b
		{Segment{Index: 0, Count: 3}, 10, 7},
		{Segment{Index: 0, Count: 2}, 25, 20}, // two passes and a half: 80% of it
	} {
		if got := r.Share(tc.planned, tc.seg); got != tc.want {
			t.Errorf("segment %s of %d: %d, want %d", tc.seg, tc.planned, got, tc.want)
		}
	}
	r.Loop = true
	if got := r.RequestsWithin(12500 * time.Millisecond); got < 24 || got > 26 {
		t.Errorf("looping for 12.5s at 2x: %d requests, want about 25", got)
	}
}
