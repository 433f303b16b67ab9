package result

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Latency histograms span 1 us to 60 s at 3 significant digits: the range
// and precision every run records with, so that histograms of different
// runs and segments merge exactly.
const (
	HistLowestMicros  = 1
	HistHighestMicros = 60_000_000
	HistDigits        = 3
)

// NewHistogram returns an empty latency histogram with the contract's range
// and precision, in microseconds.
func NewHistogram() *Histogram {
	return &Histogram{h: hdrhistogram.New(HistLowestMicros, HistHighestMicros, HistDigits)}
}

// NewCoarseHistogram returns a latency histogram of the contract's range
// at fewer significant digits, for the many small histograms of bins and
// seconds: 1 digit keeps a p99 to within 10%, 2 within 1%.
func NewCoarseHistogram(digits int) *Histogram {
	return &Histogram{h: hdrhistogram.New(HistLowestMicros, HistHighestMicros, int(min(max(digits, 1), HistDigits)))}
}

// HistMicros is d in whole microseconds, clamped to the range latency
// histograms record.
func HistMicros(d time.Duration) int64 {
	return min(max(d.Microseconds(), HistLowestMicros), HistHighestMicros)
}

// Digest is the usual digest of h, in microseconds; a nil or empty
// histogram gives zeros.
func Digest(h *Histogram) Latency {
	if h == nil || h.h.TotalCount() == 0 {
		return Latency{}
	}
	return Latency{
		Count: h.h.TotalCount(),
		P50:   h.h.ValueAtQuantile(50),
		P90:   h.h.ValueAtQuantile(90),
		P99:   h.h.ValueAtQuantile(99),
		P999:  h.h.ValueAtQuantile(99.9),
		Max:   h.h.Max(),
		Mean:  h.h.Mean(),
	}
}

// EncodeHistogram returns h in the HdrHistogram V2 compressed base64 form, so
// results can be merged and re-plotted by any HdrHistogram tool. A nil
// histogram encodes as "".
func EncodeHistogram(h *Histogram) (string, error) {
	if h == nil {
		return "", nil
	}
	b, err := h.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", err
	}
	// Encode already returns base64 text; check rather than assume.
	if _, err := base64.StdEncoding.DecodeString(string(b)); err != nil {
		return base64.StdEncoding.EncodeToString(b), nil
	}
	return string(b), nil
}

// Histogram is a latency histogram in microseconds, of the contract's range
// (NewHistogram, NewCoarseHistogram): what a run records its latencies in,
// and a run's decoded one (Run.Histograms). It is the one histogram type
// rlbench's packages use, so that only this one depends on the codec. It
// is not safe for concurrent use.
type Histogram struct{ h *hdrhistogram.Histogram }

// Record adds one value, in microseconds; a value outside the contract's
// range (HistMicros clamps a duration into it) is dropped.
func (h *Histogram) Record(micros int64) { _ = h.h.RecordValue(micros) }

// Merge adds every value of o.
func (h *Histogram) Merge(o *Histogram) { h.h.Merge(o.h) }

// Reset empties the histogram, keeping its counts' memory.
func (h *Histogram) Reset() { h.h.Reset() }

// ValueAtQuantile is the value at quantile q (0 to 100).
func (h *Histogram) ValueAtQuantile(q float64) int64 { return h.h.ValueAtQuantile(q) }

// Count is the number of values recorded.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Max is the largest value recorded.
func (h *Histogram) Max() int64 { return h.h.Max() }

// AtPercentiles returns the value at each percentile (0 to 100).
func (h *Histogram) AtPercentiles(percentiles []float64) []int64 {
	return h.h.ValueAtPercentilesSlice(percentiles)
}

// WritePercentiles writes the distribution in HdrHistogram's .hgrm
// percentile format, ticksPerHalfDistance lines per halving of the tail,
// values divided by scale (1000 prints milliseconds).
func (h *Histogram) WritePercentiles(w io.Writer, ticksPerHalfDistance int32, scale float64) error {
	_, err := h.h.PercentilesPrint(w, ticksPerHalfDistance, scale)
	return err
}

// HistogramError is a latency histogram in a result that does not decode:
// the result is damaged, not the machine that reads it.
type HistogramError struct {
	// Run is the run's algorithm/scenario; Field the JSON field.
	Run, Field string
	Err        error
}

func (e *HistogramError) Error() string {
	return fmt.Sprintf("runs %s: %s is not an HdrHistogram V2 base64 encoding: %v", e.Run, e.Field, e.Err)
}

func (e *HistogramError) Unwrap() error { return e.Err }

// Histograms decodes the run's corrected and uncorrected latency
// histograms. An empty field gives a nil histogram; a field that does not
// decode is a *HistogramError.
func (r *Run) Histograms() (corrected, uncorrected *Histogram, err error) {
	corrected, err = decodeHistogram(r, "latency_hdr", r.LatencyHDR)
	if err != nil {
		return nil, nil, err
	}
	uncorrected, err = decodeHistogram(r, "latency_uncorrected_hdr", r.LatencyUncorrectedHDR)
	if err != nil {
		return nil, nil, err
	}
	return corrected, uncorrected, nil
}

func decodeHistogram(run *Run, field, s string) (*Histogram, error) {
	if s == "" {
		return nil, nil
	}
	if err := checkGeometry(s); err != nil {
		return nil, &HistogramError{Run: run.Key(), Field: field, Err: err}
	}
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, &HistogramError{Run: run.Key(), Field: field, Err: err}
	}
	return &Histogram{h: h}, nil
}

// encodedHeaderBytes is the size of the header an HdrHistogram V2
// encoding starts with, once inflated: cookie, payload length,
// normalizing offset and significant digits (4 bytes each), lowest and
// highest trackable values (8 each), conversion ratio (8).
const encodedHeaderBytes = 40

// checkGeometry reads the header of an encoded histogram and refuses one
// whose range or precision is not the contract's. Decoding allocates the
// counts the header declares (some 50 MB for 1..MaxInt64 at 5 digits, from
// a few bytes of result), so a damaged or hostile result is refused before
// that, and every histogram of a result costs the same to decode.
func checkGeometry(encoded string) error {
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return err
	}
	if len(raw) < 8 {
		return fmt.Errorf("encoded histogram too short: %d bytes", len(raw))
	}
	z, err := zlib.NewReader(bytes.NewReader(raw[8:]))
	if err != nil {
		return err
	}
	defer z.Close()
	var header struct {
		Cookie, PayloadLength, NormalizingIndexOffset, Digits int32
		Lowest, Highest                                       int64
		ConversionRatio                                       float64
	}
	if err := binary.Read(io.LimitReader(z, encodedHeaderBytes), binary.BigEndian, &header); err != nil {
		return fmt.Errorf("histogram header: %w", err)
	}
	if header.Lowest != HistLowestMicros || header.Highest != HistHighestMicros || header.Digits != HistDigits {
		return fmt.Errorf("the histogram covers %d..%d at %d significant digits, not the contract's %d..%d at %d",
			header.Lowest, header.Highest, header.Digits, HistLowestMicros, HistHighestMicros, HistDigits)
	}
	return nil
}
