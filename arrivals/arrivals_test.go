package arrivals

import (
	"testing"
	"time"

	"github.com/rlbench/rlbench/plan"
)

// TestSchedule: a pacer and a picker make the arrivals, request n due at
// Due(n) for Pick(n), each from the instance the fleet draws; a request
// bound ends them, saying when (the due time of the request that would
// have come next).
func TestSchedule(t *testing.T) {
	fleet := plan.SpreadFleet(3, 0, 0, false)
	for _, tc := range []struct {
		why      string
		s        *Schedule
		want     []Arrival
		endDueAt time.Duration
	}{
		{"three requests at 100/s over two identities, then the bound",
			&Schedule{Pacer: ConstantPacer{PerSecond: 100}, Picker: RoundRobin{Count: 2}, Requests: 3},
			[]Arrival{{Due: 0, Identity: 0}, {Due: 10 * time.Millisecond, Identity: 1}, {Due: 20 * time.Millisecond, Identity: 0}},
			30 * time.Millisecond},
		{"a fleet draws each request's instance from the identity, the number and the seed",
			&Schedule{Pacer: ConstantPacer{PerSecond: 1000}, Picker: RoundRobin{Count: 5}, Requests: 4, Fleet: fleet, Seed: 9},
			[]Arrival{
				{Due: 0, Identity: 0, Instance: fleet.InstanceOf(0, 0, 9)},
				{Due: time.Millisecond, Identity: 1, Instance: fleet.InstanceOf(1, 1, 9)},
				{Due: 2 * time.Millisecond, Identity: 2, Instance: fleet.InstanceOf(2, 2, 9)},
				{Due: 3 * time.Millisecond, Identity: 3, Instance: fleet.InstanceOf(3, 3, 9)},
			},
			4 * time.Millisecond},
	} {
		var got []Arrival
		var a Arrival
		for tc.s.Next(&a) {
			got = append(got, a)
			if len(got) > 100 {
				t.Fatalf("%s: the schedule does not end", tc.why)
			}
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %d arrivals %+v, want %+v", tc.why, len(got), got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: arrival %d is %+v, want %+v", tc.why, i, got[i], tc.want[i])
			}
		}
		if a.Due != tc.endDueAt {
			t.Errorf("%s: the schedule ended at %s, want %s", tc.why, a.Due, tc.endDueAt)
		}
	}
}
