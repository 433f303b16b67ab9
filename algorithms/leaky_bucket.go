package algorithms

import _ "embed"

// LeakyBucketName is the registry name of LeakyBucket.
const LeakyBucketName = "leaky_bucket"

//go:embed leaky_bucket.lua
var leakyBucketLua string

// LeakyBucket is the policing leaky bucket: each identity has a bucket of
// Capacity requests that drains at Limit per Window, and an arrival that
// would overflow it is rejected, never queued. As a meter it admits exactly
// what a token bucket of the same capacity and rate admits; it keeps the
// complementary state (how full, not how much is left).
type LeakyBucket struct{ scripted }

var _ Limiter = (*LeakyBucket)(nil)

// NewLeakyBucket binds the leaky-bucket script to rdb for policy p.
func NewLeakyBucket(rdb Redis, p Policy) *LeakyBucket {
	return &LeakyBucket{newScripted(LeakyBucketName, leakyBucketLua, rdb, p, p.Limit, p.WindowMicros(), p.Capacity())}
}
