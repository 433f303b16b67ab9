package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rlbench/rlbench/internal/numfmt"
	"github.com/rlbench/rlbench/result"
)

// Every number a person reads in a summary, a table, a plot or the page is
// formatted here, so that one figure looks the same wherever it appears.

// FormatPolicy renders a policy as people say it: "100 per 1s, burst 150".
func FormatPolicy(p result.PolicyInfo) string {
	s := fmt.Sprintf("%d per %s", p.Limit, FormatMillis(p.WindowMs))
	if p.Burst > 0 && p.Burst != p.Limit {
		s += fmt.Sprintf(", burst %d", p.Burst)
	}
	if p.BucketMs > 0 {
		s += ", bucket " + FormatMillis(p.BucketMs)
	}
	return s
}

// FormatPolicyShort renders a policy for a table cell: "25/500ms",
// "25/500ms b50".
func FormatPolicyShort(p result.PolicyInfo) string {
	s := fmt.Sprintf("%d/%s", p.Limit, FormatMillis(p.WindowMs))
	if p.Burst > 0 && p.Burst != p.Limit {
		s += fmt.Sprintf(" b%d", p.Burst)
	}
	return s
}

// FormatMillis renders a window in milliseconds as people write it (1s,
// 250ms, 1m, 1h).
func FormatMillis(ms int64) string { return numfmt.Millis(ms) }

// FormatMicros renders a latency in microseconds with a unit that keeps three
// significant figures: 87us, 1.24ms, 2.00s.
func FormatMicros(us int64) string { return numfmt.Micros(us) }

// FormatRate renders a rate per second: whole numbers from 100 up, one
// decimal below.
func FormatRate(perS float64) string {
	if perS >= 100 {
		return strings.TrimSuffix(fmt.Sprintf("%.0f", perS), ".0")
	}
	return fmt.Sprintf("%.1f", perS)
}

// FormatBytes renders a size in bytes with a binary unit: 512 B, 37.2 MiB.
func FormatBytes(b uint64) string {
	if b == 0 {
		return "-"
	}
	return FormatSize(float64(b))
}

// FormatSize renders a size in bytes, which may be fractional or negative
// (a per-identity figure): 87.5 B, 117 B, 1.50 KiB, 58.0 MiB.
func FormatSize(v float64) string { return numfmt.Size(v) }

// FormatCountShort renders a count briefly: 950, 10k, 1.5M.
func FormatCountShort(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", float64(n)/1000), "0"), ".") + "k"
	default:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", float64(n)/1e6), "0"), ".") + "M"
	}
}

// optBytes renders a per-key or per-identity size, "-" when not measured.
func optBytes(b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", b)
}

// FormatCount groups thousands with commas: 177,436.
func FormatCount(n int64) string { return numfmt.Count(n) }

// benchNumber prints a benchmark figure: whole numbers as such, others to
// four significant digits.
func benchNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.4g", v)
}

// FormatTick prints a tick value to six significant digits without
// trailing zeros, thousands and millions as k and M: 0.7 (not
// 0.7000000000000001), 2, 1500, 10k, 2.5M.
func FormatTick(v float64) string {
	if v == 0 {
		return "0"
	}
	scale := math.Pow(10, 6-math.Ceil(math.Log10(math.Abs(v))))
	v = math.Round(v*scale) / scale
	switch a := math.Abs(v); {
	case a >= 1e6 && math.Mod(a, 1e5) == 0:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case a >= 1e4 && math.Mod(a, 100) == 0:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// FormatFieldValue renders a value of the field at jsonPath with its unit:
// latencies as 1.24ms, sizes as 117B or 1.5KiB, ratios to the reference as
// 2.41x, other numbers plainly.
func FormatFieldValue(jsonPath string, v float64) string { return numfmt.FieldValue(jsonPath, v) }

// FormatEncodings renders OBJECT ENCODING counts, most frequent first:
// "listpack 998, skiplist 2".
func FormatEncodings(enc map[string]int64) string {
	if len(enc) == 0 {
		return "-"
	}
	names := make([]string, 0, len(enc))
	for k := range enc {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if enc[names[i]] != enc[names[j]] {
			return enc[names[i]] > enc[names[j]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %d", k, enc[k])
	}
	return strings.Join(parts, ", ")
}

// FormatShare renders a share of decisions as a percentage with the
// precision small shares need: 0.003%, 1.25%, 40%.
func FormatShare(f float64) string { return numfmt.Share(f) }
