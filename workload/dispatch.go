package workload

import "context"

// dispatch hands a schedule's jobs to its workers as they fall due.
type dispatch interface {
	// add hands j on, or holds it for the batch it will go out in; sent
	// is false when ctx ended first, waited counts the jobs handed on that
	// found every worker of their instance busy.
	add(ctx context.Context, j job) (sent bool, waited int64)
	// flush hands on every job held: the schedule calls it before it
	// sleeps or calls Redis itself, so nothing due waits on it.
	flush(ctx context.Context) (sent bool, waited int64)
	// close tells the workers no more jobs come (after a flush).
	close()
}

var (
	_ dispatch = queues(nil)
	_ dispatch = (*batchQueues)(nil)
)

// add implements dispatch: each job goes to a worker as it comes.
func (q queues) add(ctx context.Context, j job) (bool, int64) {
	sent, waited := q.send(ctx, j)
	if waited {
		return sent, 1
	}
	return sent, 0
}

// flush implements dispatch: queues hold nothing.
func (q queues) flush(context.Context) (bool, int64) { return true, 0 }

// batchQueues hand a pipelined schedule's jobs to its connections in
// batches: the jobs that fall due together (those the schedule finds due
// when it wakes, up to a batch) go to one connection at once, as one
// pipeline. Handed on one by one, each job woke a connection of its own
// and went out alone, so a pipelined open loop cost rlbench a round trip
// and a wake-up per request, as an unpipelined one does.
type batchQueues struct {
	q    []chan []job
	held [][]job
	// free recycles the batches the connections are done with.
	free chan []job
	max  int
}

// newBatchQueues makes n queues, each holding up to size batches of up to
// max jobs.
func newBatchQueues(n, size, max int) *batchQueues {
	b := &batchQueues{q: make([]chan []job, n), held: make([][]job, n), free: make(chan []job, n*size+n), max: max}
	for i := range b.q {
		b.q[i] = make(chan []job, size)
	}
	return b
}

// of is the queue worker takes its batches from.
func (b *batchQueues) of(worker int) chan []job { return b.q[worker%len(b.q)] }

// add implements dispatch: j joins its instance's batch, which goes out
// once full.
func (b *batchQueues) add(ctx context.Context, j job) (bool, int64) {
	i := j.instance % len(b.q)
	if b.held[i] == nil {
		b.held[i] = b.batch()
	}
	b.held[i] = append(b.held[i], j)
	if len(b.held[i]) < b.max {
		return true, 0
	}
	return b.hand(ctx, i)
}

// flush implements dispatch.
func (b *batchQueues) flush(ctx context.Context) (sent bool, waited int64) {
	sent = true
	for i := range b.held {
		if len(b.held[i]) == 0 {
			continue
		}
		ok, w := b.hand(ctx, i)
		sent, waited = sent && ok, waited+w
	}
	return sent, waited
}

// hand gives instance i's batch to a connection, waiting for one to be
// free (every job of the batch waited); sent is false when ctx ended
// first, and the batch is dropped.
func (b *batchQueues) hand(ctx context.Context, i int) (bool, int64) {
	batch := b.held[i]
	b.held[i] = nil
	select {
	case b.q[i] <- batch:
		return true, 0
	default:
	}
	select {
	case b.q[i] <- batch:
		return true, int64(len(batch))
	case <-ctx.Done():
		return false, int64(len(batch))
	}
}

// batch is an empty batch, recycled when one is free.
func (b *batchQueues) batch() []job {
	select {
	case s := <-b.free:
		return s[:0]
	default:
		return make([]job, 0, b.max)
	}
}

// done takes back a batch a connection has sent.
func (b *batchQueues) done(s []job) {
	select {
	case b.free <- s:
	default:
	}
}

// close implements dispatch.
func (b *batchQueues) close() {
	for _, c := range b.q {
		close(c)
	}
}
