package workload

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/suggest"
)

// Defaults for fields a profile leaves out.
const (
	DefaultConcurrency = 64
	DefaultIdentities  = 10
	DefaultSeed        = 1
	DefaultTimeout     = 2 * time.Second
)

var profileFields = []string{"name", "policy", "algorithms", "concurrency", "warmup", "seed", "timeout", "redis", "audit", "scenarios", "thresholds"}
var policyFields = []string{"limit", "window", "burst"}
var redisFields = []string{"addr", "username", "password_env", "db", "tls", "tls_ca_file", "tls_insecure"}

// scenarioFields lists, per shape, the fields a scenario of that shape takes.
var scenarioFields = map[Shape][]string{
	ShapeSteady:      {"name", "shape", "rate", "arrival", "identities", "duration", "requests", "concurrency"},
	ShapeBoundary:    boundaryFields,
	ShapeCardinality: cardinalityFields,
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// LoadProfile reads and validates the profile at path.
func LoadProfile(path string) (*Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseProfile(path, data)
}

// ParseProfile validates a profile held in data; file names it in errors.
// All problems are reported at once, as ProfileErrors.
func ParseProfile(file string, data []byte) (*Profile, error) {
	d := &decoder{file: file}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			d.errorf(0, "", "the profile is empty")
			return nil, d.errs
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = yamlLine.ReplaceAllString(msg, "")
		d.errorf(yamlErrorLine(err), "", "invalid YAML: %s", strings.TrimLeft(msg, ": "))
		return nil, d.errs
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		d.errorf(extra.Line, "", "the file holds more than one YAML document")
	}
	sum := sha256.Sum256(data)
	p := &Profile{
		Path:        file,
		Name:        strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)),
		Hash:        hex.EncodeToString(sum[:]),
		Concurrency: DefaultConcurrency,
		Seed:        DefaultSeed,
		Timeout:     DefaultTimeout,
	}
	root := doc.Content[0]
	top := d.mapping(root, "", profileFields...)
	top.str("name", &p.Name)
	if !namePattern.MatchString(p.Name) {
		top.errorf("name", "%q must be 1-64 letters, digits, '.', '_' or '-'", p.Name)
	}
	p.Policy = parsePolicy(d, top)
	p.Algorithms = parseAlgorithms(top)
	top.intField("concurrency", &p.Concurrency, 1)
	top.duration("warmup", &p.Warmup, 0)
	top.integer("seed", &p.Seed, 0)
	top.duration("timeout", &p.Timeout, time.Millisecond)
	if top.has("redis") {
		p.Redis = parseRedis(d, top)
	}
	p.Audit = parseAudit(d, top)
	p.Scenarios = parseScenarios(d, top)
	p.Thresholds = parseThresholds(top)
	checkBoundaries(p)
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	return p, nil
}

var yamlLine = regexp.MustCompile(`line (\d+):?`)

// yamlErrorLine digs the line number out of a YAML syntax error.
func yamlErrorLine(err error) int {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

func parsePolicy(d *decoder, top *fields) algorithms.Policy {
	var p algorithms.Policy
	if !top.has("policy") {
		top.errorf("policy", "missing: give limit and window, e.g. {limit: 100, window: 1m}")
		return p
	}
	f := d.mapping(top.values["policy"], "policy", policyFields...)
	before := len(d.errs)
	if !f.has("limit") {
		f.errorf("limit", "missing")
	}
	if !f.has("window") {
		f.errorf("window", "missing")
	}
	f.integer("limit", &p.Limit, 1)
	f.duration("window", &p.Window, time.Millisecond)
	f.integer("burst", &p.Burst, 1)
	if len(d.errs) > before {
		return p
	}
	if p.Window%time.Millisecond != 0 {
		f.errorf("window", "%s is not a whole number of milliseconds", p.Window)
	} else if err := p.Validate(); err != nil {
		d.errorf(top.lineOf("policy"), "policy", "%v", err)
	}
	return p
}

func parseAlgorithms(top *fields) []string {
	if !top.has("algorithms") {
		return algorithms.Default()
	}
	var names []string
	items := top.sequence("algorithms")
	for i, n := range items {
		field := fmt.Sprintf("algorithms[%d]", i)
		switch {
		case n.Kind != yaml.ScalarNode:
			top.d.errorf(n.Line, field, "want an algorithm name, got %s", describe(n))
		case !algorithms.Known(n.Value):
			hint := ""
			if c := suggest.Closest(n.Value, algorithms.Names(), 3); c != "" {
				hint = fmt.Sprintf("did you mean %q? ", c)
			}
			top.d.errorf(n.Line, field, "unknown algorithm %q (%sknown: %s)", n.Value, hint, strings.Join(algorithms.Names(), ", "))
		case slices.Contains(names, n.Value):
			top.d.errorf(n.Line, field, "%q is listed twice", n.Value)
		default:
			names = append(names, n.Value)
		}
	}
	if top.has("algorithms") && len(items) == 0 {
		top.errorf("algorithms", "the list is empty; leave the field out to run all of %s", strings.Join(algorithms.Default(), ", "))
	}
	return names
}

func parseThresholds(top *fields) []ThresholdSpec {
	var out []ThresholdSpec
	for i, n := range top.sequence("thresholds") {
		if n.Kind != yaml.ScalarNode || n.Value == "" {
			top.d.errorf(n.Line, fmt.Sprintf("thresholds[%d]", i), `want a rule like "*/* audit.overshoot == 0", got %s`, describe(n))
			continue
		}
		out = append(out, ThresholdSpec{Expr: n.Value, Line: n.Line, Index: i})
	}
	return out
}

func parseRedis(d *decoder, top *fields) *RedisSpec {
	f := d.mapping(top.values["redis"], "redis", redisFields...)
	r := &RedisSpec{}
	f.str("addr", &r.Addr)
	f.str("username", &r.Username)
	f.str("password_env", &r.PasswordEnv)
	f.intField("db", &r.DB, 0)
	f.boolean("tls", &r.TLS)
	f.str("tls_ca_file", &r.TLSCAFile)
	f.boolean("tls_insecure", &r.TLSInsecure)
	if r.PasswordEnv != "" && !regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`).MatchString(r.PasswordEnv) {
		f.errorf("password_env", "%q is not an environment variable name (the password itself never goes in a profile)", r.PasswordEnv)
	}
	return r
}

func parseScenarios(d *decoder, top *fields) []Scenario {
	items := top.sequence("scenarios")
	if len(items) == 0 {
		top.errorf("scenarios", "missing: give at least one scenario")
		return nil
	}
	var out []Scenario
	seen := map[string]int{}
	for i, n := range items {
		path := fmt.Sprintf("scenarios[%d]", i)
		s, ok := parseScenario(d, n, path)
		if !ok {
			continue
		}
		for _, s := range s.splitSizes() {
			if first, dup := seen[s.Name]; dup {
				d.errorf(s.Line, path+".name", "%q is already the name of scenarios[%d]; give each scenario its own name", s.Name, first)
				continue
			}
			seen[s.Name] = i
			out = append(out, s)
		}
	}
	return out
}

func parseScenario(d *decoder, n *yaml.Node, path string) (Scenario, bool) {
	s := Scenario{Line: n.Line, Arrival: Uniform, Identities: DefaultIdentities}
	if n.Kind != yaml.MappingNode {
		d.errorf(n.Line, path, "want a mapping of fields, got %s", describe(n))
		return s, false
	}
	// Read the shape first: it decides which other fields are allowed.
	var shape string
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "shape" {
			shape = n.Content[i+1].Value
		}
	}
	known, ok := scenarioFields[Shape(shape)]
	if !ok {
		line := n.Line
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "shape" {
				line = n.Content[i].Line
			}
		}
		if shape == "" {
			d.errorf(line, path+".shape", "missing (known: %s)", strings.Join(shapeNames(), ", "))
		} else {
			d.errorf(line, path+".shape", "unknown shape %q (known: %s)", shape, strings.Join(shapeNames(), ", "))
		}
		return s, false
	}
	s.Shape = Shape(shape)
	f := d.mapping(n, path, known...)
	before := len(d.errs)
	s.Name = shape
	f.str("name", &s.Name)
	if !namePattern.MatchString(s.Name) {
		f.errorf("name", "%q must be 1-64 letters, digits, '.', '_' or '-'", s.Name)
	}
	f.intField("concurrency", &s.Concurrency, 1)
	switch s.Shape {
	case ShapeSteady:
		parseSteady(f, &s)
	case ShapeBoundary:
		parseBoundary(f, &s)
	case ShapeCardinality:
		parseCardinality(f, &s)
	}
	return s, len(d.errs) == before
}

func shapeNames() []string {
	names := make([]string, 0, len(scenarioFields))
	for _, s := range []Shape{ShapeSteady, ShapeBoundary, ShapeCardinality} {
		if _, ok := scenarioFields[s]; ok {
			names = append(names, string(s))
		}
	}
	return names
}

func parseSteady(f *fields, s *Scenario) {
	parseLoad(f, s)
	f.intField("identities", &s.Identities, 1)
	parseBounds(f, s)
}

// parseLoad reads the offered load: rate, and arrival for an open loop.
func parseLoad(f *fields, s *Scenario) {
	if n := f.scalar("rate"); n != nil {
		r, err := ParseRate(n.Value)
		if err != nil {
			f.errorf("rate", "%v", err)
		}
		s.Rate = r
	} else if !f.has("rate") {
		f.errorf("rate", "missing: give a rate like 500/s, 2x (twice what the policy admits) or max (closed loop)")
	}
	if n := f.scalar("arrival"); n != nil {
		switch Arrival(n.Value) {
		case Uniform, Poisson:
			s.Arrival = Arrival(n.Value)
		default:
			f.errorf("arrival", "%q is not uniform or poisson", n.Value)
		}
	}
	if s.Rate.Max && f.has("arrival") {
		f.errorf("arrival", "has no meaning with rate: max (closed loop)")
	}
}

// parseBounds reads how long a scenario runs: a duration, a number of
// requests, or both.
func parseBounds(f *fields, s *Scenario) {
	f.duration("duration", &s.Duration, time.Millisecond)
	f.integer("requests", &s.Requests, 1)
	if !f.has("duration") && !f.has("requests") {
		f.errorf("duration", "missing: give a duration like 10s, or a number of requests")
	}
	if s.Duration == 0 && s.Requests > 0 {
		// A count alone still needs an upper bound in time.
		s.Duration = time.Hour
	}
}
