package profile

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/plan"
)

const cardinalityHead = "policy:\n  limit: 10\n  window: 1h\nscenarios:\n"

// TestParseCardinalitySizes: a list of sizes becomes one scenario per size,
// each named after its size so its keys and its results are its own, and a
// sequential pass sends identities + repeats requests.
func TestParseCardinalitySizes(t *testing.T) {
	p, err := Parse("c.yaml", []byte(cardinalityHead+`  - name: once
    shape: cardinality
    distribution: sequential
    identities: [10000, 100_000, 1000000, 1500]
    repeats: 20000
    zipf_exponent: 1.5
    rate: max
  - name: hot
    shape: cardinality
    distribution: zipf
    identities: 5000
    rate: 2000/s
    arrival: poisson
    requests: 300
`))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range p.Scenarios {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "once-10k,once-100k,once-1M,once-1500,hot" {
		t.Fatalf("scenarios %s", got)
	}
	for i, n := range []int{10000, 100000, 1000000, 1500} {
		s := p.Scenarios[i]
		if s.Identities != n || s.Group != "once" || s.Requests != int64(n)+20000 || s.Duration != time.Hour ||
			s.Distribution != plan.SequentialIdentities || s.Repeats != 20000 || s.ZipfExponent != 1.5 || !s.Rate.Max {
			t.Errorf("size %d: %+v", n, s)
		}
	}
	hot := p.Scenarios[4]
	if hot.Group != "" || hot.Identities != 5000 || hot.Distribution != plan.ZipfIdentities || hot.ZipfExponent != plan.DefaultZipfExponent ||
		hot.Requests != 300 || hot.Arrival != plan.Poisson || hot.Rate.PerSecond != 2000 {
		t.Errorf("hot: %+v", hot)
	}
	if len(p.Plan(1).Runs) != 5*4 {
		t.Errorf("plan has %d runs, want 5 sizes x 4 algorithms", len(p.Plan(1).Runs))
	}
}

// TestParseCardinalityErrors: bad cardinality input names file, line and
// field.
func TestParseCardinalityErrors(t *testing.T) {
	const scen = "  - name: c\n    shape: cardinality\n    rate: max\n"
	for _, tc := range []struct {
		why  string
		yaml string
		want string
	}{
		{"a size of zero in the list",
			scen + "    distribution: sequential\n    identities: [1000, 0, 10000]\n",
			`x.yaml:9: scenarios[0].identities[1]: must be at least 1, got 0`},
		{"a size listed twice would give two runs one name",
			scen + "    distribution: sequential\n    identities: [1000, 1000]\n",
			`x.yaml:9: scenarios[0].identities[1]: 1000 is listed twice`},
		{"an empty list of sizes",
			scen + "    distribution: sequential\n    identities: []\n",
			`x.yaml:9: scenarios[0].identities: the list is empty`},
		{"a size that is not a number",
			scen + "    distribution: sequential\n    identities: [1000, lots]\n",
			`x.yaml:9: scenarios[0].identities[1]: "lots" is not a whole number`},
		{"identities as a mapping",
			scen + "    distribution: sequential\n    identities: {n: 3}\n",
			`x.yaml:9: scenarios[0].identities: want a number or a list of numbers, got a mapping`},
		{"identities missing: the shape is about them",
			scen + "    distribution: sequential\n",
			`x.yaml:5: scenarios[0].identities: missing`},
		{"a Zipf exponent of 1 (rand.NewZipf needs s > 1)",
			scen + "    distribution: zipf\n    zipf_exponent: 1\n    identities: 100\n    requests: 10\n",
			`x.yaml:9: scenarios[0].zipf_exponent: must be more than 1 (the exponent s of a Zipf distribution), got 1`},
		{"a negative Zipf exponent",
			scen + "    distribution: zipf\n    zipf_exponent: -2.5\n    identities: 100\n    requests: 10\n",
			`x.yaml:9: scenarios[0].zipf_exponent: must be more than 1`},
		{"a Zipf exponent that is not a number",
			scen + "    distribution: zipf\n    zipf_exponent: steep\n    identities: 100\n    requests: 10\n",
			`x.yaml:9: scenarios[0].zipf_exponent: "steep" is not a number`},
		{"a Zipf exponent on a uniform distribution would be silently ignored",
			scen + "    zipf_exponent: 1.3\n    identities: 100\n    requests: 10\n",
			`x.yaml:8: scenarios[0].zipf_exponent: has no meaning with distribution uniform`},
		{"unknown distribution",
			scen + "    distribution: pareto\n    identities: 100\n    requests: 10\n",
			`x.yaml:8: scenarios[0].distribution: "pareto" is not uniform, zipf or sequential`},
		{"repeats without a sequential pass",
			scen + "    distribution: zipf\n    repeats: 10\n    identities: 100\n    requests: 10\n",
			`x.yaml:9: scenarios[0].repeats: only follows a sequential pass`},
		{"requests on a sequential pass, whose count is fixed",
			scen + "    distribution: sequential\n    identities: 100\n    requests: 10\n",
			`x.yaml:10: scenarios[0].requests: has no meaning with distribution sequential`},
		{"uniform with no bound",
			scen + "    identities: 100\n",
			`x.yaml:5: scenarios[0].duration: missing`},
		{"a misspelt field gets a hint",
			scen + "    identites: 100\n",
			`x.yaml:8: scenarios[0].identites: unknown field (did you mean "identities"?`},
		{"a size's name clashes with another scenario",
			scen + "    distribution: sequential\n    identities: [10000]\n  - name: c-10k\n    shape: steady\n    rate: max\n    duration: 1s\n",
			`x.yaml:10: scenarios[1].name: "c-10k" is already the name of scenarios[0]`},
		{"the steady shape still takes one number only",
			"  - shape: steady\n    rate: max\n    duration: 1s\n    identities: [1, 2]\n",
			`x.yaml:8: scenarios[0].identities: want a single value, got a list`},
	} {
		wantProfileError(t, tc.why, cardinalityHead+tc.yaml, tc.want)
	}
}

// wantProfileError checks that the profile in yaml is refused with
// Errors that say want.
func wantProfileError(t *testing.T, why, yaml, want string) {
	t.Helper()
	_, err := Parse("x.yaml", []byte(yaml))
	if err == nil {
		t.Errorf("%s: no error", why)
		return
	}
	var perrs Errors
	if !errors.As(err, &perrs) {
		t.Errorf("%s: error is %T, want Errors", why, err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%s:\n got: %v\nwant: %s", why, err, want)
	}
}

func TestSizeLabel(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{1, "1"},             // small numbers stay as they are
		{1000, "1k"},         // whole thousands
		{1500, "1500"},       // not a whole thousand: exact, not 1.5k
		{10000, "10k"},       // the profile's smallest size
		{1000000, "1M"},      // whole millions
		{2500000, "2500k"},   // whole thousands, not whole millions
		{1000001, "1000001"}, // neither
	} {
		if got := sizeLabel(tc.n); got != tc.want {
			t.Errorf("sizeLabel(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
