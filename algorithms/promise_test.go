package algorithms

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestAdmitPromises: each family's promise, and the reasoning behind each
// row, for one policy of 10 per second with a burst of 20.
func TestAdmitPromises(t *testing.T) {
	p := Policy{Limit: 10, Window: time.Second, Burst: 20}
	for _, tc := range []struct {
		why    string
		name   string
		admits int64
		within time.Duration
	}{
		{"a fixed window denies only with its limit admitted in the window before", FixedWindowName, 10, time.Second + time.Millisecond},
		{"so does a sliding log", SlidingLogName, 10, time.Second + time.Millisecond},
		{"a sliding counter's estimate spans the current and the previous window", SlidingCounterName, 10, 2*time.Second + time.Millisecond},
		{"a bucket of 20 refilled at 10/s has room unless 20 were admitted in the last 2s", TokenBucketName, 20, 2*time.Second + time.Millisecond},
		{"a leaky bucket drains as a token bucket refills", LeakyBucketName, 20, 2*time.Second + time.Millisecond},
		{"GCRA is a token bucket of its burst", GCRAName, 20, 2*time.Second + time.Millisecond},
		{"an unknown family promises nothing", "bound", 0, 0},
	} {
		if admits, within := admitPromise(tc.name, p); admits != tc.admits || within != tc.within {
			t.Errorf("%s: %d within %s, want %d within %s", tc.why, admits, within, tc.admits, tc.within)
		}
	}
}

// TestModelsKeepTheirPromise: on random arrivals, every denial each
// built-in's reference model makes has at least the promised admissions
// within the promised interval before it; a promise the models broke would
// blame correct limiters for under-admitting.
func TestModelsKeepTheirPromise(t *testing.T) {
	const t0 = int64(1_764_000_000_000_000)
	for _, p := range []Policy{{Limit: 7, Window: 300 * time.Millisecond, Burst: 11}, {Limit: 7, Window: 300 * time.Millisecond, Burst: 3}} {
		for _, name := range []string{FixedWindowName, SlidingLogName, TokenBucketName, LeakyBucketName, GCRAName, SlidingCounterName, SlidingBucketsName} {
			lim, err := New(name, nil, p)
			if err != nil {
				t.Fatal(err)
			}
			admits, within := lim.(Promiser).AdmitPromise()
			model := lim.(Auditable).Model()
			rng := rand.New(rand.NewPCG(uint64(len(name)), 7))
			var admitted []int64
			at := t0
			for i := 0; i < 20_000; i++ {
				at += rng.Int64N(40_000) // up to 40ms apart: bursts and lulls
				if rng.IntN(4) == 0 {
					at += rng.Int64N(400_000)
				}
				if model.Allow(at) {
					admitted = append(admitted, at)
					continue
				}
				n := int64(0)
				for k := len(admitted) - 1; k >= 0 && admitted[k] > at-within.Microseconds(); k-- {
					n++
				}
				if n < admits {
					t.Fatalf("%s (%s) denied at +%dus with %d admitted in the %s before, fewer than the %d promised", name, p, at-t0, n, within, admits)
				}
			}
		}
	}
}

// TestDeletesKeys: a script that deletes keys itself is known to, in any
// spelling; the built-ins never do.
func TestDeletesKeys(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   bool
	}{
		{`redis.call('INCR', KEYS[1])`, false},
		{`if n == 0 then redis.call("del", KEYS[1]) end`, true},
		{`redis.pcall( 'UNLINK' , KEYS[1])`, true},
		{`local v = redis.call('GETDEL', KEYS[1])`, true},
		{`-- never redis.call('DELETE') this`, false},
	} {
		d := &Declared{decl: &Declaration{Script: tc.script}}
		if got := DeletesKeys(d); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.script, got, tc.want)
		}
	}
	if DeletesKeys(NewFixedWindow(nil, Policy{Limit: 1, Window: time.Second})) {
		t.Error("a built-in deletes keys")
	}
}

// TestAnchorRestatesTheState: a bucket anchored to what its own reply
// said decides every later request as the bucket that said it.
func TestAnchorRestatesTheState(t *testing.T) {
	p := Policy{Limit: 20, Window: time.Second, Burst: 20}
	const t0 = int64(1_764_000_000_000_000)
	for _, name := range []string{TokenBucketName, LeakyBucketName, GCRAName} {
		lim, _ := New(name, nil, p)
		truth := lim.(Auditable).Model()
		rng := rand.New(rand.NewPCG(3, 4))
		at := t0
		for i := 0; i < 200; i++ {
			at += rng.Int64N(60_000)
			truth.Allow(at)
		}
		anchored := lim.(Auditable).Model().(Anchorer)
		anchored.Anchor(truth.(ReplyModel).Remaining(), at)
		for i := 0; i < 2000; i++ {
			at += rng.Int64N(60_000)
			if a, b := truth.Allow(at), anchored.Allow(at); a != b {
				t.Fatalf("%s: request %d decided %v, the anchored model %v", name, i, a, b)
			}
		}
	}
}
