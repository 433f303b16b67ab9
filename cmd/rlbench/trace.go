package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/trace"
)

// traceCommand works with request traces: `rlbench trace synth` writes a
// synthetic one for a replay scenario (shape: replay).
func traceCommand() command {
	var o synthOptions
	return command{
		name:  "trace",
		usage: "synth -o FILE [flags]",
		flags: o.declare,
		run: func(ctx context.Context, args []string, stdout, _ io.Writer) error {
			if len(args) == 0 || args[0] != "synth" {
				return usageErrorf("trace needs what to do: rlbench trace synth -o FILE (got %s)", strings.Join(quoteAll(args), " "))
			}
			if err := wantArgs("trace synth", args[1:], 0, "no arguments besides its flags"); err != nil {
				return err
			}
			return o.write(ctx, stdout)
		},
	}
}

// synthOptions are trace synth's flags.
type synthOptions struct {
	out, format, start string
	s                  trace.Synth
}

func (o *synthOptions) declare(fs *flag.FlagSet) {
	s := &o.s
	fs.StringVar(&o.out, "o", "", "write the trace to `FILE`: .csv, .jsonl or .log (combined access log), gzip when it ends in .gz")
	fs.StringVar(&o.format, "format", "", "csv, jsonl or combined (default: from the file's name)")
	fs.DurationVar(&s.Duration, "duration", 10*time.Minute, "how long the trace lasts (0: until --lines)")
	fs.Int64Var(&s.Lines, "lines", 0, "write at most `N` lines (0: until --duration)")
	fs.Float64Var(&s.PerSecond, "rate", 1000, "mean requests a second, every source together")
	fs.IntVar(&s.Sources, "sources", trace.DefaultSynthSources, "sources whose rates split the traffic by a Zipf law: many light, a few heavy")
	fs.Float64Var(&s.Zipf, "zipf", trace.DefaultSynthZipf, "the Zipf exponent: source k sends in proportion to 1/(k+1)^`S`")
	fs.IntVar(&s.Near, "near", 100, "more sources, each sending steadily near --limit per --window")
	fs.Float64Var(&s.NearSpread, "near-spread", trace.DefaultSynthNearSpread, "near sources send from (1-`X`) to (1+X) times the limit")
	fs.Int64Var(&s.Limit, "limit", 100, "the policy's limit the near sources are near")
	fs.DurationVar(&s.Window, "window", time.Minute, "the policy's window")
	fs.DurationVar(&s.BurstOn, "burst-on", trace.DefaultSynthBurstOn, "mean length of a Zipf source's bursts")
	fs.DurationVar(&s.BurstOff, "burst-off", trace.DefaultSynthBurstOff, "mean length of its quiet periods between bursts (0: no bursts)")
	fs.Float64Var(&s.Diurnal, "diurnal", trace.DefaultSynthDiurnal, "the daily swing of the Zipf sources' rate, 0 to below 1")
	fs.DurationVar(&s.DiurnalPeriod, "diurnal-period", trace.DefaultSynthDiurnalPeriod, "the swing's period")
	fs.Int64Var(&s.Seed, "seed", 1, "the same seed and flags write the same trace")
	fs.StringVar(&o.start, "start", "2025-01-01T00:00:00Z", "the trace's first instant (RFC 3339)")
}

// write writes the trace the options describe.
func (o *synthOptions) write(ctx context.Context, stdout io.Writer) error {
	if o.out == "" {
		return usageErrorf("trace synth needs -o FILE (a .csv, .jsonl or .log, .gz for gzip)")
	}
	s := o.s
	start, err := time.Parse(time.RFC3339, o.start)
	if err != nil {
		return usageErrorf("--start %q is not an RFC 3339 time like 2025-01-01T00:00:00Z", o.start)
	}
	s.Start = start.UTC()
	s.Format = trace.Format(o.format)
	if o.format == "" {
		f, ok := trace.ByName(o.out)
		if !ok {
			return usageErrorf("cannot tell the format of %s from its name: give --format (csv, jsonl or combined)", o.out)
		}
		s.Format = f
	}
	if err := s.Check(); err != nil {
		return usageErrorf("trace synth: %v", err)
	}
	written, err := s.WriteFile(ctx, o.out)
	if ctx.Err() != nil {
		return interrupted(ctx, "writing "+o.out)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", o.out, err)
	}
	where := "its first line"
	if s.Format == trace.Combined {
		where = trace.SidecarPath(o.out)
	}
	fmt.Fprintf(stdout, "wrote %d requests over %s to %s (its parameters: %s)\n", written.Lines, written.Span.Round(time.Millisecond), report.Printable(o.out), report.Printable(where))
	return nil
}
