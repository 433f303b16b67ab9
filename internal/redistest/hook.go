package redistest

import (
	"context"
	"strings"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// AfterCommands calls fn once, in a goroutine of its own, as soon as rdb
// has had replies to n commands named name (e.g. "evalsha"), alone or in
// pipelines: a test that needs something to happen mid-run (a SCRIPT
// FLUSH, a server gone, Ctrl-C) makes it happen after a given amount of
// traffic, whatever the machine's speed, rather than after a sleep.
func AfterCommands(rdb *redis.Client, name string, n int64, fn func()) {
	rdb.AddHook(&countHook{name: strings.ToLower(name), at: n, fn: fn})
}

type countHook struct {
	name  string
	at    int64
	count atomic.Int64
	fn    func()
}

func (h *countHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		h.seen(cmd)
		return err
	}
}

func (h *countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, c := range cmds {
			h.seen(c)
		}
		return err
	}
}

// seen counts cmd if it is one of the named commands, and calls fn at the
// n-th.
func (h *countHook) seen(cmd redis.Cmder) {
	if strings.ToLower(cmd.Name()) == h.name && h.count.Add(1) == h.at {
		go h.fn()
	}
}

var _ redis.Hook = (*countHook)(nil)
