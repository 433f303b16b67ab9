package event

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/result"
)

// Offset is how far Redis TIME is ahead of the local clock, as estimated
// from TIME round trips. A server instant s happens locally at s - Offset,
// give or take Uncertainty. The zero Offset takes the two clocks for one.
type Offset struct {
	// Offset is server time minus local time.
	Offset time.Duration
	// Uncertainty bounds the estimate's error: the server read its clock
	// somewhere within the round trip, so half the round trip, plus the
	// microsecond TIME rounds down to.
	Uncertainty time.Duration
	// RTT is the round trip the estimate came from, the shortest seen.
	RTT time.Duration
	// Samples is how many round trips were made.
	Samples int
}

// DefaultOffsetSamples is how many TIME round trips an estimate makes: the
// shortest of a dozen or so is close to the unloaded round trip.
const DefaultOffsetSamples = 16

// ServerClock is what an estimate needs from Redis. *redis.Client has it.
type ServerClock interface {
	Time(ctx context.Context) *redis.TimeCmd
}

// EstimateOffset asks the server for TIME samples times and keeps the
// round trip with the smallest duration: the less time the request spent
// in flight, the less room there is for where in it the server read its
// clock.
func EstimateOffset(ctx context.Context, srv ServerClock, clock Clock, samples int) (Offset, error) {
	best := Offset{Samples: samples}
	for i := 0; i < samples; i++ {
		before := clock.Now()
		server, err := srv.Time(ctx).Result()
		after := clock.Now()
		if err != nil {
			return Offset{}, fmt.Errorf("reading Redis TIME to align the schedule with server time: %w", err)
		}
		rtt := after.Sub(before)
		if i == 0 || rtt < best.RTT {
			best.RTT = rtt
			best.Offset = server.Sub(before.Add(rtt / 2))
			best.Uncertainty = rtt/2 + time.Microsecond
		}
	}
	return best, nil
}

// LocalTime is when server instant serverMicros happens on the local clock.
func (c Offset) LocalTime(serverMicros int64) time.Time {
	return time.UnixMicro(serverMicros).Add(-c.Offset)
}

// ServerMicros is the server instant, in microseconds, of local time t.
func (c Offset) ServerMicros(t time.Time) int64 {
	return t.Add(c.Offset).UnixMicro()
}

// Contract is the estimate as the result records it.
func (c Offset) Contract() *result.ClockOffset {
	return &result.ClockOffset{
		OffsetUs:      c.Offset.Microseconds(),
		UncertaintyUs: c.Uncertainty.Microseconds(),
		RTTUs:         c.RTT.Microseconds(),
		Samples:       c.Samples,
	}
}
