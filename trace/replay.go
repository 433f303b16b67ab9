package trace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"time"
)

// Arrival is one request of a replay.
type Arrival struct {
	// Due is when it is due, from the replay's start.
	Due time.Duration
	// Identity numbers its caller: 0 to Summary.Identities-1, in the order
	// the part first shows them.
	Identity uint64
	// Units is how many units it asks for; 0 when the trace has no cost
	// column (the run's cost).
	Units int64
}

// replayBatch is how many arrivals the reader hands over at once, and
// replayBatches how many batches may wait: what a replay holds beyond the
// reader's own buffers.
const (
	replayBatch   = 1024
	replayBatches = 8
)

// Replay hands out a trace's requests in due order, read ahead by a
// goroutine of its own (the reading and parsing take no time from
// whoever paces the requests). Next is for one goroutine.
type Replay struct {
	batches chan []Arrival
	free    chan []Arrival
	cur     []Arrival
	at      int
	cancel  context.CancelFunc
	done    chan struct{}
	once    sync.Once
	// err is the reader's, set before batches is closed.
	err error
}

// Replay starts a replay of the part s summarizes, at speed times the
// trace's pace (2: twice as fast), over and over when loop is set (each
// pass one Period after the last). The file must be the one Scan read: a
// file changed since fails the replay. Close it when done.
func (s *Summary) Replay(ctx context.Context, speed float64, loop bool) (*Replay, error) {
	if !(speed > 0) || math.IsInf(speed, 0) {
		return nil, fmt.Errorf("speed %v: want a positive number", speed)
	}
	r, err := s.reopen(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	rp := &Replay{batches: make(chan []Arrival, replayBatches), free: make(chan []Arrival, replayBatches+2), cancel: cancel, done: make(chan struct{})}
	go rp.produce(ctx, s, r, speed, loop)
	return rp, nil
}

// reopen opens the summarized file again, checking it is the same.
func (s *Summary) reopen(ctx context.Context) (*reader, error) {
	r, err := openReader(ctx, s.Spec, false)
	if err != nil {
		return nil, err
	}
	if r.file.stamp != s.stamp {
		r.Close()
		return nil, &LineError{File: s.Spec.File, Msg: "changed since it was checked (its size or time of writing differ): run again"}
	}
	return r, nil
}

// produce reads the trace pass after pass and hands its arrivals over in
// batches, until the end (or, looping, until the replay is closed).
func (rp *Replay) produce(ctx context.Context, s *Summary, r *reader, speed float64, loop bool) {
	defer close(rp.done)
	defer close(rp.batches)
	batch := make([]Arrival, 0, replayBatch)
	send := func() bool {
		select {
		case rp.batches <- batch:
		case <-ctx.Done():
			return false
		}
		select {
		case batch = <-rp.free:
			batch = batch[:0]
		default:
			batch = make([]Arrival, 0, replayBatch)
		}
		return true
	}
	origin := s.Origin.UnixNano()
	end := int64(math.MaxInt64)
	if s.Part.Duration > 0 {
		end = addClamped(origin, s.Part.Duration)
	}
	for pass := int64(0); ; pass++ {
		if pass > 0 {
			var err error
			if r, err = s.reopen(ctx); err != nil {
				rp.err = err
				break
			}
		}
		err := rp.pass(s, r, origin, end, float64(pass)*s.Period.Seconds(), speed, &batch, send)
		r.Close()
		if err != nil {
			// A replay closed (or whose context ended) stops where it
			// is: that is no failure of the trace's.
			if ctx.Err() == nil {
				rp.err = err
			}
			break
		}
		if !loop || ctx.Err() != nil {
			break
		}
	}
	if len(batch) > 0 && rp.err == nil {
		send()
	}
}

// errStopped ends a pass whose replay was closed.
var errStopped = errors.New("replay closed")

// pass reads one pass over the part, its times offset by offsetS seconds
// of the trace's time.
func (rp *Replay) pass(s *Summary, r *reader, origin, end int64, offsetS, speed float64, batch *[]Arrival, send func() bool) error {
	var e entry
	for {
		err := r.next(&e)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if e.ns < origin {
			continue
		}
		if e.ns >= end {
			return nil
		}
		id, ok := s.ids[e.hash]
		if !ok {
			return &LineError{File: s.Spec.File, Line: e.line, Msg: "an identity the trace did not have when it was checked: it changed since"}
		}
		due := (float64(e.ns-origin)/1e9 + offsetS) / speed
		*batch = append(*batch, Arrival{Due: secondsToDuration(due), Identity: uint64(id), Units: e.cost})
		if len(*batch) == cap(*batch) && !send() {
			return errStopped
		}
	}
}

// Next reads the next arrival into a; it reports false after the last, or
// when the replay failed (Err says why) or was closed.
func (rp *Replay) Next(a *Arrival) bool {
	for rp.at >= len(rp.cur) {
		if rp.cur != nil {
			select {
			case rp.free <- rp.cur:
			default:
			}
		}
		b, ok := <-rp.batches
		if !ok {
			rp.cur = nil
			return false
		}
		rp.cur, rp.at = b, 0
	}
	*a = rp.cur[rp.at]
	rp.at++
	return true
}

// Err is why the replay ended before the trace's end, once Next has
// reported false; nil at the end of the trace, or after Close.
func (rp *Replay) Err() error {
	select {
	case <-rp.done:
		return rp.err
	default:
		return nil
	}
}

// Close stops the replay and closes its file.
func (rp *Replay) Close() {
	rp.once.Do(func() {
		rp.cancel()
		for range rp.batches {
		}
		<-rp.done
	})
}

// secondsToDuration converts seconds to a Duration, the latest one holds
// when it is too far away.
func secondsToDuration(s float64) time.Duration {
	ns := s * float64(time.Second)
	if !(ns < math.MaxInt64) {
		return math.MaxInt64
	}
	return time.Duration(ns)
}
