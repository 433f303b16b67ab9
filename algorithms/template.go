package algorithms

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Template variables a declared limiter's keys and arguments may use.
const (
	// VarIdentity is the caller being limited (rlbench's identity number).
	VarIdentity = "identity"
	// VarScenario is the name of the scenario the limiter runs in.
	VarScenario = "scenario"
	// VarLimit, VarWindowMs, VarWindowS, VarWindowUs and VarBurst are the
	// policy: requests per window, the window in milliseconds, seconds
	// (whole seconds only) and microseconds, and the bucket capacity.
	VarLimit    = "limit"
	VarWindowMs = "window_ms"
	VarWindowS  = "window_s"
	VarWindowUs = "window_us"
	VarBurst    = "burst"
	// VarRatePerS is the policy's rate, limit / window, in requests per
	// second: a decimal ("100", "0.5", "33.333333333333336"); VarRatePerMs
	// the same per millisecond ("0.1" for 100 per second).
	VarRatePerS  = "rate_per_s"
	VarRatePerMs = "rate_per_ms"
	// VarRequestID is a number unique among one limiter's requests.
	VarRequestID = "request_id"
	// VarNowS, VarNowSFloat, VarNowMs and VarNowUs are the caller's clock
	// when the request is sent, since the epoch: in whole seconds, in
	// seconds with six decimals (PHP's microtime(true), Python's
	// time.time()), in milliseconds and in microseconds. Every one of them
	// in one request comes from the same reading.
	VarNowS      = "now_s"
	VarNowSFloat = "now_s_float"
	VarNowMs     = "now_ms"
	VarNowUs     = "now_us"
	// VarCost is how many units the request asks for (the scenario's
	// cost; 1 when it gives none).
	VarCost = "cost"
)

// NowVariables are the variables that carry the caller's clock.
var NowVariables = []string{VarNowS, VarNowSFloat, VarNowMs, VarNowUs}

// KeyVariables are the variables a key template may use: a key names the
// identity's state, never a value of the request.
var KeyVariables = []string{VarIdentity, VarScenario}

// ArgVariables are the variables an argument template may use.
var ArgVariables = []string{VarIdentity, VarScenario, VarLimit, VarWindowMs, VarWindowS, VarWindowUs, VarBurst, VarRatePerS, VarRatePerMs, VarRequestID,
	VarNowS, VarNowSFloat, VarNowMs, VarNowUs, VarCost}

// Template is a key or argument pattern: text with ${variable} placeholders,
// such as "checkout:{${identity}}" or "${window_ms}".
type Template struct {
	raw   string
	parts []templatePart
}

// templatePart is literal text, or one variable when variable is set.
type templatePart struct {
	text     string
	variable string
}

// ParseTemplate reads s, accepting only the variables in allowed. A "$"
// not followed by "{" is plain text; an empty s is the empty string (an
// argument a caller sends empty, as some applications send one their
// script no longer reads).
func ParseTemplate(s string, allowed []string) (Template, error) {
	t := Template{raw: s}
	if s == "" {
		t.parts = []templatePart{{}}
		return t, nil
	}
	rest := s
	for rest != "" {
		i := strings.Index(rest, "${")
		if i < 0 {
			t.parts = append(t.parts, templatePart{text: rest})
			break
		}
		if i > 0 {
			t.parts = append(t.parts, templatePart{text: rest[:i]})
		}
		end := strings.IndexByte(rest[i:], '}')
		if end < 0 {
			return t, fmt.Errorf("%q: \"${\" is never closed with \"}\"", s)
		}
		name := rest[i+2 : i+end]
		if !slices.Contains(allowed, name) {
			return t, fmt.Errorf("%q: unknown variable ${%s} (known here: %s)", s, name, joinVars(allowed))
		}
		t.parts = append(t.parts, templatePart{variable: name})
		rest = rest[i+end+1:]
	}
	return t, nil
}

// MustParseTemplate is ParseTemplate for templates known to be right; it
// panics on an error.
func MustParseTemplate(s string, allowed []string) Template {
	t, err := ParseTemplate(s, allowed)
	if err != nil {
		panic(err)
	}
	return t
}

func joinVars(vars []string) string {
	out := make([]string, len(vars))
	for i, v := range vars {
		out[i] = "${" + v + "}"
	}
	return strings.Join(out, ", ")
}

// String is the template as written.
func (t Template) String() string { return t.raw }

// Uses reports whether the template refers to variable.
func (t Template) Uses(variable string) bool {
	for _, p := range t.parts {
		if p.variable == variable {
			return true
		}
	}
	return false
}

// UsesAny reports whether the template refers to any of variables.
func (t Template) UsesAny(variables []string) bool {
	for _, v := range variables {
		if t.Uses(v) {
			return true
		}
	}
	return false
}

// requestVars are the values that change from request to request.
type requestVars struct {
	identity  string
	requestID uint64
	// nowMicros is the one clock reading every time variable is made of.
	nowMicros int64
	cost      int64
}

// boundTemplate is a template with every variable that is fixed for a run
// (the policy, the scenario) replaced by its value, adjacent text merged.
type boundTemplate struct {
	parts []templatePart
	// static is the whole value when no part varies per request.
	static   string
	isStatic bool
}

// bind fills in the variables fixed for a run.
func (t Template) bind(fixed map[string]string) boundTemplate {
	var b boundTemplate
	for _, p := range t.parts {
		text, isFixed := p.text, p.variable == ""
		if !isFixed {
			text, isFixed = fixed[p.variable]
		}
		n := len(b.parts)
		switch {
		case isFixed && n > 0 && b.parts[n-1].variable == "":
			b.parts[n-1].text += text
		case isFixed:
			b.parts = append(b.parts, templatePart{text: text})
		default:
			b.parts = append(b.parts, p)
		}
	}
	if len(b.parts) == 1 && b.parts[0].variable == "" {
		b.static, b.isStatic = b.parts[0].text, true
	}
	return b
}

// appendTo appends the template's value for one request to dst.
func (b boundTemplate) appendTo(dst []byte, v *requestVars) []byte {
	for _, p := range b.parts {
		switch p.variable {
		case "":
			dst = append(dst, p.text...)
		case VarIdentity:
			dst = append(dst, v.identity...)
		case VarRequestID:
			dst = strconv.AppendUint(dst, v.requestID, 10)
		case VarNowS:
			dst = strconv.AppendInt(dst, floorDiv(v.nowMicros, 1_000_000), 10)
		case VarNowSFloat:
			dst = appendSecondsFloat(dst, v.nowMicros)
		case VarNowMs:
			dst = strconv.AppendInt(dst, floorDiv(v.nowMicros, 1000), 10)
		case VarNowUs:
			dst = strconv.AppendInt(dst, v.nowMicros, 10)
		case VarCost:
			dst = strconv.AppendInt(dst, v.cost, 10)
		}
	}
	return dst
}

// appendSecondsFloat appends us, microseconds since the epoch, as seconds
// with six decimals ("1764000000.123456"), written from integers so no
// digit is lost to a float.
func appendSecondsFloat(dst []byte, us int64) []byte {
	sec, frac := floorDiv(us, 1_000_000), us-floorDiv(us, 1_000_000)*1_000_000
	dst = strconv.AppendInt(dst, sec, 10)
	dst = append(dst, '.')
	for d := int64(100_000); d > 0; d /= 10 {
		dst = append(dst, byte('0'+frac/d%10))
	}
	return dst
}

// uses reports whether the bound template still varies with any of
// variables.
func (b boundTemplate) uses(variables ...string) bool {
	for _, p := range b.parts {
		if slices.Contains(variables, p.variable) {
			return true
		}
	}
	return false
}

// matcher returns a pattern that matches the template's values and
// captures the first identity in them; the caller confirms a match by
// expanding the identity again, since a pattern cannot require two
// placeholders to hold the same identity.
func (b boundTemplate) matcher() *regexp.Regexp {
	var sb strings.Builder
	sb.WriteString("^")
	captured := false
	for _, p := range b.parts {
		switch {
		case p.variable == "":
			sb.WriteString(regexp.QuoteMeta(p.text))
		case p.variable == VarIdentity && !captured:
			sb.WriteString("(.+?)")
			captured = true
		default:
			sb.WriteString(".+?")
		}
	}
	sb.WriteString("$")
	return regexp.MustCompile(sb.String())
}
