package profile

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rlbench/rlbench/plan"
)

// MaxDuration bounds every duration a profile gives (windows, timeouts,
// warm-ups, durations, offsets, spreads, staggers) and every span computed
// from them: far beyond any benchmark, and far enough below the ~292 years
// a time.Duration holds that the engine's own arithmetic (grace periods,
// the length of a plan) cannot overflow.
const MaxDuration = 365 * 24 * time.Hour

// What one unit of each size a profile gives costs rlbench in memory,
// measured on linux/amd64 with go-redis v9.
const (
	// bytesPerWorker: a goroutine with its pooled connection measured 76
	// KB of Go heap and stack (two 32 KiB buffers); the socket's kernel
	// buffers come on top.
	bytesPerWorker = 128 << 10
	// bytesPerAuditedIdentity: when the audit samples, the map entry that
	// finds an identity's slot (37 bytes measured); auditing every
	// identity, the identity is its slot and costs nothing.
	bytesPerAuditedIdentity = 40
	// bytesPerAuditedDecision: a decision's 16-byte record in its
	// shard's log (a reply that fits no record takes 32 more; reading the
	// records back by identity takes one shard's worth at a time).
	bytesPerAuditedDecision = 16
	// bytesPerScheduledRequest: a boundary burst request waits in a heap
	// of 32-byte jobs, up to twice that while it grows.
	bytesPerScheduledRequest = 64
	// bytesPerSeriesSecond: one second of the per-second series is an HDR
	// histogram (20,548 bytes at 2 significant digits) per CPU's shard of
	// the recorder, and one more when they are merged.
	bytesPerSeriesSecond = 20548
	// bytesPerTraceIdentity: a replayed trace's identity in the
	// dictionary that numbers them (a map entry of a 64-bit hash and its
	// number, about 20 bytes) and its count of requests (4).
	bytesPerTraceIdentity = 32
	// reservedFiles are the files rlbench keeps open besides the pool.
	reservedFiles = 64
)

// maxTargetPerSecond is the most a scenario may offer: the same bound a
// rate written per second has.
const maxTargetPerSecond = 10_000_000

// checkResources checks every size in the profile that makes rlbench
// allocate against what this machine can hold, and every scenario's rate
// against its duration. It reads lines from the YAML nodes, so it runs
// once the profile is otherwise parsed.
func checkResources(d *decoder, top *yamlMap, p *Profile) {
	checkConcurrency(d, top.lineOf("concurrency"), "concurrency", p.Concurrency)
	if n := top.values["audit"]; n != nil && p.Audit.Identities > 0 {
		if need := int64(p.Audit.Identities) * bytesPerAuditedIdentity; need > machine.spare() {
			d.errorf(keyLine(n, "identities"), "audit.identities", "auditing %d identities takes about %s, more than this machine can spare (%s); a lower number audits a seeded sample of that many",
				p.Audit.Identities, formatSize(need), spareText())
			return
		}
	}
	nodes := top.sequence("scenarios")
	index := map[int]int{}
	for i, n := range nodes {
		index[n.Line] = i
	}
	// A scenario that lists several sizes is reported once, at its first
	// size that fails.
	reported := map[int]bool{}
	for _, s := range p.Scenarios {
		i, ok := index[s.Line]
		if !ok || reported[i] {
			continue
		}
		reported[i] = !checkScenario(d, nodes[i], fmt.Sprintf("scenarios[%d]", i), p, s)
	}
}

// checkScenario checks one scenario's concurrency, rate and footprint,
// and reports whether they hold.
func checkScenario(d *decoder, n *yaml.Node, path string, p *Profile, s Scenario) bool {
	if s.Concurrency > 0 && !checkConcurrency(d, keyLine(n, "concurrency"), path+".concurrency", s.Concurrency) {
		return false
	}
	if s.Shape == plan.ShapeCapacity && !checkConcurrency(d, keyLine(n, "allow"), path+".allow.concurrency", p.capacityOf(s).MaxConcurrency) {
		return false
	}
	if p.PolicyFor(s).Validate() != nil {
		// The policy's own error stands: a rate or a footprint worked out
		// from a policy that is wrong would be a second error for it.
		return true
	}
	if s.Shape != plan.ShapeBoundary && s.Shape != plan.ShapeCapacity && s.Shape != plan.ShapeReplay && !checkRate(d, n, path, p, s) {
		return false
	}
	return checkFootprint(d, path, p, s)
}

// checkConcurrency refuses a number of goroutines (each with its own
// connection) the machine cannot hold.
func checkConcurrency(d *decoder, line int, field string, n int) bool {
	if need := int64(n) * bytesPerWorker; need > machine.spare() {
		d.errorf(line, field, "%d goroutines with a connection each take about %s, more than this machine can spare (%s)", n, formatSize(need), spareText())
		return false
	}
	if int64(n)+reservedFiles > machine.openFiles {
		d.errorf(line, field, "%d connections need as many open files, and this process may open %d (ulimit -n)", n, machine.openFiles)
		return false
	}
	return true
}

// checkRate refuses a rate whose second request would be due after the
// run ends (the schedule would hold one request, or none once the due time
// overflows), and one beyond the generator.
func checkRate(d *decoder, n *yaml.Node, path string, p *Profile, s Scenario) bool {
	target := s.Rate.TargetPerSecond(p.PolicyFor(s), s.Identities)
	if s.Rate.Max {
		return true
	}
	line := keyLine(n, "rate")
	switch {
	case target > maxTargetPerSecond:
		d.errorf(line, path+".rate", "%s is %g/s here, more than %d/s", s.Rate, target, maxTargetPerSecond)
		return false
	case !(target*s.Duration.Seconds() > 1):
		next := ""
		if gap := 1 / target; gap < MaxDuration.Seconds() {
			next = fmt.Sprintf(" (the next is due after %s)", time.Duration(gap*float64(time.Second)))
		}
		d.errorf(line, path+".rate", "%s over %s offers no request after the first%s: give a faster rate or a longer duration", s.Rate, s.Duration, next)
		return false
	}
	return true
}

// checkFootprint refuses a scenario one run of which would take more memory
// than the machine can spare: its goroutines and connections, the audit's
// identities and kept decisions, a boundary schedule, and the per-second
// series, whose length the duration bounds.
func checkFootprint(d *decoder, path string, p *Profile, s Scenario) bool {
	type part struct {
		bytes int64
		what  string
	}
	conc := p.RunConcurrency(s)
	audited := min(s.Identities, p.Audit.Identities)
	planned := float64(p.PlannedRequests(s))
	if s.Shape == plan.ShapeCapacity {
		// One step is audited at a time: the fastest, at its top rate.
		c := p.capacityOf(s)
		conc = c.MaxConcurrency
		planned = c.ToPerSecond * c.Step.Seconds()
	}
	decisions := float64(0)
	if audited > 0 {
		decisions = planned * float64(audited) / float64(s.Identities)
	}
	seconds := int64(s.Duration/time.Second) + 1
	parts := []part{
		{int64(conc) * bytesPerWorker, fmt.Sprintf("for %d goroutines and connections", conc)},
		{int64(audited) * bytesPerAuditedIdentity, fmt.Sprintf("to audit %d identities", audited)},
		{saturate(decisions * bytesPerAuditedDecision), fmt.Sprintf("to keep %.0f audited decisions", decisions)},
		{seconds * int64(machine.cpus+1) * bytesPerSeriesSecond, fmt.Sprintf("for %d seconds of per-second series", seconds)},
	}
	if s.Shape == plan.ShapeBoundary {
		parts = append(parts, part{s.Requests * bytesPerScheduledRequest, fmt.Sprintf("to schedule %d burst requests", s.Requests)})
	}
	if s.Replay != nil {
		parts = append(parts, part{int64(s.Identities) * bytesPerTraceIdentity, fmt.Sprintf("for the dictionary of the trace's %d identities", s.Identities)})
	}
	var total int64
	for _, pt := range parts {
		total = saturatingAdd(total, pt.bytes)
	}
	if total <= machine.spare() {
		return true
	}
	// The parts that make a tenth of the total or more: at least the
	// largest one.
	var big []string
	for _, pt := range parts {
		if pt.bytes >= total/10 {
			size := formatSize(pt.bytes)
			if pt.bytes == math.MaxInt64 {
				size = "more than " + size
			}
			big = append(big, size+" "+pt.what)
		}
	}
	d.errorf(s.Line, path, "a run takes %s (%s), more than this machine can spare (%s)",
		sizeText(total), strings.Join(big, ", "), spareText())
	return false
}

// sizeText is "about 4 GiB", or "more than 8 EiB" for a size too large to
// count.
func sizeText(b int64) string {
	if b == math.MaxInt64 {
		return "more than " + formatSize(b)
	}
	return "about " + formatSize(b)
}

// keyLine is the line of key in mapping n, or n's own line.
func keyLine(n *yaml.Node, key string) int {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i].Line
		}
	}
	return n.Line
}

// spareText says how much memory a run may take, and of what.
func spareText() string {
	return fmt.Sprintf("%s, half of its %s", formatSize(machine.spare()), formatSize(machine.memoryBytes))
}

// formatSize renders a size to three significant digits in a binary unit:
// 4 GiB, 11.9 TiB.
func formatSize(b int64) string {
	v, unit := float64(b), "bytes"
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"} {
		if v < 1024 {
			break
		}
		v, unit = v/1024, u
	}
	s := strconv.FormatFloat(v, 'g', 3, 64)
	if v >= 1000 {
		s = strconv.FormatFloat(v, 'f', 0, 64)
	}
	return s + " " + unit
}

// saturate converts a non-negative float to int64, at most MaxInt64.
func saturate(v float64) int64 {
	if !(v < math.MaxInt64) {
		return math.MaxInt64
	}
	return int64(v)
}

// saturatingAdd adds two non-negative numbers, at most MaxInt64.
func saturatingAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// checkedSpan multiplies a duration by a count and adds the rest, false
// when the total would pass MaxDuration (or overflow on the way).
func checkedSpan(d time.Duration, n int64, rest ...time.Duration) (time.Duration, bool) {
	if n < 0 || d < 0 || (d > 0 && n > int64(MaxDuration/d)) {
		return 0, false
	}
	total := d * time.Duration(n)
	for _, r := range rest {
		if r < 0 || total > MaxDuration-r {
			return 0, false
		}
		total += r
	}
	return total, true
}
