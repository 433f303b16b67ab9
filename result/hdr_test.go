package result

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// TestWritePercentilesRoundTrip reads a printed distribution back and
// checks it against the histogram it came from: each line's value is the
// top of the first bucket whose cumulative count reaches the line's
// percentile, its count is that cumulative count, the counts end at the
// total, and the footer carries the max.
func TestWritePercentilesRoundTrip(t *testing.T) {
	h := NewHistogram()
	for v := int64(1); v <= 200_000; v = v*11/10 + 1 {
		for k := int64(0); k < 1+v%7; k++ {
			h.Record(v + k)
		}
	}
	var buf bytes.Buffer
	if err := h.WritePercentiles(&buf, 5, 1000); err != nil {
		t.Fatal(err)
	}
	checkHGRM(t, "spread", buf.Bytes(), h.h)
}

func checkHGRM(t *testing.T, name string, text []byte, h *hdrhistogram.Histogram) {
	t.Helper()
	// below[v] and upTo[v] are the counts under and up to the bucket whose
	// highest equivalent value is v.
	below, upTo := map[int64]int64{}, map[int64]int64{}
	var cum int64
	for _, bar := range h.Distribution() {
		below[bar.To] = cum
		cum += bar.Count
		upTo[bar.To] = cum
	}
	total := float64(h.TotalCount())
	lines, maxMs := parseHGRM(t, name, text)
	if len(lines) < 20 {
		t.Errorf("%s: %d percentile lines", name, len(lines))
	}
	for _, l := range lines {
		us := int64(math.Round(l.valueMs * 1000))
		n, ok := upTo[us]
		switch {
		case !ok:
			t.Errorf("%s: %.3f ms is not the top of a bucket of the histogram", name, l.valueMs)
		case n != l.count:
			t.Errorf("%s: at %.3f ms the file counts %d, the histogram %d", name, l.valueMs, l.count, n)
		case float64(n)/total < l.percentile-5e-7 || float64(below[us])/total >= l.percentile+5e-7:
			t.Errorf("%s: %.3f ms is not the first bucket at percentile %.6f", name, l.valueMs, l.percentile)
		}
	}
	if last := lines[len(lines)-1]; last.count != h.TotalCount() || last.percentile != 1 {
		t.Errorf("%s: ends at %d (%.6f), want the total %d at 1", name, last.count, last.percentile, h.TotalCount())
	}
	if math.Abs(maxMs-float64(h.Max())/1000) > 0.0015 {
		t.Errorf("%s: footer max %.3f, want %.3f", name, maxMs, float64(h.Max())/1000)
	}
}

type hgrmLine struct {
	valueMs, percentile float64
	count               int64
}

// parseHGRM reads the HdrHistogram percentile-distribution format: a
// header, lines of value, percentile, total count and 1/(1-percentile),
// and a footer of #[...] lines.
func parseHGRM(t *testing.T, name string, text []byte) (lines []hgrmLine, maxMs float64) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 0 || f[0] == "Value":
		case strings.HasPrefix(f[0], "#[Max"):
			maxMs, _ = strconv.ParseFloat(strings.TrimSuffix(f[2], ","), 64)
		case strings.HasPrefix(f[0], "#"):
		case len(f) == 4:
			v, err1 := strconv.ParseFloat(f[0], 64)
			p, err2 := strconv.ParseFloat(f[1], 64)
			c, err3 := strconv.ParseInt(f[2], 10, 64)
			if err := errors.Join(err1, err2, err3); err != nil {
				t.Fatalf("%s: %q: %v", name, sc.Text(), err)
			}
			lines = append(lines, hgrmLine{v, p, c})
		default:
			t.Fatalf("%s: unexpected line %q", name, sc.Text())
		}
	}
	return lines, maxMs
}
