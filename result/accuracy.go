package result

import (
	"fmt"
	"math"
)

// The ideal limiters a run's decisions may be set beside (Accuracy.Ideal),
// as profiles name them.
const (
	IdealSlidingWindow = "sliding_window"
	IdealTokenBucket   = "token_bucket"
)

// Accuracy is how a run's limiter decided beside the ideal limiter of its
// policy (an exact sliding window of limit per window, or the token
// bucket of its burst): each audited identity's arrivals — the times its
// calls ran, on the true clock — fed to the ideal in time order, the
// ideal keeping its own state, and each of the limiter's decisions set
// beside the ideal's. The ideal decides on the arrivals, not on what the
// limiter admitted, as Cloudflare measured its sliding-window counter: a
// limiter that admitted a request the ideal denies has not thereby used
// up the ideal's room.
//
// Decisions a fault may explain are counted apart (FaultDecisions): those
// within the ideal's memory (a window; the time a bucket takes to refill
// from empty) after a loss of the limiter's state or a reset seen on the
// server, and after a call of the identity whose outcome is unknown, which
// the ideal is fed as an arrival but the limiter may never have run. The
// ideal itself never loses its state.
type Accuracy struct {
	// Ideal names the ideal limiter: IdealSlidingWindow or
	// IdealTokenBucket.
	Ideal string `json:"ideal"`
	// Identities is how many identities were compared; Sampled says they
	// are the audit's sample of the run's.
	Identities int64 `json:"identities"`
	Sampled    bool  `json:"sampled"`
	// ExactTimes says every decision compared carried the server time it
	// was made at; otherwise some (a limiter whose reply carries no server
	// time, or one timed by its caller) were placed at the middle of their
	// round trip, and a decision within half a round trip of the ideal's
	// own edge may count as wrong by timing alone.
	ExactTimes bool `json:"exact_times"`
	// Decisions counts the decisions compared (those FaultDecisions
	// counts are not among them).
	Decisions int64 `json:"decisions"`
	// FalseAdmits counts the decisions the limiter admitted and the ideal
	// denies, FalseDenies those it denied and the ideal admits; the units
	// they asked for (one each unless the scenario gives a cost) are
	// FalseAdmitUnits and FalseDenyUnits.
	FalseAdmits     int64 `json:"false_admits"`
	FalseDenies     int64 `json:"false_denies"`
	FalseAdmitUnits int64 `json:"false_admit_units"`
	FalseDenyUnits  int64 `json:"false_deny_units"`
	// FalseAdmitShare, FalseDenyShare and WrongShare are FalseAdmits,
	// FalseDenies and both over Decisions, 0 to 1: WrongShare is
	// Cloudflare's "share of requests wrongly allowed or rate limited".
	FalseAdmitShare float64 `json:"false_admit_share"`
	FalseDenyShare  float64 `json:"false_deny_share"`
	WrongShare      float64 `json:"wrong_share"`
	// WorstIdentity is the identity with the most units falsely admitted
	// (the lowest number of those that tie); nil when none was.
	WorstIdentity *WorstIdentity `json:"worst_identity,omitempty"`
	// NearThresholdIdentities counts the identities near the policy's
	// threshold: the most units one of them offered within any interval
	// of the policy's window (every arrival, admitted or not) lies from
	// half the limit to twice it. NearThresholdRateDiff is, over them, the
	// mean of |units the limiter admitted - units the ideal admits| / units
	// the ideal admits, 0 to any (0.06: their admitted rate was 6% off the
	// policy's, on average), as Cloudflare's "average difference between
	// the real rate and the approximate rate"; 0 when there are none.
	NearThresholdIdentities int64   `json:"near_threshold_identities"`
	NearThresholdRateDiff   float64 `json:"near_threshold_rate_diff"`
	// BelowThresholdIdentities counts the identities the ideal admitted
	// every compared request of (they never passed the policy), and
	// LimitedBelowThreshold those of them the limiter denied a request
	// of: Cloudflare's false positives, sources limited while below the
	// threshold. AboveThresholdIdentities are the others (the ideal
	// denied some request of each), UnlimitedAboveThreshold those of them
	// the limiter denied nothing: its false negatives.
	BelowThresholdIdentities int64 `json:"below_threshold_identities"`
	LimitedBelowThreshold    int64 `json:"limited_below_threshold"`
	AboveThresholdIdentities int64 `json:"above_threshold_identities"`
	UnlimitedAboveThreshold  int64 `json:"unlimited_above_threshold"`
	// FaultDecisions counts the decisions left out because a fault may
	// explain them (see Accuracy), FaultWrong those of them decided
	// otherwise than the ideal; UnknownOutcomes the calls whose outcome is
	// unknown, fed to the ideal as arrivals and judged never.
	FaultDecisions  int64 `json:"fault_decisions"`
	FaultWrong      int64 `json:"fault_wrong"`
	UnknownOutcomes int64 `json:"unknown_outcomes"`
}

// WorstIdentity is the identity a limiter admitted the most past its
// ideal.
type WorstIdentity struct {
	// Identity is its number in the run (0 to identities-1).
	Identity int64 `json:"identity"`
	// Decisions, FalseAdmits and FalseDenies are its compared decisions
	// and the wrong ones; FalseAdmitUnits the units falsely admitted.
	Decisions       int64 `json:"decisions"`
	FalseAdmits     int64 `json:"false_admits"`
	FalseDenies     int64 `json:"false_denies"`
	FalseAdmitUnits int64 `json:"false_admit_units"`
	// AdmittedUnits and IdealAdmittedUnits are what the limiter admitted
	// of its compared requests and what the ideal admits of them, and
	// ExcessShare is their difference over the ideal's: how far past the
	// policy's rate the limiter let it (0.12: 12% more than the policy
	// allows; negative when its false denies outweigh its false admits).
	AdmittedUnits      int64   `json:"admitted_units"`
	IdealAdmittedUnits int64   `json:"ideal_admitted_units"`
	ExcessShare        float64 `json:"excess_share"`
}

// SetShares sets the shares from the counts.
func (a *Accuracy) SetShares() {
	a.FalseAdmitShare, a.FalseDenyShare, a.WrongShare = 0, 0, 0
	if a.Decisions > 0 {
		d := float64(a.Decisions)
		a.FalseAdmitShare = float64(a.FalseAdmits) / d
		a.FalseDenyShare = float64(a.FalseDenies) / d
		a.WrongShare = float64(a.FalseAdmits+a.FalseDenies) / d
	}
}

// Wrong is how many compared decisions the limiter decided otherwise than
// the ideal.
func (a *Accuracy) Wrong() int64 { return a.FalseAdmits + a.FalseDenies }

// shareTolerance is how far a share may be from its counts over the
// decisions: what a float64 written and read as JSON keeps.
const shareTolerance = 1e-9

// check says what in a is impossible: counts past what they count
// within, shares not those of its counts, an ideal nobody names.
func (a *Accuracy) check() error {
	switch {
	case a.Ideal != IdealSlidingWindow && a.Ideal != IdealTokenBucket:
		return fmt.Errorf("accuracy.ideal %q: want %s or %s", a.Ideal, IdealSlidingWindow, IdealTokenBucket)
	case a.FalseAdmits+a.FalseDenies > a.Decisions:
		return fmt.Errorf("accuracy.false_admits %d + false_denies %d is more than decisions %d", a.FalseAdmits, a.FalseDenies, a.Decisions)
	case a.FalseAdmitUnits < a.FalseAdmits || a.FalseDenyUnits < a.FalseDenies:
		return fmt.Errorf("accuracy.false_admit_units %d or false_deny_units %d is less than the decisions they count (%d, %d)",
			a.FalseAdmitUnits, a.FalseDenyUnits, a.FalseAdmits, a.FalseDenies)
	case a.FaultWrong > a.FaultDecisions:
		return fmt.Errorf("accuracy.fault_wrong %d is more than fault_decisions %d", a.FaultWrong, a.FaultDecisions)
	case a.LimitedBelowThreshold > a.BelowThresholdIdentities || a.UnlimitedAboveThreshold > a.AboveThresholdIdentities:
		return fmt.Errorf("accuracy.limited_below_threshold %d or unlimited_above_threshold %d is more than the identities below (%d) or above (%d) the threshold",
			a.LimitedBelowThreshold, a.UnlimitedAboveThreshold, a.BelowThresholdIdentities, a.AboveThresholdIdentities)
	case a.BelowThresholdIdentities+a.AboveThresholdIdentities > a.Identities || a.NearThresholdIdentities > a.Identities:
		return fmt.Errorf("accuracy: identities below %d and above %d the threshold, or %d near it, are more than the %d compared",
			a.BelowThresholdIdentities, a.AboveThresholdIdentities, a.NearThresholdIdentities, a.Identities)
	}
	var want Accuracy
	want.Decisions, want.FalseAdmits, want.FalseDenies = a.Decisions, a.FalseAdmits, a.FalseDenies
	want.SetShares()
	for _, s := range []struct {
		name      string
		got, want float64
	}{
		{"false_admit_share", a.FalseAdmitShare, want.FalseAdmitShare},
		{"false_deny_share", a.FalseDenyShare, want.FalseDenyShare},
		{"wrong_share", a.WrongShare, want.WrongShare},
	} {
		if math.IsNaN(s.got) || math.Abs(s.got-s.want) > shareTolerance {
			return fmt.Errorf("accuracy.%s %v is not its count over decisions (%v)", s.name, s.got, s.want)
		}
	}
	if w := a.WorstIdentity; w != nil {
		switch {
		case w.FalseAdmits > a.FalseAdmits || w.FalseDenies > a.FalseDenies || w.Decisions > a.Decisions:
			return fmt.Errorf("accuracy.worst_identity has more decisions (%d) or wrong ones (%d, %d) than the run (%d, %d, %d)",
				w.Decisions, w.FalseAdmits, w.FalseDenies, a.Decisions, a.FalseAdmits, a.FalseDenies)
		case w.FalseAdmits+w.FalseDenies > w.Decisions:
			return fmt.Errorf("accuracy.worst_identity.false_admits %d + false_denies %d is more than its decisions %d", w.FalseAdmits, w.FalseDenies, w.Decisions)
		}
	}
	return nil
}
