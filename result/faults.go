package result

// ClientParams is how the limiter's caller behaved in a run: each call
// bounded by TimeoutMs, tried again up to Retries times after a failure,
// waiting BackoffMs before the first retry and twice as long before each
// further one. What it then did without a decision is Params.OnError.
type ClientParams struct {
	TimeoutMs float64 `json:"timeout_ms"`
	Retries   int     `json:"retries"`
	BackoffMs float64 `json:"backoff_ms"`
}

// The error policies a run's caller may have had (Params.OnError).
const (
	FailOpen   = "fail_open"
	FailClosed = "fail_closed"
	FailLocal  = "local"
)

// Faults is what the faults a profile scheduled did to one run, and what
// the caller's error policy made of them. Times are milliseconds from the
// start of the run's measured traffic.
type Faults struct {
	// Windows has one entry per scheduled fault, in order.
	Windows []FaultWindow `json:"windows"`

	// Errors counts the calls without a decision inside the windows and
	// their recoveries (requests.fault_errors); AllowedOnError and
	// DeniedOnError what the error policy decided for them.
	Errors         int64 `json:"errors"`
	AllowedOnError int64 `json:"allowed_on_error"`
	DeniedOnError  int64 `json:"denied_on_error"`
	// Late counts the requests decided inside the windows and their
	// recoveries that went out more than 1ms after they were due (among
	// requests.late): the fault's lateness, not the generator's.
	Late int64 `json:"late,omitempty"`

	// AdmittedByFault counts requests the error policy admitted that the
	// limiter, had Redis answered, would have denied; DeniedByFault those
	// it denied that the limiter would have admitted (traffic lost only to
	// the fault). Both come from the audit's reference model, over the
	// audited identities; absent for a limiter without one.
	AdmittedByFault *int64 `json:"admitted_by_fault,omitempty"`
	DeniedByFault   *int64 `json:"denied_by_fault,omitempty"`
	// PolicyExcess is how far one identity got past the policy in one
	// window because of admissions on error, beyond what the limiter
	// itself admitted in that window (the limiter's own excess is
	// audit.policy_excess). Zero under fail_closed.
	PolicyExcess int64 `json:"policy_excess"`

	// StateLostIdentities counts the audited identities that came back
	// from a restart, kill or failover with state the limiter had not
	// left them (a fresh window, a fuller bucket); StateLostAdmitted the
	// admissions that a limiter that kept its state would have denied.
	StateLostIdentities int64 `json:"state_lost_identities"`
	StateLostAdmitted   int64 `json:"state_lost_admitted"`

	// Attempts counts the calls the caller made to Redis, retries
	// included; Retries the retries among them; MaxAttempts the most one
	// request made (at most 1 + client.retries).
	Attempts    int64 `json:"attempts"`
	Retries     int64 `json:"retries"`
	MaxAttempts int64 `json:"max_attempts"`

	// MaxRecoveryMs is the longest time, after a fault's window, until
	// decisions were normal again.
	MaxRecoveryMs int64 `json:"max_recovery_ms"`

	// Unjudged counts audited decisions the reference model did not judge:
	// those of identities a fault left with calls that may have run on the
	// server after their caller gave up (a stall, a slow or lost reply),
	// which the model cannot see. Their admissions are still checked
	// against the bound. UnjudgedMismatches are the disagreements among
	// them, which are the fault's, not the limiter's.
	Unjudged           int64 `json:"unjudged"`
	UnjudgedMismatches int64 `json:"unjudged_mismatches"`
	// Uncertain is how the audit replayed identities that had calls whose
	// outcome is unknown (a call that timed out may have run or not).
	Uncertain *Uncertain `json:"uncertain,omitempty"`
	// CallsMaybeRun counts the calls that failed in a way that may have
	// let them run on the server all the same (a timeout, a broken
	// connection): each may have charged its caller, and a retry after it
	// charges the caller twice.
	CallsMaybeRun int64 `json:"calls_maybe_run"`

	// Timeline is the run in bins of 100ms or more.
	Timeline *FaultTimeline `json:"timeline,omitempty"`
	// Notes says what a reader must know about these figures.
	Notes []string `json:"notes,omitempty"`
}

// FaultWindow is one scheduled fault: what was scheduled, what was seen,
// and the figures of its window and of the recovery after it.
type FaultWindow struct {
	Kind string `json:"kind"`
	// Unscheduled marks what nobody scheduled but the server's watch saw
	// (a FLUSHALL or keys deleted by another client, evictions, a
	// restart, a stall, connections closed by the server): its observed
	// start and end are the glances around it, and its errors are left out
	// of the error budget as a scheduled fault's are.
	Unscheduled bool `json:"unscheduled,omitempty"`
	// AddMs, JitterMs (latency) and RateKBps (bandwidth) are its
	// parameters.
	AddMs    float64 `json:"add_ms,omitempty"`
	JitterMs float64 `json:"jitter_ms,omitempty"`
	RateKBps int64   `json:"rate_kbps,omitempty"`
	// ScheduledStartMs and ScheduledEndMs are when the profile put it;
	// InjectedMs when rlbench began to inject it (later only when the
	// machine kept it from doing so on time). All three are zero for an
	// unscheduled window.
	ScheduledStartMs int64 `json:"scheduled_start_ms"`
	ScheduledEndMs   int64 `json:"scheduled_end_ms"`
	InjectedMs       int64 `json:"injected_ms"`
	// ObservedStartMs and ObservedEndMs are when it was seen to take and
	// to let go: from the server's own clock where the server can say
	// (the TIME of the command that paused or froze it, the first answer
	// of a server that came back), else from a probe that sent TIME every
	// few milliseconds along the limiter's path.
	ObservedStartMs int64 `json:"observed_start_ms"`
	ObservedEndMs   int64 `json:"observed_end_ms"`
	// Server is what the server reported about it.
	Server string `json:"server"`
	// Error says why the fault could not be injected, if it could not.
	Error string `json:"error,omitempty"`

	// Window covers the fault from its scheduled start to its end (the
	// later of the scheduled and the observed end); Recovery from there
	// until decisions were normal again: a bin of 100ms without errors
	// and with a p99 back near what it was before the first fault.
	Window   FaultFigures `json:"window"`
	Recovery FaultFigures `json:"recovery"`
	// RecoveryMs is how long the recovery took; Recovered is false when
	// decisions were not normal again before the next fault or the end.
	RecoveryMs int64 `json:"recovery_ms"`
	Recovered  bool  `json:"recovered"`

	// ServerCalls counts the limiter's command on the server (INFO
	// commandstats, read right before the fault and right after it, and
	// around each restart, never across one) and ClientCalls the calls
	// the caller made over the same span; per decision, they say how
	// much a retry storm added to the outage.
	ServerCalls            int64      `json:"server_calls"`
	ClientCalls            int64      `json:"client_calls"`
	ServerCallsPerDecision float64    `json:"server_calls_per_decision"`
	ClientCallsPerDecision float64    `json:"client_calls_per_decision"`
	ServerCallsUnavailable string     `json:"server_calls_unavailable,omitempty"`
	ErrorLatencyUs         Latency    `json:"error_latency_us"`
	AdmittedByFault        *int64     `json:"admitted_by_fault,omitempty"`
	DeniedByFault          *int64     `json:"denied_by_fault,omitempty"`
	PolicyExcess           int64      `json:"policy_excess"`
	StateLost              *StateLoss `json:"state_lost,omitempty"`
}

// FaultFigures are the decisions of one span of a run, counted when they
// were decided.
type FaultFigures struct {
	StartMs int64 `json:"start_ms"`
	EndMs   int64 `json:"end_ms"`
	// Decisions counts the requests decided in the span, by Redis or by
	// the error policy: Allowed + Denied + Errors.
	Decisions int64 `json:"decisions"`
	Allowed   int64 `json:"allowed"`
	Denied    int64 `json:"denied"`
	Errors    int64 `json:"errors"`
	// AllowedOnError and DeniedOnError are the error policy's decisions
	// (among Errors).
	AllowedOnError int64 `json:"allowed_on_error"`
	DeniedOnError  int64 `json:"denied_on_error"`
	// Attempts counts the calls made to Redis for them, retries included.
	Attempts int64 `json:"attempts"`
	// Late counts those sent more than 1ms after they were due: workers
	// the fault held (a call waiting out its timeout, a retry) could not
	// send the requests that fell due meanwhile.
	Late int64 `json:"late,omitempty"`
}

// StateLoss is what a restart, kill or failover took from the limiter.
type StateLoss struct {
	// Identities counts the audited identities that came back with state
	// the limiter had not left them; Admitted the admissions after it that
	// a limiter that kept its state would have denied.
	Identities int64 `json:"identities"`
	Admitted   int64 `json:"admitted"`
	// MaxWindowAdmitted is the most one identity had admitted in one
	// window that spans the loss (against the bound the audit holds the
	// limiter to on either side of it).
	MaxWindowAdmitted int64 `json:"max_window_admitted"`
}

// FaultTimeline is a run with faults in bins of BinMs: what was decided in
// each bin, split by who decided, and its p99.
type FaultTimeline struct {
	BinMs int64      `json:"bin_ms"`
	Bins  []FaultBin `json:"bins"`
}

// FaultBin is one bin of a FaultTimeline; TMs is its start.
type FaultBin struct {
	TMs            int64 `json:"t_ms"`
	Allowed        int64 `json:"allowed"`
	Denied         int64 `json:"denied"`
	AllowedOnError int64 `json:"allowed_on_error"`
	DeniedOnError  int64 `json:"denied_on_error"`
	// Errors counts the calls without a decision (those the error policy
	// decided among them).
	Errors int64 `json:"errors"`
	P99Us  int64 `json:"p99_us"`
}

// Uncertain is how the audit replayed the identities that had calls whose
// outcome is unknown: each such call may have run or not, and the replay
// kept every state it may have left (a branch each) until the later
// replies told them apart.
type Uncertain struct {
	// Identities had such calls; Branched were replayed over more than
	// one possible state; GaveUp had more possible states than the replay
	// keeps, and were held to the bound from there (their decisions are
	// among Unjudged).
	Identities int64 `json:"identities"`
	Branched   int64 `json:"branched"`
	GaveUp     int64 `json:"gave_up"`
}
