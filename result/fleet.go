package result

import (
	"cmp"
	"slices"
)

// Fleet is the application instances a run's load came from, each with a
// clock of its own: how far each clock was from the true time, what each
// sent and had admitted, and how each took part in admissions past the
// limiter's bound (judged on the true clock: the server's).
type Fleet struct {
	// Instances is how many application instances sent the load. Sticky
	// says each identity was served by one of them (identity mod
	// instances); otherwise every instance served every identity, each
	// request drawn to one, as behind a load balancer.
	Instances int  `json:"instances"`
	Sticky    bool `json:"sticky,omitempty"`
	// ClockSkewMs is the spread the instances' clocks were placed over,
	// evenly from -ClockSkewMs to +ClockSkewMs milliseconds off the true
	// time: the step of a sweep. Zero when the profile listed the offsets
	// (Listed), or gave a spread of zero.
	ClockSkewMs float64 `json:"clock_skew_ms"`
	Listed      bool    `json:"listed,omitempty"`
	// DriftMsPerMin is the drift spread over the instances, from
	// -DriftMsPerMin to +DriftMsPerMin milliseconds per minute of the run.
	DriftMsPerMin float64 `json:"drift_ms_per_min,omitempty"`
	// Sweep is the scenario's name as written when it lists several clock
	// skews: its runs, one per skew, make one sweep.
	Sweep string `json:"sweep,omitempty"`
	// TakesTime says the limiter's requests carried their instance's clock
	// (it takes the time from its caller); false: it reads Redis TIME, and
	// the instances' clocks could not reach it.
	TakesTime bool `json:"takes_time"`
	// PerInstance is each instance, in order.
	PerInstance []FleetInstance `json:"per_instance"`
}

// FleetInstance is one application instance of a run's fleet.
type FleetInstance struct {
	// OffsetMs is how far its clock was from the true time when the run
	// started, in milliseconds (positive: ahead); DriftMsPerMin how much
	// that grew per minute of the run.
	OffsetMs      float64 `json:"offset_ms"`
	DriftMsPerMin float64 `json:"drift_ms_per_min,omitempty"`
	// Sent and Allowed count its requests and their admissions.
	Sent    int64 `json:"sent"`
	Allowed int64 `json:"allowed"`
	// InExcess counts its admissions, in units, within the busiest window
	// of each audited identity that went past the bound (audit.violations
	// such identities): which instances took part in the excess. Zero
	// everywhere when no identity went past it.
	InExcess int64 `json:"in_excess"`
}

// FurthestOffsetMs is the furthest any instance's clock was from the true
// time at the run's start, in milliseconds.
func (f *Fleet) FurthestOffsetMs() float64 {
	var far float64
	for _, in := range f.PerInstance {
		far = max(far, in.OffsetMs, -in.OffsetMs)
	}
	return far
}

// instancesAdded adds up, instance by instance, what every segment's
// instances sent, had admitted and took part in: the segments ran one
// fleet over disjoint identities.
var instancesAdded = combiner{name: "added instance by instance", whole: true, apply: func(m *merging, _ string) error {
	if m.out.Fleet == nil {
		return nil
	}
	out := slices.Clone(m.out.Fleet.PerInstance)
	for i := range out {
		out[i].Sent, out[i].Allowed, out[i].InExcess = 0, 0, 0
	}
	for _, p := range m.parts {
		if p.Fleet == nil {
			continue
		}
		for i, in := range p.Fleet.PerInstance {
			if i < len(out) {
				out[i].Sent += in.Sent
				out[i].Allowed += in.Allowed
				out[i].InExcess += in.InExcess
			}
		}
	}
	m.out.Fleet.PerInstance = out
	return nil
}}

// SkewTolerance is what one limiter's runs of one sweep of clock skews
// say of the skew it tolerates: the largest step up to which no run
// admitted past the limiter's bound or short of its promise, judged on the
// true clock.
type SkewTolerance struct {
	Sweep, Algorithm string
	// Steps are the limiter's runs of the sweep, by skew.
	Steps []SkewStep
	// ToleratedMs is the largest skew, in milliseconds, up to which every
	// step held; Tolerated is false when the smallest step did not (no
	// tolerated skew measured), and AllHeld true when every step held (the
	// limiter tolerates at least the largest skew measured).
	ToleratedMs float64
	Tolerated   bool
	AllHeld     bool
	// FirstFailure is the first step that did not hold, when one did not.
	FirstFailure *SkewStep
}

// SkewStep is one run of a sweep.
type SkewStep struct {
	// SkewMs is the spread of the instances' clocks, ± milliseconds.
	SkewMs float64
	// Run is the run's key (algorithm/scenario).
	Run string
	// MaxWindowAdmitted, BoundWindow, Overshoot and UnderAdmitted are the
	// run's audit's; Audited is false when it had none, which no step can
	// be said to hold without.
	MaxWindowAdmitted, BoundWindow, Overshoot, UnderAdmitted int64
	Audited                                                  bool
}

// Held says the step admitted neither past the bound nor short of the
// promise, as its audit found.
func (s SkewStep) Held() bool { return s.Audited && s.Overshoot == 0 && s.UnderAdmitted == 0 }

// SkewTolerances is, for every sweep of clock skews among runs (fleet.sweep)
// and every limiter that ran it, in the order the runs came, the largest
// skew it tolerates.
func SkewTolerances(runs []Run) []SkewTolerance {
	var out []SkewTolerance
	index := map[[2]string]int{}
	for i := range runs {
		run := &runs[i]
		f := run.Fleet
		if f == nil || f.Sweep == "" {
			continue
		}
		k := [2]string{f.Sweep, run.Algorithm}
		at, ok := index[k]
		if !ok {
			at = len(out)
			index[k] = at
			out = append(out, SkewTolerance{Sweep: f.Sweep, Algorithm: run.Algorithm})
		}
		step := SkewStep{SkewMs: f.ClockSkewMs, Run: run.Key()}
		if a := run.Audit; a != nil {
			step.Audited = true
			step.MaxWindowAdmitted, step.BoundWindow, step.Overshoot, step.UnderAdmitted = a.MaxWindowAdmitted, a.BoundWindow, a.Overshoot, a.UnderAdmitted
		}
		out[at].Steps = append(out[at].Steps, step)
	}
	for i := range out {
		t := &out[i]
		slices.SortStableFunc(t.Steps, func(x, y SkewStep) int { return cmp.Compare(x.SkewMs, y.SkewMs) })
		t.AllHeld = true
		for k := range t.Steps {
			if !t.Steps[k].Held() {
				t.AllHeld, t.FirstFailure = false, &t.Steps[k]
				break
			}
			t.ToleratedMs, t.Tolerated = t.Steps[k].SkewMs, true
		}
	}
	return out
}
