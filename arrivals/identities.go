package arrivals

import (
	"math/rand/v2"
)

// IdentityPicker chooses which identity request n comes from. Identities are
// numbers; keys are built from them on the fly, so no per-identity table is
// ever held.
type IdentityPicker interface {
	Pick(n uint64) uint64
}

// RoundRobin visits identities 0..Count-1 in turn, so each gets exactly its
// share of the rate. It is safe for concurrent use.
type RoundRobin struct{ Count uint64 }

var _ IdentityPicker = RoundRobin{}

// Pick implements IdentityPicker.
func (r RoundRobin) Pick(n uint64) uint64 { return n % r.Count }

// RandomPicker draws identities uniformly at random from a seeded source. It
// is not safe for concurrent use: one goroutine picks.
type RandomPicker struct {
	count uint64
	rng   *rand.Rand
}

var _ IdentityPicker = (*RandomPicker)(nil)

// NewRandomPicker draws from count identities with the given seed.
func NewRandomPicker(count uint64, seed int64) *RandomPicker {
	return &RandomPicker{count: count, rng: rand.New(rand.NewPCG(uint64(seed), 0xda3e39cb94b95bdb))}
}

// Pick implements IdentityPicker.
func (r *RandomPicker) Pick(uint64) uint64 { return r.rng.Uint64N(r.count) }
