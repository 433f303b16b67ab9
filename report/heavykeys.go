package report

import (
	"fmt"

	"github.com/rlbench/rlbench/result"
)

// HeavyKeyRatio is how many times the memory per identity of the decision
// table the keys of another run must hold, each identity's keys together,
// for a note to say that figure understates what that traffic costs.
const HeavyKeyRatio = 2.0

// kindHeavyKeys notes the algorithms whose memory per identity comes from
// a run where identities held little state (a cardinality run of a request
// or two each), while another run's identities held several times as much:
// a sliding log keeps a stamp per admitted request.
var kindHeavyKeys = &noteKind{title: "memory per identity measured on light traffic",
	explain: "the memory per identity of the decision table comes from the run that held the most identities, where each held little state; " +
		"in another run each identity's keys held several times as much (MEMORY USAGE of its sampled keys, times its keys per identity; " +
		"without the keyspace's own overhead, so that traffic costs more still)"}

// heavyKeyNotes notes, per algorithm, a run whose identities' keys held
// HeavyKeyRatio times or more the memory per identity its decision row
// shows, with what that traffic would take at the population the report
// projects onto.
func heavyKeyNotes(r *result.Result) []note {
	costs := AlgorithmCosts(r)
	n := ProjectionIdentities(r)
	var out []note
	for _, alg := range algorithmOrder(r) {
		c := costs[alg]
		if c == nil || !c.HaveMemory || c.BytesPerIdentity <= 0 {
			continue
		}
		var heaviest *result.Run
		perIdentity := 0.0
		for i := range r.Runs {
			run := &r.Runs[i]
			m := run.Memory
			if run.Algorithm != alg || m == nil || m.MemoryUsageSampledBytes <= 0 || m.Identities <= 0 || m.Keys <= 0 {
				continue
			}
			if b := m.MemoryUsageSampledBytes * float64(m.Keys) / float64(m.Identities); b > perIdentity {
				heaviest, perIdentity = run, b
			}
		}
		if heaviest == nil || heaviest.Scenario == c.MemoryScenario || perIdentity < HeavyKeyRatio*c.BytesPerIdentity {
			continue
		}
		detail := fmt.Sprintf("%s: %s per identity comes from %s; in %s each identity's keys held %s (%.1fx): at %s identities that traffic would take more than %s, not %s",
			alg, FormatSize(c.BytesPerIdentity), c.MemoryScenario, heaviest.Scenario, FormatSize(perIdentity), perIdentity/c.BytesPerIdentity,
			FormatCountShort(n), FormatSize(perIdentity*float64(n)), FormatSize(c.BytesPerIdentity*float64(n)))
		out = append(out, note{kind: kindHeavyKeys, where: alg, text: detail, detail: detail})
	}
	return out
}
