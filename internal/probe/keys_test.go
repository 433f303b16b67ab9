package probe

import (
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
)

// TestIdentityCounter: a declared limiter's identities are counted once
// however many keys each holds; past the bitmap's size, by the keys of the
// first template. Keys no template makes, and identities outside the run,
// are not counted.
func TestIdentityCounter(t *testing.T) {
	p := algorithms.Policy{Limit: 1, Window: time.Second}
	var keys []algorithms.Template
	for _, k := range []string{"a:{${identity}}", "b:{${identity}}"} {
		keys = append(keys, algorithms.MustParseTemplate(k, algorithms.KeyVariables))
	}
	d := &algorithms.Declaration{Name: "two", Script: "return 1", Keys: keys, Reply: algorithms.ReplyLayout{Allowed: 1}, Semantics: algorithms.SemanticsFixedWindow}
	lim, err := d.Bind(nil, p, "s")
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "rlbench:r:two:s:"
	visited := []string{prefix + "a:{1}", prefix + "b:{1}", prefix + "b:{2}", prefix + "a:{3}", prefix + "a:{9}", prefix + "c:{4}", prefix + "a:{x}"}
	for _, tc := range []struct {
		why     string
		maxBits int
		want    int64
	}{
		{"a bit per identity: 1, 2 and 3 (9 is not of the run's 5, c: and x are no identity's keys)", 64, 3},
		{"past the bitmap, the first template's keys: 1 and 3", 4, 2},
	} {
		var n int64
		visit := identityCounter(lim, event.KeyScheme{Head: prefix}, 5, tc.maxBits, &n)
		for _, k := range visited {
			visit(k)
		}
		if n != tc.want {
			t.Errorf("%s: counted %d, want %d", tc.why, n, tc.want)
		}
	}
}
