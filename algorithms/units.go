package algorithms

import "context"

// unitsKey is the context key of the units one request asks for.
type unitsKey struct{}

// WithUnits returns ctx carrying the units the one request called with it
// asks for, when its caller sets each request's cost (a trace that says
// what each request weighed): a limiter told its cost (a declared limiter
// one of whose arguments passes ${cost}) asks for them instead of drawing
// its own, and its decision keeps them (Decision.Cost). A limiter that
// decides one unit per request (every built-in) is not told its cost, and
// ignores them. Zero or less leaves the limiter's own cost. A caller that
// wraps the limiter (retrying it, say) passes them on with the context.
func WithUnits(ctx context.Context, units int64) context.Context {
	if units <= 0 {
		return ctx
	}
	return context.WithValue(ctx, unitsKey{}, units)
}

// UnitsFrom is the units ctx carries (WithUnits); zero when it carries
// none, which leaves the limiter its own cost.
func UnitsFrom(ctx context.Context) int64 {
	u, _ := ctx.Value(unitsKey{}).(int64)
	return u
}
