package result

// Run is one algorithm in one scenario.
type Run struct {
	Algorithm  string      `json:"algorithm"`
	Scenario   string      `json:"scenario"`
	Shape      string      `json:"shape"`
	Params     Params      `json:"params"`
	Identities int         `json:"identities"`
	Requests   Requests    `json:"requests"`
	Rate       RateFigures `json:"rate"`
	// ScenarioGroup is the scenario's name as written when it lists several
	// sizes; its runs (one per size) draw one curve.
	ScenarioGroup string `json:"scenario_group,omitempty"`
	// PolicyGroup is the scenario's name as written when the profile runs
	// it under several error policies, one scenario <group>-<policy> each.
	PolicyGroup string `json:"policy_group,omitempty"`
	// ElapsedS is the issuing window the achieved rate is measured over.
	ElapsedS float64 `json:"elapsed_s"`
	// LatencyUs runs from each request's due time (corrected for
	// coordinated omission); LatencyUncorrectedUs from its actual send.
	LatencyUs            Latency `json:"latency_us"`
	LatencyUncorrectedUs Latency `json:"latency_uncorrected_us"`
	LatencyAllowedUs     Latency `json:"latency_allowed_us"`
	LatencyDeniedUs      Latency `json:"latency_denied_us"`
	// LatencyHDR and LatencyUncorrectedHDR are the full histograms
	// (HdrHistogram V2 compressed, base64), so results can be merged and
	// re-plotted.
	LatencyHDR            string `json:"latency_hdr"`
	LatencyUncorrectedHDR string `json:"latency_uncorrected_hdr"`
	// MaxLagUs is the furthest behind schedule any request was sent.
	MaxLagUs int64 `json:"max_lag_us"`
	// Generator is what the scheduler said of rlbench itself during the
	// run's traffic; nil where the kernel keeps no such figures.
	Generator *Generator `json:"generator,omitempty"`
	// Pipeline says how the requests went out: alone, or in batches.
	Pipeline *Pipeline `json:"pipeline,omitempty"`
	Audit    *Audit    `json:"audit,omitempty"`
	// Accuracy sets the audited identities' decisions beside the ideal
	// limiter of the run's policy, fed the same arrivals; nil when the
	// run was not audited.
	Accuracy *Accuracy `json:"accuracy,omitempty"`
	Memory   *Memory   `json:"memory,omitempty"`
	// MemoryOverTime is rlbench's and the server's memory sampled through
	// the run's traffic; nil in results written before it was recorded.
	MemoryOverTime *MemoryOverTime `json:"memory_over_time,omitempty"`
	Server         *Server         `json:"server,omitempty"`
	Series         []Second        `json:"series"`
	// Timeline is the run in bins finer than a second, for plots of short
	// runs and of what happened around an event.
	Timeline *Timeline `json:"timeline,omitempty"`
	// Edge is, for a boundary run, how admissions fell around each
	// identity's window boundary.
	Edge *Edge `json:"edge,omitempty"`
	// Repeats is set when the run was repeated (--repeat N): the run's
	// figures are then medians over the repetitions, and Repeats holds each
	// repetition's values so a comparison can tell noise from change.
	Repeats *Repeats `json:"repeats,omitempty"`
	// Errors counts the failed calls by kind, most frequent first, each
	// with one example message.
	Errors []ErrorCount `json:"errors,omitempty"`
	// ReplyMalformed counts, per declared part of a user's limiter's
	// reply, the replies whose value of it could not be read: those
	// decisions stood (they are among the allowed and denied), without
	// that part.
	ReplyMalformed []ReplyMalformed `json:"reply_malformed,omitempty"`
	Incomplete     bool             `json:"incomplete,omitempty"`
	Note           string           `json:"note,omitempty"`

	// ClockOffset is how the run aligned the local clock with Redis TIME,
	// for shapes that schedule in server time.
	ClockOffset *ClockOffset `json:"clock_offset,omitempty"`
	// WindowLocation is how a boundary run found where each identity's
	// window ends; nil for other shapes.
	WindowLocation *WindowLocation `json:"window_location,omitempty"`

	// Eviction is what the server said about evictions and expiries
	// around the run; nil when it could not be read (embedded server).
	Eviction *Eviction `json:"eviction,omitempty"`
	// Reference is what trivial calls cost on the same server during the
	// run, and Relative the run's figures over it: a busier or slower
	// machine moves both alike, so Relative can be compared across
	// machines and loads where the absolute figures cannot.
	Reference *Reference `json:"reference,omitempty"`
	Relative  *Relative  `json:"relative,omitempty"`
	// Faults is what the faults the profile scheduled did to the run, and
	// what the caller's error policy made of them.
	Faults *Faults `json:"faults,omitempty"`

	// Cluster is how the run's work fell on the masters of a Redis
	// Cluster; nil on a single server.
	Cluster *Cluster `json:"cluster,omitempty"`

	// Fleet is the application instances the load came from, each with
	// a clock of its own; nil when the profile declares no fleet.
	Fleet *Fleet `json:"fleet,omitempty"`
	// Capacity is what a capacity run's search found (shape capacity);
	// nil for every other shape.
	Capacity *Capacity `json:"capacity,omitempty"`
	// Unavailable names each figure of the run that was not measured
	// because the server refused a command that reads it (see
	// Redis.Access): it reads as absent, never as zero.
	Unavailable []Unavailable `json:"unavailable,omitempty"`
}

// Params are the scenario parameters the run used.
type Params struct {
	Rate        string  `json:"rate"`
	Arrival     string  `json:"arrival,omitempty"`
	DurationS   float64 `json:"duration_s"`
	Requests    int64   `json:"requests,omitempty"`
	Concurrency int     `json:"concurrency"`
	Limit       int64   `json:"limit"`
	WindowMs    int64   `json:"window_ms"`
	Capacity    int64   `json:"capacity"`
	// BucketMs is the sub-window width a sliding-buckets run counted in.
	BucketMs  int64  `json:"bucket_ms,omitempty"`
	KeyPrefix string `json:"key_prefix"`
	// Pipeline is the pipeline the profile asked for ("16", "auto"); empty
	// when it sent every request alone. Run.Pipeline is what was in effect.
	Pipeline string `json:"pipeline,omitempty"`
	// Cost is how many units each request asked for, as the scenario
	// wrote it ("3", "uniform 1-5"); empty when each asked for one, as a
	// built-in's requests do.
	Cost string `json:"cost,omitempty"`
	// Boundary holds the boundary shape's parameters.
	Boundary *BoundaryParams `json:"boundary,omitempty"`
	// Replay describes a replay's trace.
	Replay *ReplayParams `json:"replay,omitempty"`

	// FromPerS and Stages describe a ramp: the offered rate (for all
	// identities) it starts at, and each stage's rate and length.
	FromPerS float64       `json:"from_per_s,omitempty"`
	Stages   []StageParams `json:"stages,omitempty"`

	// Distribution, ZipfExponent and Repeats describe how a scenario chose
	// identities, when not simply in turn.
	Distribution string  `json:"distribution,omitempty"`
	ZipfExponent float64 `json:"zipf_exponent,omitempty"`
	Repeats      int64   `json:"repeats,omitempty"`

	// OnError is the caller's error policy (fail_open, fail_closed or
	// local) and Client how it bounded and retried each call; both empty
	// when the profile has no client section.
	OnError string        `json:"on_error,omitempty"`
	Client  *ClientParams `json:"client,omitempty"`
	// CallTimeoutMs is how long each call of the limiter was given before
	// it counted as timed out (client.timeout_ms when the profile has a
	// client section, else the profile's timeout); zero in results written
	// before it was recorded.
	CallTimeoutMs float64 `json:"call_timeout_ms,omitempty"`
	// HashTag is how a built-in limiter's keys were tagged: identity
	// (rlbench:<run>:<alg>:<scenario>:{<identity>}), fixed (every identity
	// under one tag), or none; "declared" for a declared limiter, whose
	// keys are its own templates'.
	HashTag string `json:"hash_tag,omitempty"`
	// AcceptInconclusive says the scenario accepts a run that cannot judge
	// what it checks (the profile's accept_inconclusive): such a run is
	// reported, and does not make the result inconclusive.
	AcceptInconclusive bool `json:"accept_inconclusive,omitempty"`
}

// StageParams is one stage of a ramp: over DurationS seconds the offered
// rate moves in a straight line to TargetPerS.
type StageParams struct {
	TargetPerS float64 `json:"target_per_s"`
	DurationS  float64 `json:"duration_s"`
}

// Requests tallies a run. Sent = Allowed + Denied + Errors.
type Requests struct {
	// Planned is how many requests the run's schedule held (a segment's
	// share of them): its offered rate over its duration (for Poisson
	// arrivals, the expected count), its request count, or a boundary
	// run's primes and bursts; zero when only time bounds the run (a
	// closed loop without a count).
	Planned         int64 `json:"planned,omitempty"`
	Sent            int64 `json:"sent"`
	Allowed         int64 `json:"allowed"`
	Denied          int64 `json:"denied"`
	Errors          int64 `json:"errors"`
	Late            int64 `json:"late"`
	Unsent          int64 `json:"unsent"`
	NoScriptReloads int64 `json:"noscript_reloads"`

	// FaultErrors counts the errors (among Errors) of calls made inside a
	// fault window the profile scheduled on purpose: they are that
	// fault's figures, and the error budget leaves them out.
	FaultErrors int64 `json:"fault_errors,omitempty"`

	// AllowedOnError and DeniedOnError count what the caller's error
	// policy (params.on_error) decided for calls without a decision
	// (among Errors): fail_open admits them, fail_closed denies them, local
	// lets an in-process limiter decide.
	AllowedOnError int64 `json:"allowed_on_error,omitempty"`
	DeniedOnError  int64 `json:"denied_on_error,omitempty"`
}

// Add adds every count of o to q: repetitions, segments and shards of a
// run add up this way, and a count added to the contract with them.
func (q *Requests) Add(o Requests) { addCounts(q, &o) }

// Decisions counts the calls that got an answer, allowed or denied.
func (q Requests) Decisions() int64 { return q.Allowed + q.Denied }

// BudgetedErrors are the errors the error budget counts: all of them but
// those inside scheduled fault windows.
func (q Requests) BudgetedErrors() int64 { return q.Errors - q.FaultErrors }

// RateFigures compare the offered rate with what was sent; target is 0 in
// closed loop.
type RateFigures struct {
	TargetPerS   float64 `json:"target_per_s"`
	AchievedPerS float64 `json:"achieved_per_s"`
}

// Latency digests a latency histogram, in microseconds.
type Latency struct {
	Count int64   `json:"count"`
	P50   int64   `json:"p50"`
	P90   int64   `json:"p90"`
	P99   int64   `json:"p99"`
	P999  int64   `json:"p999"`
	Max   int64   `json:"max"`
	Mean  float64 `json:"mean"`
}

// Audit is what checking one run's decisions found: how the limiter's
// admissions compare with its own bound, with the policy, and with an
// exact reference model fed the same arrivals at the same server times.
type Audit struct {
	// Identities is how many identities were audited in full (those of
	// the sample that got at least one decision).
	Identities int64 `json:"identities"`
	// Sampled says the run had more identities than the audit keeps, so
	// the figures cover a seeded sample of them.
	Sampled bool `json:"sampled"`
	// Decisions and Allowed count the audited identities' decisions and
	// admissions. Calls that failed carry no decision and are left out.
	Decisions int64 `json:"decisions"`
	Allowed   int64 `json:"allowed"`
	// ExpectedAllowed is how many of those decisions the model admits.
	ExpectedAllowed int64 `json:"expected_allowed"`
	// ModelMismatches counts decisions where Redis and the model disagree
	// (in every state the model may have been in, when a call whose
	// outcome is unknown or a reset left it uncertain).
	ModelMismatches int64 `json:"model_mismatches"`
	// UnderAdmitted counts denials the limiter's semantics promise to
	// admit: on the server's times, denials every state of the reference
	// model admits (among ModelMismatches); on the client's, denials that
	// fewer admissions than the promise needs preceded, wherever in its
	// round trip each was decided.
	UnderAdmitted int64 `json:"under_admitted"`
	// Overshoot sums over identities how far each one's busiest window
	// went beyond BoundWindow; Violations counts those identities. A
	// correct atomic limiter has both at zero.
	Overshoot int64 `json:"overshoot"`
	// PolicyExcess is how far the busiest window went beyond the policy's
	// limit: what the algorithm lets through that the policy's sentence
	// does not (about the limit for a fixed window hit across its
	// boundary, zero for a sliding log).
	PolicyExcess int64 `json:"policy_excess"`
	// MaxWindowAdmitted is the most admissions of one identity within any
	// interval shorter than the window; BoundWindow is what the algorithm
	// promises for such an interval. Both count units (params.cost): each
	// admission counts what its request asked for, one unless the
	// scenario gives a cost; so do Overshoot, PolicyExcess and the edge
	// curve. Allowed and ExpectedAllowed count requests.
	MaxWindowAdmitted int64 `json:"max_window_admitted"`
	BoundWindow       int64 `json:"bound_window"`
	Violations        int64 `json:"violations"`
	// Coverage is the share of the run's decisions the audit replayed: 1
	// when it audited every identity, less for a sample (Sampled).
	Coverage float64 `json:"coverage"`

	// Basis says what the audit could judge (AuditByModel, AuditByBound,
	// AuditByBoundClientTime, AuditByBoundCallerTime); empty means AuditByModel, as in results
	// written before declared limiters.
	Basis string `json:"basis,omitempty"`
	// WindowMs is the interval MaxWindowAdmitted and BoundWindow are
	// measured over when it is not the policy's window: a declared promise
	// of so many requests per its own interval.
	WindowMs int64 `json:"window_ms,omitempty"`
	// Timing says how uncertain the decisions' times were, when the audit
	// had only the client's (AuditByBoundClientTime), or judged a limiter
	// that takes its time from its caller on the true clock (CallerClock).
	Timing *AuditTiming `json:"timing,omitempty"`
	// CallerClock sets the true clock beside the limiter's own, for a
	// limiter that takes its time from its caller (time_from: args, the
	// client-time built-ins); nil for one that reads Redis TIME.
	CallerClock *AuditCallerClock `json:"caller_clock,omitempty"`
	// Reply is what checking the replies' remaining and retry_after against
	// the reference model found; nil when nothing was checked. Each wrong
	// answer also counts its decision in ModelMismatches.
	Reply *ReplyCheck `json:"reply,omitempty"`
	// VsExact compares an approximate algorithm's decisions with those of
	// the exact one it approximates, on the same arrivals; nil for the
	// others.
	VsExact *ExactComparison `json:"vs_exact,omitempty"`
	// Power says what the audit could have caught on this run's traffic.
	Power *Power `json:"power,omitempty"`
}

// Power is what a run's audit could have caught: a run whose traffic
// could not have shown the error a check looks for has not passed that
// check.
type Power struct {
	// OfferedMaxInWindow is the most requests one audited identity offered
	// (admitted or denied) within one interval the bound is stated over,
	// within one lifetime of its state (a reset the server saw ends one):
	// an admission beyond the bound can show only where it passes
	// BoundWindow.
	OfferedMaxInWindow int64 `json:"offered_max_in_window"`
	// Replayed says the decisions were replayed through the reference
	// model, and ExpectedDenied is how many it denied in every state the
	// limiter may have been in (after a reset or a call whose outcome is
	// unknown, it may have been in several): where it denied none, no
	// identity certainly reached its limit, and an admission past the
	// limit could not show.
	Replayed       bool  `json:"replayed"`
	ExpectedDenied int64 `json:"expected_denied"`
	// Excess says the run could have shown an admission beyond what the
	// limiter promises: replayed, the model certainly denied some of its
	// requests; judged by the bound, an identity offered more than the
	// bound within one interval.
	Excess bool `json:"excess"`
	// Shortfall says the run could have shown a denial of what the
	// semantics promise to admit: replayed, where the model admitted some
	// requests; judged by the bound, where the limiter states a promise
	// and some identity's decisions spanned more than its interval (a
	// limiter that refills too slowly shows only once its first burst is
	// that far behind). PromiseAdmits and PromiseWithinMs state
	// that promise (the limiter admits a request whenever fewer than
	// PromiseAdmits were admitted within the PromiseWithinMs before it),
	// zero when the limiter states none.
	Shortfall       bool    `json:"shortfall"`
	PromiseAdmits   int64   `json:"promise_admits,omitempty"`
	PromiseWithinMs float64 `json:"promise_within_ms,omitempty"`
}

// ExactComparison is how often an approximate algorithm (the sliding
// counter, the sliding buckets) decided otherwise than the exact algorithm
// it approximates (the sliding log) would have on the same arrivals, at
// the same server times, each algorithm keeping its own state.
type ExactComparison struct {
	// Algorithm is the exact algorithm compared with.
	Algorithm string `json:"algorithm"`
	// Decisions counts the decisions compared; Differ those decided
	// otherwise, split into AdmittedBeyond (admitted where the exact
	// algorithm denies) and DeniedWithin (denied where it admits).
	Decisions      int64 `json:"decisions"`
	Differ         int64 `json:"differ"`
	AdmittedBeyond int64 `json:"admitted_beyond"`
	DeniedWithin   int64 `json:"denied_within"`
}

// DifferShare is the share of compared decisions that differ, 0 to 1.
func (c *ExactComparison) DifferShare() float64 {
	if c == nil || c.Decisions == 0 {
		return 0
	}
	return float64(c.Differ) / float64(c.Decisions)
}

// What an audit could judge.
const (
	// AuditByModel: every decision replayed through the reference model at
	// the server time it used, and the bound checked on those times.
	AuditByModel = "model"
	// AuditByBound: only the bound, at the server times the replies
	// carried (the semantics has no model, or is a declared promise).
	AuditByBound = "bound"
	// AuditByBoundClientTime: only the bound, on the client's clock: each
	// decision lies somewhere between its send and its reply, and only
	// what holds for every such placement counts (see AuditTiming).
	AuditByBoundClientTime = "bound_client_time"
	// AuditByBoundCallerTime: only the bound, for a limiter that decides
	// by the caller's clock, on the true clock: each decision somewhere
	// between its request's send and its reply, on the server's clock
	// through the measured offset (see AuditCallerClock).
	AuditByBoundCallerTime = "bound_caller_time"
)

// HasModel reports whether the audit replayed a reference model, so that
// ExpectedAllowed and ModelMismatches mean something.
func (a *Audit) HasModel() bool { return a.Basis == "" || a.Basis == AuditByModel }

// AuditTiming is how well an audit on client times knew when each decision
// was made: between the request's send and its reply, so within half the
// round trip of its midpoint.
type AuditTiming struct {
	// UncertaintyP50Us and UncertaintyMaxUs are the median and the largest
	// half round trip of the audited decisions.
	UncertaintyP50Us int64 `json:"uncertainty_p50_us"`
	UncertaintyMaxUs int64 `json:"uncertainty_max_us"`
	// MaxWindowAdmittedPossible is the most admissions of one identity some
	// placement of the decisions within their round trips could put in one
	// window. Audit.MaxWindowAdmitted counts only admissions certainly in
	// one window, wherever in its round trip each was decided: overshoot
	// is judged on that, so what it reports holds for every placement.
	MaxWindowAdmittedPossible int64 `json:"max_window_admitted_possible"`
}

// AuditCallerClock is how a limiter that takes its time from its caller
// fared on the true clock. Every decision is placed on rlbench's own clock,
// somewhere between its request's send and its reply (on the server's
// clock through the run's offset), and MaxWindowAdmitted, Overshoot and
// Timing count only what lies in one window wherever in that span each
// decision was made; its reference model is still fed the time its
// arguments carried, which is the limiter's own view. A caller's clock
// coarser than the window can bear shows here: a whole-second clock takes
// two requests 10ms apart across a second boundary for a second apart.
type AuditCallerClock struct {
	// TickUs is the unit the caller's time reached the script in, in
	// microseconds: 1000000 for ${now_s}, 1000 for ${now_ms}, 1 for
	// ${now_us}, ${now_s_float} and the client-time built-ins. The script's
	// clock is the caller's rounded down to it.
	TickUs int64 `json:"tick_us"`
	// MaxWindowAdmittedOwn is the most units one identity was admitted
	// within one window on the limiter's own clock: at the times its
	// arguments carried (a fleet instance's skew and the tick included).
	MaxWindowAdmittedOwn int64 `json:"max_window_admitted_own"`
	// Burst is the busiest window of an identity that went past the bound
	// on the true clock; nil when none did.
	Burst *CallerClockBurst `json:"burst,omitempty"`
}

// CallerClockBurst is what one identity was admitted, on the true clock,
// within the busiest window that went past the bound.
type CallerClockBurst struct {
	// Admitted is the units certainly admitted within that window.
	Admitted int64 `json:"admitted"`
	// WithinMs is the shortest stretch of them that holds more than the
	// bound, from the earliest send to the latest reply among them: how
	// quickly the limiter let more than its bound through.
	WithinMs float64 `json:"within_ms"`
	// AcrossTicks says the requests of that stretch carried times of more
	// than one tick (both sides of a second boundary, for ${now_s}).
	AcrossTicks bool `json:"across_ticks"`
	// AdmittedWithinMs is the stretch that holds all of Admitted, from
	// the earliest send to the latest reply among them: what the
	// limiter let through, how quickly (0 in results written before it
	// was measured).
	AdmittedWithinMs float64 `json:"admitted_within_ms,omitempty"`
}

// ReplyCheck is what the audit found in the parts of the replies a caller
// builds X-RateLimit-Remaining and Retry-After headers from, checked
// against the reference model.
type ReplyCheck struct {
	// RemainingChecked counts replies whose remaining was checked;
	// RemainingWrong those whose whole requests left differ from the
	// model's, or that promise more than the model has.
	RemainingChecked int64 `json:"remaining_checked"`
	RemainingWrong   int64 `json:"remaining_wrong"`
	// RetryAfterChecked counts denials whose retry_after_ms was checked;
	// RetryAfterTooEarly those after which a request retried exactly that
	// much later, with nothing admitted in between, would still be denied.
	RetryAfterChecked  int64 `json:"retry_after_checked"`
	RetryAfterTooEarly int64 `json:"retry_after_too_early"`
}

// Timeline is a run bin by bin: what was decided in each bin of BinMs
// milliseconds (counted when decided, like Series), and each bin's p99 to
// within 10%. Bins start at 10ms and widen (doubling) for long runs, so a
// run has at most a few hundred.
type Timeline struct {
	BinMs int64 `json:"bin_ms"`
	Bins  []Bin `json:"bins"`
}

// Bin is one bin of a Timeline; TMs is its start from the run's start.
type Bin struct {
	TMs     int64 `json:"t_ms"`
	Allowed int64 `json:"allowed"`
	Denied  int64 `json:"denied"`
	Errors  int64 `json:"errors"`
	P99Us   int64 `json:"p99_us"`
}

// Edge is how a boundary run's admissions fell around each identity's
// window boundary, over the audited identities: for every millisecond t
// from FromMs (negative: before the boundary) on, the most and the mean
// number of requests one identity had admitted in the window of WindowMs
// ending at t. A fixed window's curve jumps to twice the limit just after
// the boundary; a sliding log's never passes the limit.
type Edge struct {
	WindowMs     int64     `json:"window_ms"`
	FromMs       int64     `json:"from_ms"`
	Identities   int64     `json:"identities"`
	MaxInWindow  []int64   `json:"max_in_window"`
	MeanInWindow []float64 `json:"mean_in_window"`
}

// Second is one second of a run.
type Second struct {
	TS      int   `json:"t_s"`
	Allowed int64 `json:"allowed"`
	Denied  int64 `json:"denied"`
	Errors  int64 `json:"errors"`
	P99Us   int64 `json:"p99_us"`
}

// ErrorCount is one kind of failed call and how often it occurred. Kind is
// timeout, connection refused, EOF, connection reset, other, or the code a
// Redis error reply starts with (NOPERM, OOM, NOSCRIPT, ...); Message is one
// example of it. Results written before calls were grouped by kind have no
// Kind, and one entry per distinct message.
type ErrorCount struct {
	Kind    string `json:"kind,omitempty"`
	Message string `json:"message"`
	Count   int64  `json:"count"`
}

// The kinds of failed calls that got no answer from Redis (ErrorCount.Kind);
// every other kind but ErrorOther is the code of an error Redis answered.
const (
	ErrorTimeout  = "timeout"
	ErrorRefused  = "connection refused"
	ErrorEOF      = "EOF"
	ErrorReset    = "connection reset"
	ErrorNotOwned = "not rlbench's server"
	ErrorOther    = "other"
)

// NoAnswer reports whether these calls got no answer from Redis: they timed
// out, or their connection was refused, closed or reset, or never went to a
// server proved rlbench's. What failed them lies between rlbench and the
// server (the machine, the network, a server that stalled), unless the
// server's own time per call says the limiter held it that long. An error
// Redis answered (a script's, WRONGTYPE, OOM) is not one, nor is a call
// whose failure has no kind.
func (e ErrorCount) NoAnswer() bool {
	switch e.Kind {
	case ErrorTimeout, ErrorRefused, ErrorEOF, ErrorReset, ErrorNotOwned:
		return true
	}
	return false
}

// NoAnswerErrors counts the calls among errs that got no answer from Redis.
func NoAnswerErrors(errs []ErrorCount) int64 {
	var n int64
	for _, e := range errs {
		if e.NoAnswer() {
			n += e.Count
		}
	}
	return n
}

// ReplyMalformed is one reply part whose value could not be read: the part
// as declared ("retry_after"), where the reply carries it, how many
// replies, and the first one's error.
type ReplyMalformed struct {
	Part     string `json:"part"`
	Position int    `json:"position"`
	Count    int64  `json:"count"`
	Example  string `json:"example"`
}

// Key names a run as algorithm/scenario.
func (r *Run) Key() string { return r.Algorithm + "/" + r.Scenario }

// CPUWaitStarved is the share of its traffic's time rlbench's threads may
// wait for a CPU before a run counts as starved of CPU: it measured the
// machine as much as the limiter. On a quiet two-CPU machine, with Redis
// on the other CPU, the closed loop waits about 15%.
const CPUWaitStarved = 0.25

// Generator is how rlbench's own process fared for CPU while it sent a
// run's traffic, from the scheduler's figures summed over its threads,
// each a share of the traffic's wall time (a process with several busy
// threads can pass 1).
type Generator struct {
	// CPUShare is the time rlbench's threads ran on a CPU.
	CPUShare float64 `json:"cpu_share"`
	// CPUWaitShare is the time they were ready to run but waited for a
	// CPU that something else held: another process on the machine, or a
	// Redis on it. Requests that waited so were sent, or their replies
	// read, that much later.
	CPUWaitShare float64 `json:"cpu_wait_share"`
	// UsecPerDecision is rlbench's own CPU time (its threads on a CPU) per
	// request it sent over the traffic, in microseconds: what one decision
	// cost the generator, beside what it cost the server
	// (server.usec_per_call). On a machine rlbench shares with Redis, a
	// generator that spends more per decision than the server gives out
	// first. Zero when nothing was sent.
	UsecPerDecision float64 `json:"usec_per_decision,omitempty"`
}

// WindowLocation is how a boundary run found where each identity's window
// ends, to put a burst on each side of it.
type WindowLocation struct {
	// Method is how the limiter's windows are located: "formula" (the
	// built-in fixed window's own), "reply" (a declared window_end,
	// reset_at or reset_after), "ttl" (the fixed window without Lua,
	// whose window is its key's life), "behaviour" (a declared fixed
	// window whose replies do not say: the window is exhausted right after
	// the prime, then probed until a request is admitted again; the next
	// window ends a window after that admission), or "after_prime" (its
	// windows do not end at an instant: the bursts go a window after the
	// prime).
	Method string `json:"method"`
	// Identities were primed. ByFormula, ByReply, ByTTL and ByBehaviour
	// count the identities each placed; AfterPrime those placed a window
	// after their prime: every one for the after_prime method, else those
	// whose reply did not say or whose behaviour showed no end within two
	// windows (never denied, or never admitted again).
	Identities  int64 `json:"identities"`
	ByFormula   int64 `json:"by_formula,omitempty"`
	ByReply     int64 `json:"by_reply,omitempty"`
	ByTTL       int64 `json:"by_ttl,omitempty"`
	ByBehaviour int64 `json:"by_behaviour,omitempty"`
	AfterPrime  int64 `json:"after_prime,omitempty"`
	// WithoutTTL counts, for the ttl method, the identities whose key had
	// no TTL right after the request that opened their window: the window
	// never ends (the limiter's finding; their bursts went a window after
	// the prime, among AfterPrime); Example names one such key.
	WithoutTTL int64  `json:"without_ttl,omitempty"`
	Example    string `json:"example,omitempty"`
	// ReplyRefused counts, for the reply method, the identities whose
	// prime's reply gave a window end that was not after the prime (a
	// reset_at that reports the window's start, a reset_after of 0) or
	// more than a window after it: bursts aimed there would straddle no
	// boundary, so the end was found by behaviour instead (a fixed window)
	// or the bursts went a window after the prime (among AfterPrime);
	// ReplyRefusedExample says what one such reply gave.
	ReplyRefused        int64  `json:"reply_refused,omitempty"`
	ReplyRefusedExample string `json:"reply_refused_example,omitempty"`
	// UncertaintyMaxUs is the widest span an end was known within: the
	// unit a reply counts it in; for behaviour, from the last denial to
	// the admission after it (and half that admission's round trip when
	// its reply carried no server time).
	UncertaintyMaxUs int64 `json:"uncertainty_max_us,omitempty"`
}
