package algorithms

import (
	"context"
	"sync/atomic"
)

// lossy is Lua a server keeps for a limiter and may lose (a script after
// SCRIPT FLUSH, a Functions library after FUNCTION FLUSH, either after a
// restart or a failover): how to put it on a server, and how to tell from
// a call's error that the server no longer has it.
type lossy interface {
	Load(ctx context.Context, rdb Redis) error
	Lost(err error) bool
}

var (
	_ lossy = (*Script)(nil)
	_ lossy = (*Function)(nil)
)

// reloads counts the times a server had lost a script or a library and it
// was loaded again.
type reloads struct{ n atomic.Int64 }

// count is the reloads so far.
func (r *reloads) count() int64 { return r.n.Load() }

// reload loads l again on rdb after the server lost it, and counts the
// reload.
func (r *reloads) reload(ctx context.Context, l lossy, rdb Redis) error {
	r.n.Add(1)
	return l.Load(ctx, rdb)
}

// run makes call, a call of l on keys through rdb. When the server answers
// that it lost l, the call did not run: l is loaded again where the call
// went (see lostOn), the reload counted, and the call made once more.
func (r *reloads) run(ctx context.Context, l lossy, rdb Redis, keys []string, call func() (any, error)) (any, error) {
	v, err := call()
	if !l.Lost(err) {
		return v, err
	}
	if err := r.reload(ctx, l, lostOn(ctx, rdb, keys)); err != nil {
		return nil, err
	}
	return call()
}
