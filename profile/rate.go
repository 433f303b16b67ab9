package profile

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rlbench/rlbench/algorithms"
)

// Rate is an offered load: absolute, relative to the policy, or "max"
// (closed loop, as fast as the goroutines go).
type Rate struct {
	// PerSecond is an absolute rate; zero when Multiple or Max is used.
	PerSecond float64
	// Multiple is the rate as a multiple of what the policy admits for all
	// identities together ("2x": each identity offers twice its limit).
	Multiple float64
	// Max means closed loop.
	Max bool
}

// String renders the rate as a profile would write it.
func (r Rate) String() string {
	switch {
	case r.Max:
		return "max"
	case r.Multiple > 0:
		return strconv.FormatFloat(r.Multiple, 'g', -1, 64) + "x"
	default:
		return strconv.FormatFloat(r.PerSecond, 'g', -1, 64) + "/s"
	}
}

// TargetPerSecond is the total offered rate for identities callers under
// policy p; zero for closed loop.
func (r Rate) TargetPerSecond(p algorithms.Policy, identities int) float64 {
	switch {
	case r.Max:
		return 0
	case r.Multiple > 0:
		return r.Multiple * p.RatePerSecond() * float64(identities)
	default:
		return r.PerSecond
	}
}

var rateUnits = map[string]time.Duration{
	"s": time.Second, "sec": time.Second,
	"ms": time.Millisecond,
	"m":  time.Minute, "min": time.Minute,
	"h": time.Hour,
}

// ParseRate reads "500/s", "30000/m", "2x", "0.5x" or "max".
func ParseRate(s string) (Rate, error) {
	bad := fmt.Errorf("%q is not a rate like 500/s, 2x or max", s)
	s = strings.TrimSpace(s)
	switch {
	case s == "max":
		return Rate{Max: true}, nil
	case strings.HasSuffix(s, "x"):
		f, err := strconv.ParseFloat(strings.TrimSuffix(s, "x"), 64)
		if err != nil || !(f > 0) || f > 1e6 {
			return Rate{}, bad
		}
		return Rate{Multiple: f}, nil
	}
	num, unit, ok := strings.Cut(s, "/")
	if !ok {
		return Rate{}, bad
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	per, known := rateUnits[strings.TrimSpace(unit)]
	if err != nil || !known || !(f > 0) {
		return Rate{}, bad
	}
	perSecond := f / per.Seconds()
	if perSecond > 10_000_000 {
		return Rate{}, fmt.Errorf("%q is more than 10000000/s", s)
	}
	return Rate{PerSecond: perSecond}, nil
}
