package faults

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/redisenv"
)

// The probe that watches a run's faults from the server's side: a
// connection of its own, along the limiter's path (through the proxy when
// there is one), asking TIME every heartbeatInterval. A paused or frozen
// server answers it late, with the instant it woke; a dead one does not
// answer; a slow network delays it. Its samples place each fault's
// observed start and end.
const (
	heartbeatInterval = 5 * time.Millisecond
	// maxHeartbeats bounds what one run keeps (over 8 minutes of samples).
	maxHeartbeats = 100_000
)

// beat is one TIME round trip.
type beat struct {
	sent, recv time.Time
	// serverUs is the server's TIME, when it answered.
	serverUs int64
	ok       bool
}

func (b beat) rtt() time.Duration { return b.recv.Sub(b.sent) }

// heartbeat samples TIME until stopped, on a client of its own, which it
// replaces after a refused connection (a go-redis pool stops dialling for
// up to a second after one failed dial of its only connection).
type heartbeat struct {
	rdb       *redis.Client
	newClient func() *redis.Client
	clock     event.Clock
	mu        sync.Mutex
	beats     []beat
	stop      chan struct{}
	done      chan struct{}
}

// startHeartbeat starts sampling over clients newClient makes (of one
// connection each).
func startHeartbeat(newClient func() *redis.Client, clock event.Clock) *heartbeat {
	h := &heartbeat{rdb: newClient(), newClient: newClient, clock: clock, stop: make(chan struct{}), done: make(chan struct{})}
	go h.run()
	return h
}

func (h *heartbeat) run() {
	defer close(h.done)
	defer func() { _ = h.rdb.Close() }()
	t := time.NewTicker(heartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
		b := beat{sent: h.clock.Now()}
		ts, err := h.rdb.Time(context.Background()).Result()
		b.recv = h.clock.Now()
		switch {
		case err == nil:
			b.ok, b.serverUs = true, ts.UnixMicro()
		case redisenv.ErrorKind(err) == redisenv.KindRefused:
			_ = h.rdb.Close()
			h.rdb = h.newClient()
		}
		h.mu.Lock()
		if len(h.beats) < maxHeartbeats {
			h.beats = append(h.beats, b)
		}
		h.mu.Unlock()
	}
}

// halt stops sampling and waits for the probe's last call.
func (h *heartbeat) halt() {
	select {
	case <-h.stop:
	default:
		close(h.stop)
	}
	<-h.done
}

// samples is a copy of what was sampled so far.
func (h *heartbeat) samples() []beat {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.beats)
}

// lastAnsweredBefore is the last answer that came back by t.
func lastAnsweredBefore(beats []beat, t time.Time) (beat, bool) {
	for i := len(beats) - 1; i >= 0; i-- {
		if b := beats[i]; b.ok && !b.recv.After(t) {
			return b, true
		}
	}
	return beat{}, false
}

// firstAnsweredAfter is the first answer to a call sent at or after t.
func firstAnsweredAfter(beats []beat, t time.Time) (beat, bool) {
	for _, b := range beats {
		if b.ok && !b.sent.Before(t) {
			return b, true
		}
	}
	return beat{}, false
}

// normalRTT is the longest round trip a sample may take and count as
// unaffected: five times the median before from (the first fault), and
// at least 2ms.
func normalRTT(beats []beat, from time.Time) time.Duration {
	var rtts []time.Duration
	for _, b := range beats {
		if b.ok && b.recv.Before(from) {
			rtts = append(rtts, b.rtt())
		}
	}
	if len(rtts) == 0 {
		return 2 * time.Millisecond
	}
	slices.Sort(rtts)
	return max(5*rtts[len(rtts)/2], 2*time.Millisecond)
}

// affected finds, among the samples sent from from on, the first one the
// fault affected (no answer, or an answer slower than normal) and the end
// of the last affected one before the first unaffected sample sent after
// until; ok is false when no sample was affected.
func affected(beats []beat, from, until time.Time, normal time.Duration) (start, end time.Time, ok bool) {
	for _, b := range beats {
		if b.sent.Before(from) && b.recv.Before(from) {
			continue
		}
		hit := !b.ok || b.rtt() > normal
		switch {
		case hit && !ok:
			start, end, ok = maxTime(b.sent, from), b.recv, true
		case hit:
			end = maxTime(end, b.recv)
		case ok && !b.sent.Before(until):
			return start, end, true
		}
	}
	return start, end, ok
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
