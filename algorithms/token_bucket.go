package algorithms

import _ "embed"

// TokenBucketName is the registry name of TokenBucket.
const TokenBucketName = "token_bucket"

//go:embed token_bucket.lua
var tokenBucketLua string

// TokenBucket gives each identity a bucket of Capacity tokens refilled at
// Limit per Window; a request takes a token. An idle identity may spend the
// whole bucket at once, then gets the refill rate.
type TokenBucket struct{ scripted }

var _ Limiter = (*TokenBucket)(nil)

// NewTokenBucket binds the token-bucket script to rdb for policy p.
func NewTokenBucket(rdb Redis, p Policy) *TokenBucket {
	return &TokenBucket{newScripted(TokenBucketName, tokenBucketLua, rdb, p, p.Limit, p.WindowMicros(), p.Capacity())}
}
