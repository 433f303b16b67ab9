package event

import (
	"fmt"

	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/plan"
)

// StateLoss is a fault taking limiter state away, in server microseconds:
// from ResumeUs on, decisions are made by a server whose state is what the
// decisions before CutUs left (math.MinInt64: none). Fault is the index of
// the fault in the run's schedule (past its end: a switch of primary
// nobody scheduled, see Unknown).
type StateLoss struct {
	Fault           int
	CutUs, ResumeUs int64
	// Unknown says the new server's state is not known: a copy of the old
	// one's that a replica kept up to an instant nobody can tell
	// (replication is asynchronous), as when Sentinel promotes a replica.
	// Each identity's decisions from ResumeUs on are then held to the
	// bound only, until a reply makes its state known again (a window's
	// first admission, a bucket's exact level, a log window past the
	// switch).
	Unknown bool
}

// PolicyDecision is the error of a request that got no decision from
// Redis, however often it was tried: Err is the last call's error, and,
// when the caller has an error policy (Decided), Allowed is what the
// policy decided in Redis's place. The request counts among the errors;
// the policy's decision is counted apart.
type PolicyDecision struct {
	Err      error
	Attempts int
	Decided  bool
	Allowed  bool
	Policy   plan.ErrorPolicy
}

func (e *PolicyDecision) Error() string {
	if !e.Decided {
		return e.Err.Error()
	}
	verb := "denied"
	if e.Allowed {
		verb = "admitted"
	}
	return fmt.Sprintf("%s by %s after %d %s: %v", verb, e.Policy, e.Attempts, plural.Noun(e.Attempts, "call", "calls"), e.Err)
}

func (e *PolicyDecision) Unwrap() error { return e.Err }

// Reset is limiter state taken away by the server or another client at an
// instant known only to lie in (FromUs, ToUs], in server microseconds: a
// FLUSHALL, a restart nobody scheduled, keys of the run deleted or evicted.
// Every identity's state is gone when AllKeys is set; otherwise some
// identities' may be, and which is not known.
type Reset struct {
	// Kind names what took the state ("flushall", "restart", "del"...).
	Kind         string
	FromUs, ToUs int64
	AllKeys      bool
}
