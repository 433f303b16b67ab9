package algorithms_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redistest"
)

// fakeCaller is an application instance's clock under a test's control:
// the true time the test sets, off by skew.
type fakeCaller struct {
	now  *time.Time
	skew time.Duration
}

func (f fakeCaller) clock() algorithms.CallerClock {
	return algorithms.CallerClock{
		Now:  func() time.Time { return *f.now },
		Skew: func(time.Time) time.Duration { return f.skew },
	}
}

// clientStep is one request: from instance (0 or 1), at the true time
// t0 + atUs.
type clientStep struct {
	instance int
	atUs     int64
}

// TestClientTimeBuiltinsAgreeWithTheirModels: each client-time built-in,
// called on a real redis-server by two instances whose clocks are 40ms
// apart, decides every request as its model fed the times the requests
// carried, in the order the server ran them: the answer, what remains and
// the retry hint; each decision carries the skewed time and the skew, and
// the key keeps a TTL.
func TestClientTimeBuiltinsAgreeWithTheirModels(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	p := algorithms.Policy{Limit: 3, Window: time.Second}
	// Today's epoch, a whole second, so windows begin at t0.
	t0 := time.UnixMicro(time.Now().Unix() * 1_000_000)
	var steps []clientStep
	// Around a window boundary, the instances alternate; then either
	// one alone; then a long pause.
	for i, at := range []int64{0, 10, 20, 30, 40, 990_000, 995_000, 1_000_000, 1_005_000, 1_010_000, 1_015_000, 1_020_000,
		1_030_000, 1_500_000, 1_500_010, 1_500_020, 1_500_030, 1_980_000, 1_990_000, 2_010_000, 2_020_000, 5_000_000} {
		steps = append(steps, clientStep{instance: i % 2, atUs: at})
	}
	for _, name := range []string{algorithms.FixedWindowClientTimeName, algorithms.SlidingLogClientTimeName, algorithms.TokenBucketClientTimeName} {
		t.Run(name, func(t *testing.T) {
			lim := newLimiter(t, rdb, name, p)
			ct, ok := lim.(algorithms.CallerTimed)
			if !ok || !algorithms.TakesCallerTime(lim) {
				t.Fatalf("%s does not take the caller's time", name)
			}
			if c, ok := lim.(algorithms.Clocked); !ok || c.TimeFrom() != algorithms.TimeFromArgs {
				t.Fatalf("%s does not say it decides by the caller's clock", name)
			}
			now := t0
			skews := []time.Duration{20 * time.Millisecond, -20 * time.Millisecond}
			views := []algorithms.Limiter{
				ct.OnClock(fakeCaller{&now, skews[0]}.clock()),
				ct.OnClock(fakeCaller{&now, skews[1]}.clock()),
			}
			model := lim.(algorithms.Auditable).Model().(algorithms.ReplyModel)
			key := "rlbench:test:" + name + ":fleet"
			admitted := 0
			for i, s := range steps {
				now = t0.Add(time.Duration(s.atUs) * time.Microsecond)
				d, err := views[s.instance].Allow(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				seen := now.Add(skews[s.instance]).UnixMicro()
				if d.ClientNowMicros != seen || d.ClientSkewMicros != skews[s.instance].Microseconds() {
					t.Fatalf("step %d: decision carries %d skewed by %d, want %d by %d", i, d.ClientNowMicros, d.ClientSkewMicros, seen, skews[s.instance].Microseconds())
				}
				if d.ServerNowMicros <= 0 {
					t.Fatalf("step %d: no server time in the reply", i)
				}
				want := model.Allow(seen)
				if d.Allowed != want {
					t.Fatalf("step %d (instance %d at +%dus): Redis says %v, the model %v", i, s.instance, s.atUs, d.Allowed, want)
				}
				rem, err := strconv.ParseFloat(d.Remaining, 64)
				if err != nil || !algorithms.RemainingAgrees(rem, model.Remaining()) {
					t.Errorf("step %d: remaining %q, the model %v", i, d.Remaining, model.Remaining())
				}
				if !d.Allowed && !algorithms.RetryAgrees(model, seen, d.RetryAfter) {
					t.Errorf("step %d: retry after %s, the model next admits at %d (now %d)", i, d.RetryAfter, model.NextAdmitMicros(), seen)
				}
				if d.Allowed {
					admitted++
				}
				if pttl := rdb.PTTL(ctx, key).Val(); pttl <= 0 {
					t.Fatalf("step %d: key TTL %s", i, pttl)
				}
			}
			if admitted == 0 || admitted == len(steps) {
				t.Errorf("%d of %d admitted: the steps never reached the limit", admitted, len(steps))
			}
		})
	}
}

// TestFixedWindowClientTimeStartsAnewAcrossClocks: two instances 200ms
// apart, across a window boundary that lies between their clocks, start
// the window anew each time one follows the other, where one clock admits
// its limit: the excess skew lets through, on a real redis-server. The
// same requests from one clock admit the limit.
func TestFixedWindowClientTimeStartsAnewAcrossClocks(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	p := algorithms.Policy{Limit: 2, Window: time.Second}
	// 50ms before a whole second: the instance ahead by 100ms is in the
	// next window, the one behind by 100ms in this one.
	at := time.UnixMicro((time.Now().Unix()+1)*1_000_000 - 50_000)
	for _, tc := range []struct {
		why   string
		skews [2]time.Duration
		want  []bool
	}{
		{"clocks 200ms apart: each switch of instance starts a window", [2]time.Duration{100 * time.Millisecond, -100 * time.Millisecond},
			[]bool{true, true, true, true, true, true, true, true}},
		{"one clock: two admitted, the rest denied", [2]time.Duration{0, 0},
			[]bool{true, true, false, false, false, false, false, false}},
	} {
		t.Run(tc.why, func(t *testing.T) {
			lim := newLimiter(t, rdb, algorithms.FixedWindowClientTimeName, p).(algorithms.CallerTimed)
			now := at
			views := []algorithms.Limiter{
				lim.OnClock(fakeCaller{&now, tc.skews[0]}.clock()),
				lim.OnClock(fakeCaller{&now, tc.skews[1]}.clock()),
			}
			key := "rlbench:test:anew:" + strconv.Itoa(int(tc.skews[0]))
			for i, want := range tc.want {
				// 1ms apart, instance 0 then 1, in turn.
				now = at.Add(time.Duration(i) * time.Millisecond)
				d, err := views[i%2].Allow(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				if d.Allowed != want {
					t.Fatalf("request %d (instance %d): allowed %v, want %v", i, i%2, d.Allowed, want)
				}
			}
		})
	}
}

// TestClientTimeReferencesStayOptIn: the client-time built-ins run only
// when listed: neither in the default set nor among the limiters compared
// on one clock; each says it takes its time from its caller.
func TestClientTimeReferencesStayOptIn(t *testing.T) {
	for _, info := range algorithms.List() {
		if !info.CallerTime {
			continue
		}
		if info.Default {
			t.Errorf("%s is in the default set", info.Name)
		}
		for _, c := range algorithms.Comparable() {
			if c == info.Name {
				t.Errorf("%s is among the comparable limiters", info.Name)
			}
		}
		if !algorithms.CanPipeline(info.Name) {
			t.Errorf("%s cannot be pipelined", info.Name)
		}
	}
	for _, name := range algorithms.Comparable() {
		l, err := algorithms.New(name, nil, algorithms.Policy{Limit: 1, Window: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if algorithms.TakesCallerTime(l) {
			t.Errorf("%s, which reads Redis TIME, is said to take the caller's time", name)
		}
	}
}

// TestCallerClockInTheContext: a limiter that takes its time from its
// caller, called with a context carrying a caller's clock, reads that
// clock, as a caller that wraps it (retrying it, say) passes it on: a
// client-time built-in and a declared limiter alike.
func TestCallerClockInTheContext(t *testing.T) {
	rdb := redistest.Client(t)
	p := algorithms.Policy{Limit: 3, Window: time.Second}
	decl := &algorithms.Declaration{Name: "mine", Script: "return {1}", Semantics: algorithms.SemanticsFixedWindow,
		Reply: algorithms.ReplyLayout{Allowed: 1},
		Keys:  []algorithms.Template{algorithms.MustParseTemplate("rl:{${identity}}", algorithms.KeyVariables)},
		Args:  []algorithms.Template{algorithms.MustParseTemplate("${now_us}", algorithms.ArgVariables)}}
	declared, err := decl.Bind(rdb, p, "s")
	if err != nil {
		t.Fatal(err)
	}
	now := time.UnixMicro(time.Now().UnixMicro())
	skew := -340 * time.Millisecond
	ctx := algorithms.WithCallerClock(context.Background(), fakeCaller{&now, skew}.clock())
	for _, lim := range []algorithms.Limiter{newLimiter(t, rdb, algorithms.TokenBucketClientTimeName, p), declared} {
		if err := lim.Load(ctx); err != nil {
			t.Fatal(err)
		}
		d, err := lim.Allow(ctx, "rlbench:test:ctx:1")
		if err != nil {
			t.Fatal(err)
		}
		if d.ClientNowMicros != now.Add(skew).UnixMicro() || d.ClientSkewMicros != skew.Microseconds() {
			t.Errorf("%s: decision carries %d skewed by %d, want %d by %d", lim.Name(), d.ClientNowMicros, d.ClientSkewMicros,
				now.Add(skew).UnixMicro(), skew.Microseconds())
		}
	}
}
