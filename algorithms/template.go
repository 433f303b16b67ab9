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
	// VarRequestID is a number unique among one limiter's requests.
	VarRequestID = "request_id"
	// VarNowMs is the client's clock, in milliseconds since the epoch, when
	// the request is sent.
	VarNowMs = "now_ms"
)

// KeyVariables are the variables a key template may use: a key names the
// identity's state, never a value of the request.
var KeyVariables = []string{VarIdentity, VarScenario}

// ArgVariables are the variables an argument template may use.
var ArgVariables = []string{VarIdentity, VarScenario, VarLimit, VarWindowMs, VarWindowS, VarWindowUs, VarBurst, VarRequestID, VarNowMs}

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
// not followed by "{" is plain text.
func ParseTemplate(s string, allowed []string) (Template, error) {
	t := Template{raw: s}
	if s == "" {
		return t, fmt.Errorf("empty template")
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

// requestVars are the values that change from request to request.
type requestVars struct {
	identity  string
	requestID uint64
	nowMs     int64
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
		case VarNowMs:
			dst = strconv.AppendInt(dst, v.nowMs, 10)
		}
	}
	return dst
}

// uses reports whether the bound template still varies with variable.
func (b boundTemplate) uses(variable string) bool {
	for _, p := range b.parts {
		if p.variable == variable {
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
