// Package result is the rlbench.result/v1 contract: the types of
// result.json, reading and writing them with validation, reading a numeric
// field by its JSON path, merging the repetitions of a run and the
// segments of a load by one table of how each field combines, threshold
// rules over those fields, and the HDR histogram codec. Tools and CI read
// these fields by name, so their JSON names do not change within a schema
// version. It imports nothing else of rlbench: the engine produces these
// types and the reports read them.
package result

import "time"

// Schema identifies version 1 of the result contract.
const Schema = "rlbench.result/v1"

// Verdicts.
const (
	Pass = "pass"
	Fail = "fail"
	// Inconclusive is a result that could not judge what it set out to:
	// a run did not do what its scenario planned, or had no power to
	// catch what it checks for.
	Inconclusive = "inconclusive"
)

// Result is one rlbench invocation: every run of a profile and the verdict.
// Tools and CI read these fields; their JSON names are the contract.
type Result struct {
	Schema  string      `json:"schema"`
	Tool    Tool        `json:"tool"`
	Profile ProfileInfo `json:"profile"`
	Redis   RedisInfo   `json:"redis"`
	Host    HostInfo    `json:"host"`
	// RunID is the id in every key the invocation wrote (rlbench:<run_id>:...).
	RunID string `json:"run_id"`
	// Segment says which part of the identities this invocation ran, when
	// several ran one profile together (rlbench run --segment I/N).
	Segment *SegmentInfo `json:"segment,omitempty"`
	// MergedSegments is, for a result merged from segments (rlbench merge),
	// how many it was merged from, and their run ids.
	MergedSegments []string  `json:"merged_segments,omitempty"`
	StartedAt      time.Time `json:"started_at"`
	FinishedAt     time.Time `json:"finished_at"`
	// Complete is false when the invocation was interrupted or aborted;
	// IncompleteReason then says why, and the runs hold what was measured.
	Complete         bool              `json:"complete"`
	IncompleteReason string            `json:"incomplete_reason,omitempty"`
	Runs             []Run             `json:"runs"`
	Thresholds       []ThresholdResult `json:"thresholds"`
	Verdict          string            `json:"verdict"`
	// VerdictReasons says why the verdict is fail, most serious first (see
	// verdict.Assess, which derives them from the fields above); empty on a
	// pass.
	VerdictReasons []string `json:"verdict_reasons,omitempty"`
}

// SegmentInfo identifies one segment of a load that several processes
// made together: its index and their count, a name shared by all of them
// (from the profile, seed, count, start and plan), the common start, and
// the plan it ran.
type SegmentInfo struct {
	Index   int        `json:"index"`
	Count   int        `json:"count"`
	Group   string     `json:"group"`
	StartAt *time.Time `json:"start_at,omitempty"`
	// Plan is a digest of the runs the segment's plan holds, in order
	// (each limiter, scenario and repetition), and PlannedRuns their
	// number once repetitions are folded: the segments of one load ran
	// one plan (another --algorithms or --repeat makes another). Empty in
	// results written before they were recorded.
	Plan        string `json:"plan,omitempty"`
	PlannedRuns int    `json:"planned_runs,omitempty"`
}

// Tool identifies the rlbench build that wrote the result.
type Tool struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	GoVersion string `json:"go_version"`
}

// ProfileInfo says which profile produced the result.
type ProfileInfo struct {
	Name        string     `json:"name"`
	Path        string     `json:"path"`
	SHA256      string     `json:"sha256"`
	Seed        int64      `json:"seed"`
	Policy      PolicyInfo `json:"policy"`
	Algorithms  []string   `json:"algorithms"`
	Concurrency int        `json:"concurrency"`
	WarmupS     float64    `json:"warmup_s"`
	// ReportIdentities is the population the report projects each
	// limiter's memory onto (the profile's report.identities); zero means
	// the most identities a run held.
	ReportIdentities int64 `json:"report_identities,omitempty"`
	// Limiters describes the user's own limiters the profile declared.
	Limiters []LimiterInfo `json:"limiters,omitempty"`
	// ExpectBroken names the limiters the profile runs as negative
	// controls: their broken promises are expected, and the verdict fails
	// unless the audit catches each of them.
	ExpectBroken []string `json:"expect_broken,omitempty"`
	// ErrorBudget is how many calls without a decision a run may have, as
	// a fraction of its decisions, before the verdict fails; nil in a
	// result written before the field existed, read as DefaultErrorBudget.
	ErrorBudget *float64 `json:"error_budget,omitempty"`
}

// DefaultErrorBudget is the error budget of a profile that names none:
// 0.1% of a run's decisions.
const DefaultErrorBudget = 0.001

// Budget is the error budget the profile ran with.
func (p ProfileInfo) Budget() float64 {
	if p.ErrorBudget == nil {
		return DefaultErrorBudget
	}
	return *p.ErrorBudget
}

// RunPolicy is the policy run enforced: its own parameters (a scenario may
// override the profile's policy), or the profile's when the run does not
// carry them (results written before runs did).
func (r *Result) RunPolicy(run *Run) PolicyInfo {
	p := r.Profile.Policy
	if run.Params.Limit > 0 {
		p.Limit = run.Params.Limit
	}
	if run.Params.WindowMs > 0 {
		p.WindowMs = run.Params.WindowMs
	}
	if run.Params.Capacity > 0 {
		p.Burst = run.Params.Capacity
	}
	return p
}

// AuditWindowMs is the interval run's audit counted admissions over, in
// milliseconds: a declared limiter's own promise, else the window of the
// run's policy.
func (r *Result) AuditWindowMs(run *Run) int64 {
	if a := run.Audit; a != nil && a.WindowMs > 0 {
		return a.WindowMs
	}
	return r.RunPolicy(run).WindowMs
}

// PolicyInfo is the policy every algorithm interpreted.
type PolicyInfo struct {
	Limit    int64 `json:"limit"`
	WindowMs int64 `json:"window_ms"`
	Burst    int64 `json:"burst"`
	// BucketMs is the sliding buckets' sub-window width, when the profile
	// names one.
	BucketMs int64 `json:"bucket_ms,omitempty"`
}

// RedisInfo describes the server the runs used. It never holds a password.
type RedisInfo struct {
	// Mode is private (started by rlbench), external or embedded (not Redis).
	Mode            string `json:"mode"`
	Version         string `json:"version"`
	Addr            string `json:"addr"`
	MaxmemoryPolicy string `json:"maxmemory_policy,omitempty"`
	Note            string `json:"note,omitempty"`
	// Cluster describes the Redis Cluster, when the runs used one (Addr
	// then lists its masters).
	Cluster *ClusterInfo `json:"cluster,omitempty"`
	// Access is what the user rlbench connected as may run, checked as it
	// connected to a server it did not start; nil on its own servers.
	Access *Access `json:"access,omitempty"`
	// Unavailable names what rlbench could not learn of the server
	// ("version", "maxmemory_policy": an evicting policy is then not ruled
	// out) or do on it ("key_removal": the run's keys were left to expire),
	// because the user may not run the command.
	Unavailable []Unavailable `json:"unavailable,omitempty"`
}

// HostInfo describes the machine the load came from.
type HostInfo struct {
	// Name is the machine's host name, so a comparison can tell results
	// from different machines apart.
	Name       string `json:"name,omitempty"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	// SchedAutogroup is the kernel's kernel.sched_autogroup_enabled: when
	// true, processes are grouped by session and, when the CPUs are
	// contended, each group gets an equal share, so a Redis started in a
	// session of its own (a service, a daemon) is not weighed against
	// rlbench's threads one for one. Nil where the kernel does not say.
	SchedAutogroup *bool `json:"sched_autogroup,omitempty"`
}
