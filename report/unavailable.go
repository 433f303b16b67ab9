package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlbench/rlbench/result"
)

// serverFigureLoss says, for what rlbench could not learn of the server,
// what a reader then cannot rule out.
var serverFigureLoss = map[string]string{
	"version":          "the server's version is unknown (rlbench's scripts need Redis 7.0 or newer)",
	"maxmemory_policy": "the eviction policy is unknown: an evicting policy, which can take limiter state away under memory pressure, is not ruled out",
	"key_removal":      "the run's keys were not removed: they expire on their own (every limiter key has a TTL)",
}

// unavailableNotes says, once per refused command, which figures the runs
// could not measure because the server refused the user that command, and
// what the server said: a figure that was not measured must not read as
// one that was.
func unavailableNotes(r *result.Result) []note {
	var out []note
	for _, u := range r.Redis.Unavailable {
		out = append(out, note{kind: kindUnavailable, text: fmt.Sprintf("%s: %s refused (%s)", serverFigureLoss[u.Figure], u.Command, u.Reason)})
	}
	type refusal struct{ command, reason string }
	var order []refusal
	figures := map[refusal][]string{}
	runs := map[refusal][]string{}
	for i := range r.Runs {
		run := &r.Runs[i]
		for _, u := range run.Unavailable {
			k := refusal{u.Command, u.Reason}
			if _, ok := figures[k]; !ok {
				order = append(order, k)
			}
			if !slices.Contains(figures[k], u.Figure) {
				figures[k] = append(figures[k], u.Figure)
			}
			if !slices.Contains(runs[k], run.Key()) {
				runs[k] = append(runs[k], run.Key())
			}
		}
	}
	for _, k := range order {
		out = append(out, note{kind: kindUnavailable, text: fmt.Sprintf("%s refused (%s): not measured: %s (%s)",
			k.command, k.reason, strings.Join(figures[k], ", "), runList(r, runs[k]))})
	}
	return out
}
