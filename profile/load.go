package profile

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/input"
	"github.com/rlbench/rlbench/internal/suggest"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

var profileFields = []string{"name", "policy", "algorithms", "concurrency", "warmup", "seed", "timeout", "redis", "audit", "report", "scenarios", "thresholds",
	"expect_broken", "error_budget", "pipeline", "client", "fleet", "ideal"}
var policyFields = []string{"limit", "window", "burst", "bucket"}
var redisFields = []string{"addr", "username", "password_env", "db", "tls", "tls_ca_file", "tls_insecure", "cluster", "sentinel"}

var (
	namePattern    = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
	envNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// MaxProfileBytes is the largest profile file rlbench reads.
const MaxProfileBytes = 1 << 20

// Options change how a profile is read.
type Options struct {
	// Algorithms, when set, replaces the profile's algorithms list: built-in
	// names and names of limiters the profile declares. The profile is then
	// checked as if it listed them (a threshold must still select a run).
	Algorithms []string
	// Target is the Redis the run will use when the command line names one
	// in place of the profile's redis section: what the faults and the
	// client section may do is checked against it.
	Target Target
	// Segmented says the run is one segment of a load that several
	// processes share (--segment), where faults cannot be scheduled.
	Segmented bool
}

// Load reads and validates the profile at path. Every problem, including
// a file that cannot be read, is reported as Errors.
func Load(path string) (*Profile, error) { return LoadContext(context.Background(), path) }

// LoadContext is Load, stopped by ctx while it waits on a pipe (then its
// error is ctx's). A file larger than MaxProfileBytes, a directory or a
// device is refused without reading it whole.
func LoadContext(ctx context.Context, path string) (*Profile, error) {
	return LoadWith(ctx, path, Options{})
}

// LoadWith is LoadContext with options.
func LoadWith(ctx context.Context, path string, o Options) (*Profile, error) {
	data, err := input.Read(ctx, path, "a profile", MaxProfileBytes)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, Errors{{File: path, Msg: err.Error()}}
	}
	return parse(ctx, path, data, o)
}

// Parse validates a profile held in data; file names it in errors.
// All problems are reported at once, as Errors.
func Parse(file string, data []byte) (*Profile, error) { return ParseWith(file, data, Options{}) }

// ParseWith is Parse with options.
func ParseWith(file string, data []byte, o Options) (*Profile, error) {
	return parse(context.Background(), file, data, o)
}

// parse is ParseWith, stopped by ctx while it reads a replay's trace.
func parse(ctx context.Context, file string, data []byte, o Options) (*Profile, error) {
	d := &decoder{file: file, ctx: ctx}
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
	if err := result.CheckName(p.Name); err != nil {
		top.errorf("name", "%v", err)
	}
	var policyOK bool
	p.Policy, policyOK = parsePolicy(d, top)
	algErrs := len(d.errs)
	p.Algorithms, p.Declared = parseAlgorithms(top)
	own := p.Algorithms
	if o.Algorithms != nil {
		p.Algorithms, p.Declared = chooseAlgorithms(d, o.Algorithms, p.Declared)
	}
	algorithmsOK := len(d.errs) == algErrs
	top.intField("concurrency", &p.Concurrency, 1)
	p.Pipeline = parsePipeline(top)
	top.duration("warmup", &p.Warmup, 0)
	top.integer("seed", &p.Seed, 0)
	top.duration("timeout", &p.Timeout, time.Millisecond)
	if top.has("redis") {
		p.Redis = parseRedis(d, top)
	}
	p.Audit = parseAudit(d, top)
	p.Ideal = parseIdeal(top)
	p.Report = parseReport(d, top)
	var pol *algorithms.Policy
	if policyOK {
		pol = &p.Policy
		checkDeclarations(d, top, p.Declared, p.Policy)
	}
	if top.has("client") {
		p.Client = parseClient(d, top, p.Timeout)
	}
	if top.has("fleet") {
		p.Fleet, p.FleetLine = parseFleet(d, top), top.lineOf("fleet")
	}
	before := len(d.errs)
	p.Scenarios = splitPolicies(d, parseScenarios(d, top, pol, p.Fleet), p.Client)
	checkRunTarget(d, p, o)
	checkCapacitySegments(d, top, p, o)
	if len(d.errs) == before && policyOK && algorithmsOK {
		checkScenarioPolicies(d, top, p)
	}
	// Whether a threshold selects any run is checked against the plan, so
	// only when the scenarios and algorithms hold.
	var pl *plan.Plan
	if len(d.errs) == before && policyOK && algorithmsOK {
		pl = p.Plan(1)
	}
	p.Thresholds = parseThresholds(top, pl, p)
	parseVerdictRules(top, p, own)
	checkResources(d, top, p)
	checkPipelines(d, top, p)
	if policyOK && algorithmsOK {
		checkCosts(d, top, p)
		checkTraceCosts(d, top, p)
	}
	checkUnpipelinedCallers(d, top, p)
	if len(d.errs) == before {
		checkFleet(d, top, p)
	}
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

// parsePolicy reads the policy; ok says it is whole and valid, so that
// what depends on it can be checked.
func parsePolicy(d *decoder, top *yamlMap) (p algorithms.Policy, ok bool) {
	if !top.has("policy") {
		top.errorf("policy", "missing: give limit and window, e.g. {limit: 100, window: 1m}")
		return p, false
	}
	f := d.mapping(top.values["policy"], "policy", policyFields...)
	before := len(d.errs)
	if !f.has("limit") {
		f.errorf("limit", "missing")
	}
	if !f.has("window") {
		f.errorf("window", "missing")
	}
	readPolicy(f, &p)
	if len(d.errs) > before {
		return p, false
	}
	checkPolicy(f, top, "policy", p)
	return p, len(d.errs) == before
}

// readPolicy reads into p whichever of limit, window, burst and bucket f
// gives.
func readPolicy(f *yamlMap, p *algorithms.Policy) {
	f.integer("limit", &p.Limit, 1)
	f.duration("window", &p.Window, time.Millisecond)
	f.integer("burst", &p.Burst, 1)
	f.duration("bucket", &p.Bucket, time.Millisecond)
}

// checkPolicy reports why p, read from the mapping f given at the field
// key of parent, cannot be enforced exactly.
func checkPolicy(f, parent *yamlMap, key string, p algorithms.Policy) {
	switch {
	case p.Window%time.Millisecond != 0:
		f.errorf("window", "%s is not a whole number of milliseconds", p.Window)
	case p.Bucket%time.Millisecond != 0:
		f.errorf("bucket", "%s is not a whole number of milliseconds", p.Bucket)
	case p.Bucket > 0 && p.Window%p.Bucket != 0:
		f.errorf("bucket", "%s does not divide the window %s; give a width like %s", p.Bucket, p.Window, algorithms.DefaultBucket(p.Window))
	default:
		if err := p.Validate(); err != nil {
			parent.errorf(key, "%v", err)
		}
	}
}

// checkScenarioPolicies checks every policy the profile runs under against
// what each built-in limiter it lists can enforce, and each declared
// limiter against the scenarios that give a policy of their own.
func checkScenarioPolicies(d *decoder, top *yamlMap, p *Profile) {
	for i, pol := range p.Policies() {
		line, field := top.lineOf("policy"), "policy"
		if i > 0 {
			line, field = scenarioPolicyAt(top, p, pol)
		}
		for _, name := range p.Algorithms {
			if p.Declaration(name) != nil {
				continue
			}
			if err := algorithms.CheckPolicy(name, pol); err != nil {
				d.errorf(line, field, "%s cannot run under %s: %v", name, pol, err)
			}
		}
		if i > 0 {
			checkDeclarations(d, top, p.Declared, pol)
		}
	}
}

// scenarioPolicyAt is where the first scenario that runs under policy pol
// states it: the line of its policy field, and the field's path.
func scenarioPolicyAt(top *yamlMap, p *Profile, pol algorithms.Policy) (int, string) {
	for _, s := range p.Scenarios {
		if p.PolicyFor(s) != pol {
			continue
		}
		for i, n := range top.sequence("scenarios") {
			if n.Line != s.Line {
				continue
			}
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value == "policy" {
					return n.Content[j].Line, fmt.Sprintf("scenarios[%d].policy", i)
				}
			}
		}
	}
	return top.lineOf("scenarios"), "scenarios"
}

// parseAlgorithms reads the algorithms list: built-in names, and mappings
// that declare a user's limiter.
func parseAlgorithms(top *yamlMap) ([]string, []*algorithms.Declaration) {
	if !top.has("algorithms") {
		return algorithms.Default(), nil
	}
	var names []string
	var declared []*algorithms.Declaration
	items := top.sequence("algorithms")
	for i, n := range items {
		field := fmt.Sprintf("algorithms[%d]", i)
		switch {
		case n.Kind == yaml.MappingNode:
			decl := parseDeclaration(top.d, n, field)
			if decl != nil && slices.Contains(names, decl.Name) {
				top.d.errorf(n.Line, field+".name", "%q is listed twice", decl.Name)
			} else if decl != nil {
				names = append(names, decl.Name)
				declared = append(declared, decl)
			}
		case n.Kind != yaml.ScalarNode:
			top.d.errorf(n.Line, field, "want an algorithm name, or a mapping that declares your own limiter, got %s", describe(n))
		case strings.HasSuffix(n.Value, ".lua"):
			top.d.errorf(n.Line, field, "%q is a file: declare your own limiter as a mapping (name, script, keys, args, reply, semantics); `rlbench init %s` writes one", n.Value, n.Value)
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
	return names, declared
}

// chooseAlgorithms replaces the profile's algorithms list with names, each
// a built-in or a limiter the profile declares; the declarations not
// named are dropped.
func chooseAlgorithms(d *decoder, names []string, declared []*algorithms.Declaration) ([]string, []*algorithms.Declaration) {
	const field = "algorithms (replaced on the command line)"
	var kept []*algorithms.Declaration
	var out []string
	for _, n := range names {
		i := slices.IndexFunc(declared, func(decl *algorithms.Declaration) bool { return decl.Name == n })
		switch {
		case slices.Contains(out, n):
			d.errorf(0, field, "%q is listed twice", n)
		case i >= 0:
			kept = append(kept, declared[i])
			out = append(out, n)
		case algorithms.Known(n):
			out = append(out, n)
		default:
			hint := ""
			if c := suggest.Closest(n, algorithms.Names(), 3); c != "" {
				hint = fmt.Sprintf("did you mean %q? ", c)
			}
			d.errorf(0, field, "unknown algorithm %q (%sknown: %s, or a limiter the profile declares)", n, hint, strings.Join(algorithms.Names(), ", "))
		}
	}
	if len(names) == 0 {
		d.errorf(0, field, "the list is empty")
	}
	return out, kept
}

func parseRedis(d *decoder, top *yamlMap) *RedisSpec {
	f := d.mapping(top.values["redis"], "redis", redisFields...)
	r := &RedisSpec{}
	f.str("addr", &r.Addr)
	f.str("username", &r.Username)
	f.str("password_env", &r.PasswordEnv)
	f.intField("db", &r.DB, 0)
	f.boolean("tls", &r.TLS)
	f.str("tls_ca_file", &r.TLSCAFile)
	f.boolean("tls_insecure", &r.TLSInsecure)
	if r.PasswordEnv != "" && !envNamePattern.MatchString(r.PasswordEnv) {
		f.errorf("password_env", "%q is not an environment variable name (the password itself never goes in a profile)", r.PasswordEnv)
	}
	if f.has("cluster") {
		r.Cluster = parseCluster(d, f, r)
	}
	if f.has("sentinel") {
		r.Sentinel = parseSentinel(d, f)
	}
	checkRedis(f, r)
	return r
}
