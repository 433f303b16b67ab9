package profile

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/trace"
)

// replayFields are the fields a replay scenario takes.
var replayFields = []string{"name", "shape", "trace", "speed", "loop", "start", "duration", "run_for", "requests", "concurrency", "pipeline"}

// traceFields are the fields of a trace given as a mapping.
var traceFields = []string{"file", "format", "identity", "time", "time_format", "cost", "regex", "skip_bad_lines", "reorder_window", "max_identities"}

// maxSpeed bounds a replay's speed-up (and 1/maxSpeed its slow-down).
const maxSpeed = 1e6

// traceKey names one scan of a trace: a file read with one spec, one part
// of it.
type traceKey struct {
	spec trace.Spec
	part trace.Part
}

// traceScan is a scan's outcome, kept so that scenarios replaying the same
// part of the same trace read it once.
type traceScan struct {
	sum *trace.Summary
	err error
}

// parseReplay reads a replay: the trace (a file, or a mapping that says how
// to read it), the part of it (start, duration, in the trace's own time),
// its speed, whether it loops and for how long. The trace is read whole
// here, once, so that a line it cannot read is an error before anything
// runs, and the plan knows its requests and identities.
func parseReplay(f *yamlMap, s *Scenario) {
	before := len(f.d.errs)
	spec, specOK := parseTraceSpec(f)
	speed := 1.0
	if n := f.scalar("speed"); n != nil {
		v, err := parseSpeed(n.Value)
		if err != nil {
			f.errorf("speed", "%v", err)
		}
		speed = v
	}
	var loop bool
	f.boolean("loop", &loop)
	var part trace.Part
	f.duration("start", &part.Start, 0)
	f.duration("duration", &part.Duration, time.Millisecond)
	var runFor time.Duration
	f.duration("run_for", &runFor, time.Millisecond)
	f.integer("requests", &s.Requests, 1)
	switch {
	case f.has("run_for") && !loop:
		f.errorf("run_for", "bounds a replay that loops (loop: true); without loop the replay lasts the trace's part (start, duration) at its speed")
	case loop && !f.has("run_for") && !f.has("requests"):
		f.errorf("loop", "repeats the trace without end: give run_for (e.g. 10m) or requests")
	}
	if !specOK || len(f.d.errs) > before {
		return
	}
	sum, err := f.d.scanTrace(spec, part)
	if err != nil {
		reportTraceError(f, err)
		return
	}
	r := &plan.Replay{Trace: sum, Speed: speed, Loop: loop}
	// The trace spaces the requests, not an arrival process.
	s.Replay, s.Identities, s.Arrival = r, sum.Identities, ""
	s.Rate = Rate{PerSecond: sum.MeanPerSecond() * speed}
	switch {
	case !loop:
		s.Duration = r.PassLength()
	case runFor > 0:
		s.Duration = runFor
	default:
		// As many passes as the requests need.
		passes := (s.Requests + sum.Requests - 1) / sum.Requests
		s.Duration = time.Duration(min(float64(passes)*float64(r.PassLength()), float64(MaxDuration)))
	}
	if s.Duration < time.Millisecond {
		f.errorf("speed", "at %s the part lasts %s: too short to replay (slow it down, or give a longer part)", formatSpeed(speed), s.Duration)
	}
	if s.Duration > MaxDuration {
		f.errorf("speed", "at %s the replay lasts %s, more than %s", formatSpeed(speed), s.Duration, MaxDuration)
	}
}

// parseTraceSpec reads the trace field: a file name, or a mapping with the
// file and how to read it. A relative file is found from the profile's
// directory.
func parseTraceSpec(f *yamlMap) (trace.Spec, bool) {
	before := len(f.d.errs)
	spec := trace.Spec{ReorderWindow: trace.DefaultReorderWindow}
	n := f.values["trace"]
	switch {
	case !f.has("trace"):
		f.errorf("trace", "missing: give the trace's file (trace: requests.csv.gz), or {file: ..., format: ..., identity: ...}")
		return spec, false
	case n.Kind == yaml.ScalarNode:
		spec.File = n.Value
	case n.Kind == yaml.MappingNode:
		tf := f.d.mapping(n, f.join("trace"), traceFields...)
		tf.str("file", &spec.File)
		if !tf.has("file") {
			tf.errorf("file", "missing: give the trace's file")
		}
		var format string
		tf.str("format", &format)
		spec.Format = trace.Format(format)
		tf.str("identity", &spec.Identity)
		tf.str("time", &spec.Time)
		tf.str("time_format", &spec.TimeFormat)
		tf.str("cost", &spec.Cost)
		tf.str("regex", &spec.Regex)
		tf.integer("skip_bad_lines", &spec.SkipBadLines, 0)
		tf.duration("reorder_window", &spec.ReorderWindow, 0)
		tf.intField("max_identities", &spec.MaxIdentities, 1)
	default:
		f.errorf("trace", "want the trace's file, or a mapping {file: ..., format: ...}, got %s", describe(n))
		return spec, false
	}
	if spec.File != "" && !filepath.IsAbs(spec.File) {
		spec.File = filepath.Join(filepath.Dir(f.d.file), spec.File)
	}
	return spec, len(f.d.errs) == before
}

// scanTrace reads the part of a trace, once for every scenario that
// replays it.
func (d *decoder) scanTrace(spec trace.Spec, part trace.Part) (*trace.Summary, error) {
	key := traceKey{spec: spec, part: part}
	if got, ok := d.traces[key]; ok {
		return got.sum, got.err
	}
	ctx := d.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	sum, err := trace.Scan(ctx, spec, part)
	if d.traces == nil {
		d.traces = map[traceKey]traceScan{}
	}
	d.traces[key] = traceScan{sum: sum, err: err}
	return sum, err
}

// reportTraceError reports what reading a trace found: a field of its spec
// that is wrong, at that field; a line it could not read, with the trace's
// file and line, at the trace field.
func reportTraceError(f *yamlMap, err error) {
	var fe *trace.FieldError
	if errors.As(err, &fe) {
		switch fe.Field {
		case "start":
			f.errorf("start", "%s", fe.Msg)
		default:
			if n := f.values["trace"]; n != nil && n.Kind == yaml.MappingNode {
				line := keyLine(n, fe.Field)
				f.d.errorf(line, f.join("trace")+"."+fe.Field, "%s", fe.Msg)
				return
			}
			f.errorf("trace", "%s: %s (give the trace as a mapping {file: ..., %s: ...})", fe.Field, fe.Msg, fe.Field)
		}
		return
	}
	f.errorf("trace", "%v", err)
}

// parseSpeed reads a replay's speed: 10x, 0.5x or a plain number.
func parseSpeed(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "x"), 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 1, fmt.Errorf("%q is not a speed like 10x (ten times the trace's pace) or 0.5x", s)
	}
	if v > maxSpeed || v < 1/maxSpeed {
		return 1, fmt.Errorf("%s: want from %gx to %gx", s, 1/maxSpeed, maxSpeed)
	}
	return v, nil
}

// formatSpeed writes a speed as a profile does: 10x.
func formatSpeed(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) + "x" }

// checkTraceCosts checks a trace's cost column against what runs: a
// declared limiter must be told each request's cost (${cost}), and the
// scenario cannot give a cost of its own besides.
func checkTraceCosts(d *decoder, top *yamlMap, p *Profile) {
	reported := map[int]bool{}
	for _, s := range p.Scenarios {
		if s.Replay == nil || s.Replay.Trace.Spec.Cost == "" || reported[s.Line] {
			continue
		}
		reported[s.Line] = true
		field, line := "scenarios.trace.cost", s.Line
		for i, n := range top.sequence("scenarios") {
			if n.Line == s.Line {
				field = fmt.Sprintf("scenarios[%d].trace.cost", i)
				if t := n; t.Kind == yaml.MappingNode {
					for j := 0; j+1 < len(t.Content); j += 2 {
						if t.Content[j].Value == "trace" && t.Content[j+1].Kind == yaml.MappingNode {
							line = keyLine(t.Content[j+1], "cost")
						}
					}
				}
			}
		}
		if !s.Cost.IsOne() {
			d.errorf(line, field, "the trace gives each request's cost: drop the scenario's cost (%s)", s.Cost)
			continue
		}
		told := false
		for _, name := range p.Algorithms {
			if decl := p.Declaration(name); decl != nil && decl.UsesCost() {
				told = true
			}
		}
		if !told {
			d.errorf(line, field, "the trace's column %q gives each request's cost, but no limiter here takes ${cost} in its args: every request would still ask for one unit (leave cost out to replay one unit a request)", s.Replay.Trace.Spec.Cost)
		}
	}
}

// traceWarnings say, for each trace a replay reads, how many bad lines
// were skipped and which was the first: what skip_bad_lines allowed is
// still a part of the trace the run does not send.
func (p *Profile) traceWarnings() []string {
	var out []string
	seen := map[*trace.Summary]bool{}
	for _, s := range p.Scenarios {
		if s.Replay == nil || s.Replay.Trace.Skipped == 0 || seen[s.Replay.Trace] {
			continue
		}
		sum := s.Replay.Trace
		seen[sum] = true
		out = append(out, fmt.Sprintf("%s:%d: scenario %s: %s of the trace skipped (skip_bad_lines: %d); the first: %s",
			p.Path, s.Line, s.Name, countedLines(sum.Skipped), sum.Spec.SkipBadLines, sum.FirstSkipped))
	}
	return out
}

// countedLines is "1 bad line" or "N bad lines".
func countedLines(n int64) string {
	if n == 1 {
		return "1 bad line"
	}
	return fmt.Sprintf("%d bad lines", n)
}
