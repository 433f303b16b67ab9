// Package numfmt writes the figures of a result as people read them —
// counts with thousands grouped, windows, latencies and sizes with their
// units — the same way wherever they appear: in the verdict's reasons, the
// summary, the page.
package numfmt

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rlbench/rlbench/result"
)

// Count groups thousands with commas: 177,436.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Millis renders a window in milliseconds as people write it (1s,
// 250ms, 1m, 1h).
func Millis(ms int64) string {
	switch {
	case ms != 0 && ms%3_600_000 == 0:
		return fmt.Sprintf("%dh", ms/3_600_000)
	case ms != 0 && ms%60_000 == 0:
		return fmt.Sprintf("%dm", ms/60_000)
	case ms != 0 && ms%1000 == 0:
		return fmt.Sprintf("%ds", ms/1000)
	default:
		return fmt.Sprintf("%dms", ms)
	}
}

// Micros renders a latency in microseconds with a unit that keeps
// three significant figures: 87us, 1.24ms, 2.00s.
func Micros(us int64) string {
	switch {
	case us < 1000:
		return fmt.Sprintf("%dus", us)
	case us < 1_000_000:
		return trimFloat(float64(us)/1000) + "ms"
	default:
		return trimFloat(float64(us)/1e6) + "s"
	}
}

// trimFloat prints f to three significant figures (for f below 1000).
func trimFloat(f float64) string {
	switch {
	case f >= 100:
		return fmt.Sprintf("%.0f", f)
	case f >= 10:
		return fmt.Sprintf("%.1f", f)
	default:
		return fmt.Sprintf("%.2f", f)
	}
}

// Size renders a size in bytes, which may be fractional or negative:
// 87.5 B, 117 B, 1.50 KiB, 58.0 MiB.
func Size(v float64) string {
	const unit = 1024
	if math.Abs(v) < unit {
		if math.Abs(v) >= 100 || v == math.Trunc(v) {
			return fmt.Sprintf("%.0f B", v)
		}
		return fmt.Sprintf("%.1f B", v)
	}
	v, suffix := v/unit, "KiB"
	for _, s := range []string{"MiB", "GiB", "TiB"} {
		if math.Abs(v) < unit {
			break
		}
		v, suffix = v/unit, s
	}
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	return sign + trimFloat(v) + " " + suffix
}

// FieldValue renders a value of the field at jsonPath with its unit:
// latencies as 1.24ms, sizes as 117 B or 1.50 KiB, ratios to the reference
// as 2.41x, other numbers plainly.
func FieldValue(jsonPath string, v float64) string {
	if strings.HasPrefix(jsonPath, "relative.") {
		return strconv.FormatFloat(v, 'f', 2, 64) + "x"
	}
	if strings.HasPrefix(jsonPath, "accuracy.") && strings.HasSuffix(jsonPath, "_share") {
		// A share of the decisions compared with the ideal limiter.
		return Share(v)
	}
	dim, err := result.FieldDimension(jsonPath)
	if err != nil {
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	switch dim {
	case result.Micros:
		return Micros(int64(math.Round(v)))
	case result.Seconds:
		return Micros(int64(math.Round(v * 1e6)))
	case result.Bytes:
		return Size(v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// Fraction renders a fraction as a percentage: 0.001 is "0.1%".
func Fraction(f float64) string {
	return strconv.FormatFloat(f*100, 'g', -1, 64) + "%"
}

// Share renders a measured share as a percentage with the precision small
// shares need: 0.003%, 1.25%, 40%.
func Share(f float64) string {
	pct := 100 * f
	switch {
	case pct == 0:
		return "0%"
	case pct < 0.01:
		return fmt.Sprintf("%.4f%%", pct)
	case pct < 1:
		return fmt.Sprintf("%.3f%%", pct)
	case pct < 10:
		return fmt.Sprintf("%.2f%%", pct)
	}
	return fmt.Sprintf("%.0f%%", pct)
}
