package plan

import (
	"time"
)

// Bounds on a fleet, so that what a profile controls stays small: every
// instance needs a goroutine of its own, and an offset beyond the largest
// is a wrong clock, not a skewed one.
const (
	// MaxFleetInstances is the most application instances a fleet has.
	MaxFleetInstances = 64
	// MaxClockOffset is the furthest any instance's clock may be from the
	// true time, offset and drift over the run together.
	MaxClockOffset = 10 * time.Minute
	// MaxDriftPerMinute is the fastest an instance's clock may drift.
	MaxDriftPerMinute = time.Second
)

// Fleet is the application instances a run's load comes from, each with a
// clock of its own: the time a request carries to a limiter that takes
// its time from its caller (${now_s}, ${now_ms}, ... and the client-time
// built-ins) is its instance's clock, the true time plus the instance's
// offset, which drifts. Latency, pacing and the audit keep the true time.
type Fleet struct {
	// Offsets is each instance's clock offset from the true time when the
	// run starts (positive: ahead); its length is the number of instances.
	Offsets []time.Duration
	// DriftPerMinute is how much each instance's offset grows per minute
	// of the run (negative: its clock falls behind); nil when no instance
	// drifts, else one per instance.
	DriftPerMinute []time.Duration
	// Sticky keeps each identity on one instance (identity mod
	// instances); otherwise every instance serves every identity, as
	// behind a load balancer, each request drawn to one.
	Sticky bool
	// Skew is the spread the offsets were given as: evenly over -Skew to
	// +Skew. Zero when the profile listed the offsets (Listed), or gave a
	// spread of zero.
	Skew time.Duration
	// Drift is the drift as the profile gave it, spread evenly over
	// -Drift to +Drift per minute, in the instances' order.
	Drift time.Duration
	// Listed says the profile listed each instance's offset.
	Listed bool
}

// Instances is how many application instances the fleet has (at least 1
// for a fleet; 0 for nil, no fleet).
func (f *Fleet) Instances() int {
	if f == nil {
		return 0
	}
	return len(f.Offsets)
}

// Spread places n values evenly over -v to +v, in order: one instance
// sits at zero, two at -v and +v, three at -v, 0 and +v.
func Spread(n int, v time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	if n < 2 {
		return out
	}
	for i := range out {
		out[i] = -v + time.Duration(int64(2*v)*int64(i)/int64(n-1))
	}
	return out
}

// SpreadFleet is a fleet of n instances whose offsets spread evenly over
// -skew to +skew and whose drifts spread over -drift to +drift per minute,
// in the same order.
func SpreadFleet(n int, skew, drift time.Duration, sticky bool) *Fleet {
	f := &Fleet{Offsets: Spread(n, skew), Sticky: sticky, Skew: skew, Drift: drift}
	if drift != 0 {
		f.DriftPerMinute = Spread(n, drift)
	}
	return f
}

// WithSkew is the fleet with its offsets spread over -skew to +skew
// instead: one step of a sweep.
func (f *Fleet) WithSkew(skew time.Duration) *Fleet {
	return SpreadFleet(len(f.Offsets), skew, f.Drift, f.Sticky)
}

// OffsetAt is how far instance i's clock is from the true time, elapsed
// into the run: its offset plus its drift so far.
func (f *Fleet) OffsetAt(i int, elapsed time.Duration) time.Duration {
	off := f.Offsets[i]
	if f.DriftPerMinute != nil {
		off += time.Duration(float64(f.DriftPerMinute[i]) * elapsed.Minutes())
	}
	return off
}

// Furthest is the furthest any instance's clock gets from the true time
// over a run of length d.
func (f *Fleet) Furthest(d time.Duration) time.Duration {
	var far time.Duration
	for i := range f.Offsets {
		far = max(far, abs(f.OffsetAt(i, 0)), abs(f.OffsetAt(i, d)))
	}
	return far
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// InstanceOf is the instance that sends the n-th request of a schedule,
// for identity: identity mod instances when the fleet is sticky, else one
// drawn from n and seed, so that every instance serves every identity and
// the same schedule always goes out the same way.
func (f *Fleet) InstanceOf(identity, n uint64, seed int64) int {
	k := uint64(len(f.Offsets))
	if k <= 1 {
		return 0
	}
	if f.Sticky {
		return int(identity % k)
	}
	return int(mix64(n^uint64(seed)*0x9e3779b97f4a7c15) % k)
}

// mix64 is SplitMix64's finaliser: a different, evenly spread number for
// every input.
func mix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
