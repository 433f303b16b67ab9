package algorithms

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// TimeUnit is the unit a script counts a time or a duration in: seconds,
// milliseconds or microseconds.
type TimeUnit string

// The units a reply's times and durations may be declared in.
const (
	Seconds      TimeUnit = "s"
	Milliseconds TimeUnit = "ms"
	Microseconds TimeUnit = "us"
)

// timeUnits lists the units in the order messages show them.
var timeUnits = []TimeUnit{Seconds, Milliseconds, Microseconds}

// ParseTimeUnit reads a unit: s, ms or us.
func ParseTimeUnit(s string) (TimeUnit, error) {
	for _, u := range timeUnits {
		if string(u) == s {
			return u, nil
		}
	}
	return "", fmt.Errorf("unknown unit %q (known: s, ms, us)", s)
}

// Micros is how many microseconds one of the unit holds.
func (u TimeUnit) Micros() int64 {
	switch u {
	case Seconds:
		return 1_000_000
	case Milliseconds:
		return 1000
	}
	return 1
}

// Duration is one of the unit as a time.Duration.
func (u TimeUnit) Duration() time.Duration { return time.Duration(u.Micros()) * time.Microsecond }

// exponent is the power of ten of a microsecond one of the unit holds.
func (u TimeUnit) exponent() int {
	switch u {
	case Seconds:
		return 6
	case Milliseconds:
		return 3
	}
	return 0
}

// Name is the unit as a word, for messages.
func (u TimeUnit) Name() string {
	switch u {
	case Seconds:
		return "seconds"
	case Milliseconds:
		return "milliseconds"
	}
	return "microseconds"
}

// TimeSource says whose clock a limiter decides by.
type TimeSource string

// The clocks a declared limiter may take its time from.
const (
	// TimeFromRedis is the server's clock: the script calls TIME.
	TimeFromRedis TimeSource = "redis"
	// TimeFromArgs is the caller's clock: the script reads the time from
	// its arguments (${now_s}, ${now_s_float}, ${now_ms}, ${now_us}).
	TimeFromArgs TimeSource = "args"
)

// ParseTimeSource reads redis or args.
func ParseTimeSource(s string) (TimeSource, error) {
	switch TimeSource(s) {
	case TimeFromRedis, TimeFromArgs:
		return TimeSource(s), nil
	}
	return "", fmt.Errorf("unknown time source %q: redis (the script calls TIME) or args (it reads ${now_s}, ${now_s_float}, ${now_ms} or ${now_us})", s)
}

// maxDecimalDigits is the most significant digits kept of a decimal:
// 10^18 still fits an int64.
const maxDecimalDigits = 18

// decimalMicros reads text, a decimal number of unit (an integer, a
// fraction such as "1764000000.123456", or with an exponent such as
// "1.764e+09"), as whole microseconds rounded to the nearest. It keeps
// every digit a microsecond needs, where a float64 would lose the last of
// an epoch in microseconds. ok is false for anything else, or a value
// beyond an int64 of microseconds.
func decimalMicros(text string, unit TimeUnit) (int64, bool) {
	s := strings.TrimSpace(text)
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var mant uint64
	digits, exp, seenDigit, seenDot := 0, 0, false, false
	i := 0
scan:
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' && !seenDot:
			seenDot = true
		case c >= '0' && c <= '9':
			seenDigit = true
			switch {
			case mant == 0 && c == '0':
				// A leading zero adds no digit.
				if seenDot {
					exp--
				}
			case digits < maxDecimalDigits:
				mant = mant*10 + uint64(c-'0')
				digits++
				if seenDot {
					exp--
				}
			default:
				// Beyond the digits kept: a dropped digit before the
				// point still counts a power of ten.
				if !seenDot {
					exp++
				}
			}
		default:
			break scan
		}
	}
	if !seenDigit {
		return 0, false
	}
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return 0, false
		}
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 100 || e < -100 {
			return 0, false
		}
		exp += e
	}
	exp += unit.exponent()
	v := mant
	switch {
	case mant == 0:
		return 0, true
	case exp > 0:
		for ; exp > 0; exp-- {
			if v > math.MaxInt64/10 {
				return 0, false
			}
			v *= 10
		}
	case exp < 0:
		if exp < -maxDecimalDigits-1 {
			return 0, true
		}
		p := uint64(1)
		for ; exp < 0; exp++ {
			p *= 10
		}
		v = (v + p/2) / p
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	if neg {
		return -int64(v), true
	}
	return int64(v), true
}

// numberText is a reply value that is a number, as text: an integer, a
// double (RESP3) or a string. ok is false for anything else.
func numberText(v any) (string, bool) {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false
		}
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case string:
		return x, true
	}
	return "", false
}
