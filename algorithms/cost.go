package algorithms

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Limits on a cost distribution.
const (
	// MaxCost is the most units one request may ask for.
	MaxCost = 1_000_000_000
	// MaxCostValues is the most values a weighted cost may list.
	MaxCostValues = 64
)

// Cost is how many units each request asks for: the limit of a policy then
// counts units, not requests (a request of cost 3 takes 3 of a window's
// 100). It is one value, values drawn by weight, or a whole number drawn
// uniformly from a range. The zero Cost asks for one unit per request.
type Cost struct {
	// Values are the costs a request may ask for, each drawn with
	// probability Weights[i] / the sum of Weights. One value is a fixed
	// cost.
	Values  []int64
	Weights []int64
	// Min and Max, when Max is set, draw every whole number from Min to
	// Max with equal probability instead.
	Min, Max int64
}

// FixedCost is n units for every request.
func FixedCost(n int64) Cost { return Cost{Values: []int64{n}, Weights: []int64{1}} }

// UniformCost draws each request's cost from lo to hi, inclusive.
func UniformCost(lo, hi int64) Cost { return Cost{Min: lo, Max: hi} }

// Validate reports what makes the distribution unusable.
func (c Cost) Validate() error {
	if c.Max > 0 || c.Min > 0 {
		switch {
		case len(c.Values) > 0:
			return errors.New("give either values with weights or a range, not both")
		case c.Min < 1:
			return fmt.Errorf("the range starts at %d; a request asks for at least 1 unit", c.Min)
		case c.Max < c.Min:
			return fmt.Errorf("the range %d-%d ends before it starts", c.Min, c.Max)
		case c.Max > MaxCost:
			return fmt.Errorf("the range ends at %d, more than %d units", c.Max, MaxCost)
		}
		return nil
	}
	switch {
	case len(c.Values) != len(c.Weights):
		return fmt.Errorf("%d values but %d weights", len(c.Values), len(c.Weights))
	case len(c.Values) > MaxCostValues:
		return fmt.Errorf("%d values; at most %d", len(c.Values), MaxCostValues)
	}
	for i, v := range c.Values {
		switch {
		case v < 1:
			return fmt.Errorf("cost %d: a request asks for at least 1 unit", v)
		case v > MaxCost:
			return fmt.Errorf("cost %d is more than %d units", v, MaxCost)
		case c.Weights[i] < 1:
			return fmt.Errorf("cost %d has weight %d; a weight is at least 1", v, c.Weights[i])
		case c.Weights[i] > MaxCost:
			return fmt.Errorf("cost %d has weight %d; at most %d", v, c.Weights[i], MaxCost)
		}
		for _, w := range c.Values[:i] {
			if w == v {
				return fmt.Errorf("cost %d is listed twice", v)
			}
		}
	}
	return nil
}

// IsOne reports whether every request asks for exactly one unit.
func (c Cost) IsOne() bool {
	lo, hi := c.Range()
	return lo == 1 && hi == 1
}

// Range is the least and the most units a request may ask for.
func (c Cost) Range() (lo, hi int64) {
	switch {
	case c.Max > 0:
		return c.Min, c.Max
	case len(c.Values) == 0:
		return 1, 1
	}
	lo, hi = c.Values[0], c.Values[0]
	for _, v := range c.Values[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// Mean is the units a request asks for on average.
func (c Cost) Mean() float64 {
	switch {
	case c.Max > 0:
		return float64(c.Min+c.Max) / 2
	case len(c.Values) == 0:
		return 1
	}
	var sum, weights float64
	for i, v := range c.Values {
		sum += float64(v) * float64(c.Weights[i])
		weights += float64(c.Weights[i])
	}
	return sum / weights
}

// Draw is the cost of one request, given u, a uniformly random 64-bit
// number: the same u always draws the same cost.
func (c Cost) Draw(u uint64) int64 {
	switch {
	case c.Max > 0:
		return c.Min + int64(u%uint64(c.Max-c.Min+1))
	case len(c.Values) == 0:
		return 1
	case len(c.Values) == 1:
		return c.Values[0]
	}
	var total uint64
	for _, w := range c.Weights {
		total += uint64(w)
	}
	pick := u % total
	for i, w := range c.Weights {
		if pick < uint64(w) {
			return c.Values[i]
		}
		pick -= uint64(w)
	}
	return c.Values[len(c.Values)-1]
}

// String says it as a profile writes it: "3", "uniform 1-5",
// "1 (weight 90), 5 (weight 10)".
func (c Cost) String() string {
	switch {
	case c.Max > 0:
		return fmt.Sprintf("uniform %d-%d", c.Min, c.Max)
	case len(c.Values) == 0:
		return "1"
	case len(c.Values) == 1:
		return strconv.FormatInt(c.Values[0], 10)
	}
	parts := make([]string, len(c.Values))
	for i, v := range c.Values {
		parts[i] = fmt.Sprintf("%d (weight %d)", v, c.Weights[i])
	}
	return strings.Join(parts, ", ")
}

// splitmix64 scrambles x into a uniformly distributed 64-bit number: the
// n-th draw of a seeded sequence, without a lock between the goroutines
// that draw.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
