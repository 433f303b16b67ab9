package profile

import (
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/plan"
)

func TestParseBoundaryProfile(t *testing.T) {
	p, err := Parse("b.yaml", []byte(`policy: {limit: 100, window: 1s}
audit: {identities: 500}
scenarios:
  - name: edge
    shape: boundary
    identities: 50
  - name: wide
    shape: boundary
    identities: 3
    burst: 250
    offset: 50ms
    spread: 20ms
    stagger: 0s
`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Audit.Identities != 500 {
		t.Errorf("audit identities %d, want 500", p.Audit.Identities)
	}
	edge, wide := p.Scenarios[0], p.Scenarios[1]
	// The burst defaults to one more than a window admits, so the two
	// offer more than the bound over the span they cover.
	if want := (plan.Boundary{Burst: 101, Offset: 10 * time.Millisecond, Stagger: 40 * time.Millisecond}); edge.Boundary != want {
		t.Errorf("defaults: %+v, want %+v", edge.Boundary, want)
	}
	// 49 x 40ms between the first and last prime, then a window, the
	// expiry millisecond and the offset.
	if edge.Duration != 49*40*time.Millisecond+time.Second+time.Millisecond+10*time.Millisecond || edge.Requests != 50*203 {
		t.Errorf("edge: duration %s, requests %d", edge.Duration, edge.Requests)
	}
	if got := edge.Rate.TargetPerSecond(p.Policy, edge.Identities); got < 3000 || got > 3500 {
		t.Errorf("edge: average rate %v/s", got)
	}
	if want := (plan.Boundary{Burst: 250, Offset: 50 * time.Millisecond, Spread: 20 * time.Millisecond}); wide.Boundary != want {
		t.Errorf("given: %+v, want %+v", wide.Boundary, want)
	}
	if d, err := Parse("d.yaml", []byte("policy: {limit: 5, window: 1s}\nscenarios: [{shape: boundary}]\n")); err != nil || d.Audit.Identities != DefaultAuditIdentities || d.Scenarios[0].Identities != DefaultIdentities {
		t.Errorf("defaults: %+v, %v", d, err)
	}
}

// TestParseBoundaryProfileErrors: bad boundary and audit input names file,
// line and field.
func TestParseBoundaryProfileErrors(t *testing.T) {
	const head = "policy:\n  limit: 100\n  window: 1s\n"
	for _, tc := range []struct {
		why  string
		yaml string
		want string
	}{
		{"a steady field on a boundary scenario",
			head + "scenarios:\n  - shape: boundary\n    rate: 2x\n",
			`x.yaml:6: scenarios[0].rate: unknown field`},
		{"a burst of nothing",
			head + "scenarios:\n  - shape: boundary\n    burst: 0\n",
			`x.yaml:6: scenarios[0].burst: must be at least 1, got 0`},
		{"an offset below a millisecond",
			head + "scenarios:\n  - shape: boundary\n    offset: 500us\n",
			`x.yaml:6: scenarios[0].offset: must be at least 1ms, got 500us`},
		{"a negative spread",
			head + "scenarios:\n  - shape: boundary\n    spread: -1ms\n",
			`x.yaml:6: scenarios[0].spread: must be at least 0s, got -1ms`},
		{"a stagger that is not a duration",
			head + "scenarios:\n  - shape: boundary\n    stagger: soon\n",
			`x.yaml:6: scenarios[0].stagger: "soon" is not a duration`},
		{"bursts that do not fit in the window",
			head + "scenarios:\n  - shape: boundary\n    identities: 2\n    offset: 600ms\n    spread: 400ms\n",
			`x.yaml:7: scenarios[0].offset: offset 600ms + spread 400ms must be shorter than the window 1s`},
		{"a scenario too large to run",
			head + "scenarios:\n  - shape: boundary\n    identities: 100000\n    burst: 1000\n",
			`x.yaml:7: scenarios[0].burst: 100000 identities x (1 + 2 x 1000) requests is more than 10000000`},
		{"the default burst (one more than the limit) makes it too large, blamed on the burst",
			"policy: {limit: 1000000, window: 1s}\nscenarios:\n  - shape: boundary\n    identities: 10\n",
			`x.yaml:3: scenarios[0].burst: 10 identities x (1 + 2 x 1000001) requests`},
		{"unknown audit field",
			head + "audit:\n  identity: 5\nscenarios: [{shape: boundary}]\n",
			`x.yaml:5: audit.identity: unknown field (known: identities)`},
		{"negative audit identities",
			head + "audit:\n  identities: -1\nscenarios: [{shape: boundary}]\n",
			`x.yaml:5: audit.identities: must be at least 0, got -1`},
		{"audit given as a number",
			head + "audit: 100\nscenarios: [{shape: boundary}]\n",
			`x.yaml:4: audit: want a mapping of fields, got "100"`},
	} {
		_, err := Parse("x.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got: %v\nwant: %s", tc.why, err, tc.want)
		}
	}
}
