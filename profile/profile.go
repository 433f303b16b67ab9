// Package profile is rlbench's profile language: the types a profile
// describes (a policy, the limiters, the scenarios, the Redis to use, the
// thresholds), their strict decoding from YAML with errors that name the
// file, the line and the field, and the plan of runs a profile stands for.
// It is the only package that reads YAML.
package profile

import (
	"slices"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// Defaults for fields a profile leaves out.
const (
	DefaultConcurrency = 64
	DefaultIdentities  = 10
	DefaultSeed        = 1
	DefaultTimeout     = 2 * time.Second
	// DefaultAuditIdentities is how many identities a run audits in full.
	DefaultAuditIdentities = 10_000
)

// Profile is a parsed, validated profile file.
type Profile struct {
	// Path is the file the profile came from.
	Path string
	// Name names the profile in results; defaults to the file's base name.
	Name string
	// Hash is the SHA-256 of the file, so a result says exactly which
	// profile produced it.
	Hash string
	// Policy is the one policy every algorithm interprets, in every
	// scenario that does not give its own (PolicyFor).
	Policy algorithms.Policy
	// Algorithms are the limiters to run, in order: built-in names and the
	// names of the limiters in Declared.
	Algorithms []string
	// Declared are the user's own limiters the algorithms list declares.
	Declared []*algorithms.Declaration
	// Concurrency is how many goroutines issue requests (and the size of the
	// connection pool), unless a scenario says otherwise.
	Concurrency int
	// Pipeline is how many requests one connection sends at once, unless
	// a scenario says otherwise; not given, each request goes alone.
	Pipeline plan.Pipeline
	// Warmup is run before each measured run, on keys of its own, and not
	// measured.
	Warmup time.Duration
	// Seed makes identity choice and Poisson arrivals repeatable.
	Seed int64
	// Timeout bounds every Redis call (the limiter's calls by Client.Timeout
	// when the profile has a client section).
	Timeout time.Duration
	// Client is how the limiter's caller behaves (timeouts, retries, its
	// error policy); nil means each call is made once and an error is
	// only counted.
	Client *plan.Client
	// Redis is the server to use; nil means a private one.
	Redis *RedisSpec
	// Audit bounds the per-identity audit.
	Audit AuditSpec
	// Ideal is the ideal limiter every run's decisions are set beside, on
	// the same arrivals; empty means each run's policy decides
	// (algorithms.DefaultIdeal: the token bucket when it gives a burst,
	// the exact sliding window otherwise).
	Ideal algorithms.Ideal
	// Report says how the report presents the result.
	Report ReportSpec
	// Scenarios are the traffic shapes, in order.
	Scenarios []Scenario
	// Thresholds are the pass/fail rules, each checked against the result
	// contract's fields and against this profile's plan: every one reads a
	// field that exists and selects at least one run.
	Thresholds []*result.Threshold
	// ExpectBroken names limiters the profile runs as negative controls:
	// their broken promises are expected, and the verdict fails unless the
	// audit catches each of them.
	ExpectBroken []string
	// brokenLeftOut are the negative controls of expect_broken that
	// --algorithms leaves out of this invocation (see Warnings), and
	// brokenLine the line of expect_broken.
	brokenLeftOut []string
	brokenLine    int
	// ErrorBudget is the fraction of a run's decisions that calls without
	// a decision may reach before the verdict fails (result.DefaultErrorBudget
	// unless the profile says otherwise).
	ErrorBudget float64
	// Fleet is the application instances the load comes from, each with a
	// clock of its own (a scenario's clock_skew spreads them anew); nil
	// when the profile declares none. FleetLine is where it starts.
	Fleet     *plan.Fleet
	FleetLine int
}

// RedisSpec is the profile's redis section. The password never appears in a
// profile: PasswordEnv names the environment variable that holds it.
type RedisSpec struct {
	Addr        string
	Username    string
	PasswordEnv string
	DB          int
	TLS         bool
	TLSCAFile   string
	TLSInsecure bool
	// Cluster, when set, makes the Redis a Redis Cluster: a private one
	// of its shape, or the one its Addrs name.
	Cluster *ClusterSpec
	// Sentinel, when set, names a primary that Redis Sentinel manages, in
	// the place of Addr.
	Sentinel *SentinelSpec
}

// ClusterSpec is the redis section's cluster: either the shape of a
// private cluster rlbench starts (Masters, Replicas per master), or the
// nodes of a cluster someone else runs (Addrs).
type ClusterSpec struct {
	Masters  int
	Replicas int
	Addrs    []string
}

// AuditSpec is the profile's audit section.
type AuditSpec struct {
	// Identities is the most identities of one run whose every decision is
	// kept and replayed; beyond it a sample of that size is drawn with the
	// profile's seed. Zero turns the per-identity audit off.
	Identities int
}

// ReportSpec is the profile's report section.
type ReportSpec struct {
	// Identities is the population the report projects each limiter's
	// memory onto ("what would a million users cost?"); zero means the most
	// identities a run held.
	Identities int64
}

// Policies lists the profile's policy, then each different one a scenario
// runs under, in order.
func (p *Profile) Policies() []algorithms.Policy {
	out := []algorithms.Policy{p.Policy}
	for _, s := range p.Scenarios {
		if pol := p.PolicyFor(s); !slices.Contains(out, pol) {
			out = append(out, pol)
		}
	}
	return out
}

// IdealFor is the ideal limiter the runs under policy pol are set beside:
// the profile's, or the one pol describes.
func (p *Profile) IdealFor(pol algorithms.Policy) algorithms.Ideal {
	if p.Ideal != "" {
		return p.Ideal
	}
	return algorithms.DefaultIdeal(pol)
}

// ScenarioNames lists the scenarios' names, in order.
func (p *Profile) ScenarioNames() []string {
	names := make([]string, len(p.Scenarios))
	for i, s := range p.Scenarios {
		names[i] = s.Name
	}
	return names
}
