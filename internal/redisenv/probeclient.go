package redisenv

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// ProbeClient runs the probes' steps on the run's client until one fails
// because its connection broke, and from then on on a client of its own
// with one freshly dialled connection. After CLIENT KILL, a restart or a
// failover every pooled connection may be dead (rlbench's dialer hides the
// socket from go-redis, so nothing checks them before use), and each dead
// one would fail a step; the probes must not give up on the first.
type ProbeClient struct {
	shared redis.UniversalClient
	fresh  redis.UniversalClient
}

// NewProbeClient probes through rdb first.
func NewProbeClient(rdb redis.UniversalClient) *ProbeClient { return &ProbeClient{shared: rdb} }

// Do runs step, and runs it again on a fresh connection when its
// connection broke (not when Redis answered with an error, nor when ctx
// ended). A step that is tried again starts over, so it must not keep
// what it counted on the way.
func (p *ProbeClient) Do(ctx context.Context, step func(redis.Cmdable) error) error {
	if p.fresh != nil {
		return step(p.fresh)
	}
	err := step(p.shared)
	if err == nil || ctx.Err() != nil || !connectionBroke(err) {
		return err
	}
	if p.fresh = freshClient(p.shared); p.fresh == nil {
		return err
	}
	if err2 := step(p.fresh); err2 != nil {
		return fmt.Errorf("%w; again on a fresh connection: %w", err, err2)
	}
	return nil
}

// freshClient is a client like rdb with a pool of one connection per
// server, dialled anew; nil for a client of a kind it does not know.
func freshClient(rdb redis.UniversalClient) redis.UniversalClient {
	switch c := rdb.(type) {
	case *redis.Client:
		return CloneClient(c, func(o *redis.Options) { o.PoolSize, o.MinIdleConns, o.MaxIdleConns = 1, 0, 1 })
	case *redis.ClusterClient:
		o := *c.Options()
		o.PoolSize, o.MinIdleConns, o.MaxIdleConns = 1, 0, 1
		return redis.NewClusterClient(&o)
	}
	return nil
}

// Close closes the fresh client, if one was made.
func (p *ProbeClient) Close() {
	if p.fresh != nil {
		_ = p.fresh.Close()
	}
}

// connectionBroke reports whether err says the connection failed under a
// call (the server closed or reset it, or it stopped answering), rather
// than that the server answered with an error.
func connectionBroke(err error) bool {
	var reply redis.Error
	if errors.As(err, &reply) {
		return false
	}
	switch ErrorKind(err) {
	case KindEOF, KindReset, KindTimeout:
		return true
	}
	return false
}
