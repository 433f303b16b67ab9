package plan

import (
	"strings"
	"testing"
)

func TestSegments(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Segment
		wantErr string
	}{
		{"0/3", Segment{0, 3}, ""},
		{" 2/3 ", Segment{2, 3}, ""},
		{"3/3", Segment{}, "segment index 3: want 0 to 2 for 3 segments"},
		{"-1/3", Segment{}, "segment index -1"},
		{"1/0", Segment{}, "segment count 0"},
		{"1-3", Segment{}, `"1-3" is not a segment like 0/3`},
	} {
		got, err := ParseSegment(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseSegment(%q): %v, want an error with %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseSegment(%q) = %v, %v", tc.in, got, err)
		}
	}
	// Three segments own every identity exactly once between them, and
	// Share counts what each owns.
	const n = 10
	owners := make([]int, n)
	total := 0
	for i := 0; i < 3; i++ {
		s := Segment{i, 3}
		owned := 0
		for id := uint64(0); id < n; id++ {
			if s.Owns(id) {
				owners[id]++
				owned++
			}
		}
		if s.Share(n) != owned {
			t.Errorf("segment %v: Share %d, owns %d", s, s.Share(n), owned)
		}
		total += owned
	}
	for id, c := range owners {
		if c != 1 {
			t.Errorf("identity %d owned %d times", id, c)
		}
	}
	if total != n || (Segment{}).Share(n) != n || !(Segment{}).Owns(7) || (Segment{Index: 5, Count: 6}).Share(3) != 0 {
		t.Errorf("whole or small cases wrong")
	}
}
