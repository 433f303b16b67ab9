package arrivals

import (
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/rlbench/rlbench/plan"
)

// zipfStream is the PCG stream Zipf draws from; other pickers use their
// own, so two distributions with one seed are not correlated.
const zipfStream = 0x7f4a7c159e3779b9

// Zipf draws identities 0..count-1 from a Zipf distribution with exponent
// s > 1, identity 0 the most frequent. It holds O(1) state whatever count is
// (math/rand/v2's rejection-inversion sampler): no per-identity table. It is
// not safe for concurrent use: wrap it with Shared.
type Zipf struct{ z *rand.Zipf }

var _ IdentityPicker = (*Zipf)(nil)

// NewZipf draws from count identities with exponent s and the given seed.
func NewZipf(count uint64, s float64, seed int64) (*Zipf, error) {
	if count == 0 {
		return nil, fmt.Errorf("zipf over no identities")
	}
	// rand.NewZipf also refuses NaN, which fails every comparison.
	z := rand.NewZipf(rand.New(rand.NewPCG(uint64(seed), zipfStream)), s, 1, count-1)
	if z == nil {
		return nil, fmt.Errorf("zipf exponent must be more than 1, got %v", s)
	}
	return &Zipf{z: z}, nil
}

// Pick implements IdentityPicker.
func (z *Zipf) Pick(uint64) uint64 { return z.z.Uint64() }

// Sequential sends identities 0..Count-1 one request each, in order; the
// requests after that come from Then (say, a Zipf head) or, when Then is
// nil, start over from identity 0.
type Sequential struct {
	Count uint64
	Then  IdentityPicker
}

var _ IdentityPicker = Sequential{}

// Pick implements IdentityPicker.
func (s Sequential) Pick(n uint64) uint64 {
	if n < s.Count || s.Then == nil {
		return n % s.Count
	}
	return s.Then.Pick(n)
}

// Shared makes p safe for many goroutines: RoundRobin already is, any other
// picker is called under a lock. The lock costs tens of nanoseconds per
// request, nothing beside a Redis round trip, and keeps the sequence of
// identities drawn a function of the seed alone.
func Shared(p IdentityPicker) IdentityPicker {
	switch p := p.(type) {
	case RoundRobin:
		return p
	case Sequential:
		if p.Then == nil {
			return p
		}
	}
	return &lockedPicker{p: p}
}

type lockedPicker struct {
	mu sync.Mutex
	p  IdentityPicker
}

var _ IdentityPicker = (*lockedPicker)(nil)

func (l *lockedPicker) Pick(n uint64) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.p.Pick(n)
}

// NewPicker builds the identity picker run s asks for; a zero Zipf
// exponent means plan.DefaultZipfExponent.
func NewPicker(s plan.Run, seed int64) (IdentityPicker, error) {
	count := uint64(s.Identities)
	if count == 0 {
		return nil, fmt.Errorf("scenario %s has no identities", s.Scenario)
	}
	exponent := s.ZipfExponent
	if exponent == 0 {
		exponent = plan.DefaultZipfExponent
	}
	if s.Shape != plan.ShapeCardinality && s.Distribution == "" {
		// Identities follow the arrivals: in turn for uniform arrivals,
		// at random for Poisson ones.
		if s.Arrival == plan.Poisson {
			return NewRandomPicker(count, seed), nil
		}
		return RoundRobin{Count: count}, nil
	}
	switch s.Distribution {
	case plan.ZipfIdentities:
		z, err := NewZipf(count, exponent, seed)
		if err != nil {
			return nil, err
		}
		return z, nil
	case plan.SequentialIdentities:
		seq := Sequential{Count: count}
		if s.Repeats > 0 {
			z, err := NewZipf(count, exponent, seed)
			if err != nil {
				return nil, err
			}
			seq.Then = z
		}
		return seq, nil
	default:
		return NewRandomPicker(count, seed), nil
	}
}
