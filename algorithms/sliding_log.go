package algorithms

import _ "embed"

// SlidingLogName is the registry name of SlidingLog.
const SlidingLogName = "sliding_log"

//go:embed sliding_log.lua
var slidingLogLua string

// SlidingLog keeps the server time of every admitted request in a sorted
// set and admits a request when fewer than Limit lie in the last Window. It
// is exact, and costs memory in proportion to Limit.
type SlidingLog struct{ scripted }

var _ Limiter = (*SlidingLog)(nil)

// NewSlidingLog binds the sliding-log script to rdb for policy p.
func NewSlidingLog(rdb Redis, p Policy) *SlidingLog {
	return &SlidingLog{newScripted(SlidingLogName, slidingLogLua, rdb, p, p.Limit, p.WindowMicros())}
}
