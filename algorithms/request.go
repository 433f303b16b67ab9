package algorithms

// Request is what one request carried besides its key: the units it asked
// for and the clock reading its time templates were filled from. A
// pipelined limiter hands it from the command it appends to the reading of
// the reply (Pipelined), which needs both: a reply may say "allowed" by
// echoing the cost, and the decision keeps them.
type Request struct {
	// Cost is how many units the request asked for; zero reads as one.
	Cost int64
	// NowMicros is the caller's clock, in microseconds since the epoch,
	// when the request's time templates were filled in; zero when it has
	// none.
	NowMicros int64
	// SkewMicros is how far the caller's clock was ahead of the true time
	// when NowMicros was read (CallerClock); zero for a caller on the true
	// clock.
	SkewMicros int64
	// Limit is the policy's limit the request was made under, against
	// which a reply that answers a count is read (AllowedCount); zero when
	// not given.
	Limit int64
}

// units is the cost, one when unset.
func (r Request) units() int64 { return unitsOf(r.Cost) }

// unitsOf is a cost as units: one when unset.
func unitsOf(cost int64) int64 {
	if cost > 0 {
		return cost
	}
	return 1
}
