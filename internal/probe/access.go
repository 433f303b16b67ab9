package probe

import (
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/result"
)

// figuresOf lists, for each command a server may refuse the user rlbench
// connects as, the figures of a run that command reads: the run's result
// names each of them unavailable, with the command and what Redis said,
// and the probes do not call the command at all.
var figuresOf = []struct {
	command string
	figures []string
	// only, when set, limits the figures to runs it says yes to.
	only func(w Wants) bool
}{
	{command: redisenv.CmdInfo, figures: []string{"memory.used_memory_delta_bytes", "memory.client_buffers_delta_bytes", "memory.bytes_per_identity", "server", "eviction"}},
	{command: redisenv.CmdInfo, figures: []string{"cluster.nodes"}, only: func(w Wants) bool { return w.Cluster }},
	// INFO keyspace before and after says which other logical databases
	// gained keys (a script that SELECTs one): a cluster has database 0 only.
	{command: redisenv.CmdInfo, figures: []string{"memory.keys_other_databases", "memory.keys_other_databases_without_ttl"}, only: func(w Wants) bool { return !w.Cluster }},
	{command: redisenv.CmdInfo, figures: []string{"reference.usec_per_call", "reference.limiter_usec_per_call", "reference.cost_rounds",
		"relative.server_cost", "relative.server_cost_low", "relative.server_cost_high"}, only: func(w Wants) bool { return w.Reference }},
	{command: redisenv.CmdScan, figures: censusFigures},
	{command: redisenv.CmdPTTL, figures: censusFigures},
	{command: redisenv.CmdMemoryUsage, figures: []string{"memory.memory_usage_sampled_bytes", "memory.sampled_keys"}},
	{command: redisenv.CmdObjectEncoding, figures: []string{"memory.encodings"}},
	{command: redisenv.CmdEvalShaRO, figures: []string{"reference", "relative"}, only: func(w Wants) bool { return w.Reference }},
}

// censusFigures are what the key census measures, and the figures per key
// drawn from its sample.
var censusFigures = []string{"memory.identities", "memory.keys", "memory.keys_without_ttl", "memory.bytes_per_identity",
	"memory.memory_usage_sampled_bytes", "memory.sampled_keys", "memory.encodings"}

// Wants says what a run measures besides the figures every run has.
type Wants struct {
	// Reference: the trivial calls beside the run, and its figures over
	// them.
	Reference bool
	// Cluster: the figures of each master.
	Cluster bool
}

// Unavailable is every figure of a run that wants w which the server
// refuses the user the command to read, each once, with the first
// command that refused it; nil on a server rlbench started.
func Unavailable(t Target, w Wants) []result.Unavailable {
	var out []result.Unavailable
	seen := map[string]bool{}
	for _, f := range figuresOf {
		r, refused := t.Env.Access.Refusal(f.command)
		if !refused || (f.only != nil && !f.only(w)) {
			continue
		}
		for _, fig := range f.figures {
			if !seen[fig] {
				seen[fig] = true
				out = append(out, result.Unavailable{Figure: fig, Command: f.command, Reason: r.Reason})
			}
		}
	}
	return out
}
