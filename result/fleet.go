package result

import (
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
