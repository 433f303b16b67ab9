package trace

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Synth says what traffic a synthetic trace holds: a mixture of sources,
// as a service sees them. Most send little and a few send most (their mean
// rates split by a Zipf law); each goes quiet and bursts again (on and off
// periods of random length); all swing with the time of day; and some
// send close to a policy's limit, where a limiter's approximations decide
// differently from the exact rule. Every request is one line: its time and
// its source (an address in 10.0.0.0/8).
type Synth struct {
	// Seed makes the trace: the same parameters and seed write the same
	// lines.
	Seed int64 `json:"seed"`
	// Start is the first instant of the trace.
	Start time.Time `json:"start"`
	// Duration is how long the trace lasts, and Lines the most lines it
	// holds; it ends at whichever comes first (at least one is given).
	Duration time.Duration `json:"-"`
	Lines    int64         `json:"lines,omitempty"`
	// PerSecond is the mean rate of requests of every source together.
	PerSecond float64 `json:"rate_per_s"`
	// Sources is how many sources share what the sources near the limit
	// do not send, split by a Zipf law of exponent Zipf: source k (from 0)
	// sends in proportion to 1/(k+1)^Zipf.
	Sources int     `json:"sources"`
	Zipf    float64 `json:"zipf"`
	// Near is how many more sources send close to the limit: each at a
	// steady rate drawn uniformly within NearSpread of Limit per Window
	// (0.2: from 0.8 to 1.2 times it), without bursts or the daily swing.
	Near       int           `json:"near"`
	NearSpread float64       `json:"near_spread"`
	Limit      int64         `json:"limit"`
	Window     time.Duration `json:"-"`
	// BurstOn and BurstOff are the mean lengths of a Zipf source's on and
	// off periods (each drawn from an exponential law); while on, it
	// sends at its mean rate times (on+off)/on. Zero BurstOff: no bursts.
	BurstOn  time.Duration `json:"-"`
	BurstOff time.Duration `json:"-"`
	// Diurnal is the daily swing of the Zipf sources' rates, from 0 (none)
	// to below 1: their rate is multiplied by 1 + Diurnal x sin(2 pi t /
	// DiurnalPeriod), t from Start.
	Diurnal       float64       `json:"diurnal"`
	DiurnalPeriod time.Duration `json:"-"`
	// Format is the trace's format: CSV, JSONL or Combined.
	Format Format `json:"format"`
}

// Defaults of a synthetic trace.
const (
	DefaultSynthSources       = 10_000
	DefaultSynthZipf          = 1.1
	DefaultSynthNearSpread    = 0.2
	DefaultSynthBurstOn       = 10 * time.Second
	DefaultSynthBurstOff      = 50 * time.Second
	DefaultSynthDiurnal       = 0.3
	DefaultSynthDiurnalPeriod = 24 * time.Hour
	// MaxSynthSources bounds the sources a trace may have: the generator
	// holds each one's state (48 bytes).
	MaxSynthSources = 10_000_000
)

// synthJSON is what a trace's header says of its parameters: Synth with
// its durations in seconds.
type synthJSON struct {
	Tool string `json:"tool"`
	Synth
	DurationS      float64 `json:"duration_s"`
	WindowS        float64 `json:"window_s"`
	BurstOnS       float64 `json:"burst_on_s"`
	BurstOffS      float64 `json:"burst_off_s"`
	DiurnalPeriodS float64 `json:"diurnal_period_s"`
	// TopShare is the share of the Zipf sources' requests their top 1%
	// sends.
	TopShare float64 `json:"top_1pct_share"`
}

// Header is the trace's parameters as one JSON object, which CSV and JSON
// Lines carry on their first line after "# " and an access log in a
// sidecar file.
func (s Synth) Header() string {
	b, _ := json.Marshal(synthJSON{Tool: "rlbench trace synth", Synth: s, DurationS: s.Duration.Seconds(), WindowS: s.Window.Seconds(),
		BurstOnS: s.BurstOn.Seconds(), BurstOffS: s.BurstOff.Seconds(), DiurnalPeriodS: s.DiurnalPeriod.Seconds(), TopShare: s.topShare()})
	return string(b)
}

// Check says what is wrong with the parameters.
func (s Synth) Check() error {
	switch {
	case s.Duration <= 0 && s.Lines <= 0:
		return errors.New("give the trace's length: a duration, a number of lines, or both")
	case s.Duration < 0 || s.Lines < 0:
		return errors.New("the duration and the number of lines are at least 0")
	case !(s.PerSecond > 0) || math.IsInf(s.PerSecond, 0):
		return fmt.Errorf("rate %v: want a positive number of requests a second", s.PerSecond)
	case s.Sources < 0 || s.Near < 0 || s.Sources+s.Near < 1 || s.Sources+s.Near > MaxSynthSources:
		return fmt.Errorf("%d sources and %d near the limit: want 1 to %d in all", s.Sources, s.Near, MaxSynthSources)
	case s.Sources > 0 && !(s.Zipf > 0 && s.Zipf <= 10):
		return fmt.Errorf("zipf exponent %v: want more than 0, at most 10", s.Zipf)
	case s.Near > 0 && (s.Limit < 1 || s.Window <= 0):
		return errors.New("sources near the limit need the limit and its window")
	case s.NearSpread < 0 || s.NearSpread >= 1:
		return fmt.Errorf("near spread %v: want 0 to below 1", s.NearSpread)
	case s.Diurnal < 0 || s.Diurnal >= 1:
		return fmt.Errorf("diurnal swing %v: want 0 to below 1", s.Diurnal)
	case s.Diurnal > 0 && s.DiurnalPeriod <= 0:
		return errors.New("a diurnal swing needs its period")
	case s.BurstOff < 0 || s.BurstOn < 0 || (s.BurstOff > 0 && s.BurstOn <= 0):
		return errors.New("bursts need a positive on period (and an off period of 0 or more)")
	case !slices.Contains([]Format{CSV, JSONL, Combined}, s.Format):
		return fmt.Errorf("format %q: synth writes csv, jsonl or combined", s.Format)
	case s.Start.Year() < 1970 || s.Start.Year() > 2200:
		return fmt.Errorf("start %s: want a time from 1970 to 2200", s.Start.Format(time.RFC3339))
	}
	if s.Near > 0 && s.nearPerSecond() >= s.PerSecond && s.Sources > 0 {
		return fmt.Errorf("%d sources near %d per %s send about %.4g requests a second, as much as the whole rate %.4g: raise the rate or lower near", s.Near, s.Limit, s.Window, s.nearPerSecond(), s.PerSecond)
	}
	return nil
}

// nearPerSecond is what the sources near the limit send together, on
// average.
func (s Synth) nearPerSecond() float64 {
	if s.Near == 0 {
		return 0
	}
	return float64(s.Near) * float64(s.Limit) / s.Window.Seconds()
}

// zipfWeights are the Zipf sources' shares of their rate, summing to 1.
func (s Synth) zipfWeights() []float64 {
	w := make([]float64, s.Sources)
	var sum float64
	for k := range w {
		w[k] = math.Pow(float64(k+1), -s.Zipf)
		sum += w[k]
	}
	for k := range w {
		w[k] /= sum
	}
	return w
}

// topShare is the share of the Zipf sources' requests their top 1% (at
// least one) sends.
func (s Synth) topShare() float64 {
	if s.Sources == 0 {
		return 0
	}
	var share float64
	for _, w := range s.zipfWeights()[:max(s.Sources/100, 1)] {
		share += w
	}
	return math.Round(share*1e4) / 1e4
}

// source is one sender's state while the trace is written.
type source struct {
	// next is when it sends next, switch when its on or off period ends
	// (seconds from Start); peak is its rate while on at the top of the
	// day's swing, the rate candidates are drawn at.
	next, switchAt, peak float64
	id                   uint32
	on, steady           bool
}

// Written is what a synthetic trace holds.
type Written struct {
	Lines int64
	// Span is from the first request to the last.
	Span time.Duration
}

// Write writes the trace to w, line by line: it holds one state per
// source, never the lines. It stops with ctx's error when ctx ends.
func (s Synth) Write(ctx context.Context, w io.Writer) (Written, error) {
	if err := s.Check(); err != nil {
		return Written{}, err
	}
	g := newGenerator(s)
	out := newLineWriter(s, w)
	if s.Format != Combined {
		out.w.WriteString("# " + s.Header() + "\n")
	}
	if s.Format == CSV {
		out.w.WriteString("time,identity\n")
	}
	end := math.Inf(1)
	if s.Duration > 0 {
		end = s.Duration.Seconds()
	}
	var n int64
	var first, last float64
	for s.Lines == 0 || n < s.Lines {
		t, id := g.next()
		if t >= end {
			break
		}
		if n == 0 {
			first = t
		}
		last = t
		if err := out.line(t, id); err != nil {
			return Written{Lines: n}, err
		}
		if n++; n%4096 == 0 && ctx.Err() != nil {
			return Written{Lines: n}, ctx.Err()
		}
	}
	if err := out.flush(); err != nil {
		return Written{Lines: n}, err
	}
	return Written{Lines: n, Span: time.Duration((last - first) * 1e9)}, nil
}

// generator merges the sources' arrivals in time order.
type generator struct {
	s       Synth
	rng     *rand.Rand
	sources []source
	// order is a min-heap of source indexes by their next arrival.
	order []int32
	onS   float64
	offS  float64
}

func newGenerator(s Synth) *generator {
	g := &generator{s: s, rng: rand.New(rand.NewPCG(uint64(s.Seed), 0x2545f4914f6cdd1d)), onS: s.BurstOn.Seconds(), offS: s.BurstOff.Seconds()}
	bg := s.PerSecond - s.nearPerSecond()
	if s.Sources == 0 {
		bg = 0
	}
	swing := 1 + s.Diurnal
	for k, w := range s.zipfWeights() {
		src := source{id: uint32(k), on: true, switchAt: math.Inf(1), peak: bg * w * swing}
		if s.BurstOff > 0 {
			src.peak *= (g.onS + g.offS) / g.onS
			// Each source starts at a random point of its cycle.
			src.on = g.rng.Float64() < g.onS/(g.onS+g.offS)
			src.switchAt = g.period(src.on)
		}
		g.sources = append(g.sources, src)
	}
	threshold := 0.0
	if s.Near > 0 {
		threshold = float64(s.Limit) / s.Window.Seconds()
	}
	for k := range s.Near {
		rate := threshold * (1 - s.NearSpread + 2*s.NearSpread*g.rng.Float64())
		g.sources = append(g.sources, source{id: uint32(s.Sources + k), on: true, steady: true, switchAt: math.Inf(1), peak: rate})
	}
	for i := range g.sources {
		g.sources[i].next = g.advance(&g.sources[i], 0)
		g.order = append(g.order, int32(i))
	}
	for i := len(g.order)/2 - 1; i >= 0; i-- {
		g.down(i)
	}
	return g
}

// period draws the length of an on (or off) period.
func (g *generator) period(on bool) float64 {
	if on {
		return g.rng.ExpFloat64() * g.onS
	}
	return g.rng.ExpFloat64() * g.offS
}

// rateShare is the share of a Zipf source's peak rate it sends at time t
// (seconds): the day's swing, between 1-Diurnal and 1+Diurnal of 1+Diurnal.
func (g *generator) rateShare(t float64) float64 {
	if g.s.Diurnal == 0 {
		return 1
	}
	return (1 + g.s.Diurnal*math.Sin(2*math.Pi*t/g.s.DiurnalPeriod.Seconds())) / (1 + g.s.Diurnal)
}

// advance is the source's first arrival after t: a Poisson process at its
// peak rate, thinned to the day's swing, sending only while on.
func (g *generator) advance(src *source, t float64) float64 {
	if src.peak <= 0 {
		return math.Inf(1)
	}
	for {
		if !src.on {
			// Quiet until the period ends; the draw restarts from there
			// (exponential gaps have no memory).
			t = src.switchAt
			src.on = true
			src.switchAt = t + g.period(true)
		}
		cand := t + g.rng.ExpFloat64()/src.peak
		if cand >= src.switchAt {
			t = src.switchAt
			src.on = false
			src.switchAt = t + g.period(false)
			continue
		}
		t = cand
		if src.steady || g.rng.Float64() < g.rateShare(t) {
			return t
		}
	}
}

// next is the next arrival of all the sources: its time and source.
func (g *generator) next() (float64, uint32) {
	top := &g.sources[g.order[0]]
	t, id := top.next, top.id
	top.next = g.advance(top, t)
	g.down(0)
	return t, id
}

// down restores the heap's order below i.
func (g *generator) down(i int) {
	o, src := g.order, g.sources
	for {
		l, m := 2*i+1, i
		if l < len(o) && src[o[l]].next < src[o[m]].next {
			m = l
		}
		if r := l + 1; r < len(o) && src[o[r]].next < src[o[m]].next {
			m = r
		}
		if m == i {
			return
		}
		o[i], o[m] = o[m], o[i]
		i = m
	}
}

// SourceAddress is source k's address, in 10.0.0.0/8: the sources are
// scattered over it (k times an odd number, modulo 2^24), so the heaviest
// are not 10.0.0.1 and its neighbours.
func SourceAddress(k uint32) string { return string(appendAddress(nil, k)) }

// appendAddress appends source k's address to b.
func appendAddress(b []byte, k uint32) []byte {
	v := uint64((k * 2654435761) & 0xffffff)
	b = append(b, "10."...)
	b = strconv.AppendUint(b, v>>16, 10)
	b = append(b, '.')
	b = strconv.AppendUint(b, (v>>8)&0xff, 10)
	b = append(b, '.')
	return strconv.AppendUint(b, v&0xff, 10)
}

// synthPaths are the paths an access log's requests ask for.
var synthPaths = []string{"/", "/api/v1/items", "/api/v1/items/42", "/api/v1/search?q=limits", "/api/v1/orders", "/login", "/static/app.js", "/health"}

// lineWriter writes a synthetic trace's lines in its format.
type lineWriter struct {
	s   Synth
	w   *bufio.Writer
	buf []byte
	// second and stamp cache an access log's time of one second.
	second int64
	stamp  []byte
	k      uint64
}

func newLineWriter(s Synth, w io.Writer) *lineWriter {
	return &lineWriter{s: s, w: bufio.NewWriterSize(w, 256<<10), second: math.MinInt64}
}

func (lw *lineWriter) flush() error { return lw.w.Flush() }

// line writes the request of source id at t seconds from Start.
func (lw *lineWriter) line(t float64, id uint32) error {
	at := lw.s.Start.Add(time.Duration(t * 1e9)).UTC()
	b := lw.buf[:0]
	switch lw.s.Format {
	case CSV:
		b = at.AppendFormat(b, "2006-01-02T15:04:05.000000Z")
		b = append(b, ',')
		b = appendAddress(b, id)
	case JSONL:
		b = append(b, `{"time":"`...)
		b = at.AppendFormat(b, "2006-01-02T15:04:05.000000Z")
		b = append(b, `","identity":"`...)
		b = appendAddress(b, id)
		b = append(b, `"}`...)
	case Combined:
		if sec := at.Unix(); sec != lw.second {
			lw.second, lw.stamp = sec, at.AppendFormat(lw.stamp[:0], "[02/Jan/2006:15:04:05 -0700]")
		}
		lw.k++
		b = appendAddress(b, id)
		b = append(b, " - - "...)
		b = append(b, lw.stamp...)
		b = append(b, ` "GET `...)
		b = append(b, synthPaths[lw.k%uint64(len(synthPaths))]...)
		b = append(b, ` HTTP/1.1" 200 `...)
		b = strconv.AppendUint(b, 200+(lw.k*7919)%4800, 10)
		b = append(b, ` "-" "rlbench-synth/1"`...)
	}
	b = append(b, '\n')
	lw.buf = b
	_, err := lw.w.Write(b)
	return err
}

// WriteFile writes the trace to path, gzip when it ends in .gz; an access
// log's parameters go to path + ".params.json" beside it (CSV and JSON
// Lines carry them on their first line). A trace that could not be
// written whole (ctx ended, the disk filled) is removed: a part of one
// would replay as if it were all.
func (s Synth) WriteFile(ctx context.Context, path string) (Written, error) {
	if err := s.Check(); err != nil {
		return Written{}, err
	}
	f, err := os.Create(path)
	if err != nil {
		return Written{}, err
	}
	var w io.Writer = f
	var gz *gzip.Writer
	if strings.HasSuffix(path, ".gz") {
		gz = gzip.NewWriter(f)
		w = gz
	}
	written, err := s.Write(ctx, w)
	if gz != nil {
		if cerr := gz.Close(); err == nil {
			err = cerr
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return written, err
	}
	if s.Format == Combined {
		if err := os.WriteFile(SidecarPath(path), []byte(s.Header()+"\n"), 0o644); err != nil {
			return written, err
		}
	}
	return written, nil
}

// SidecarPath is where an access log's parameters are written.
func SidecarPath(path string) string { return path + ".params.json" }
