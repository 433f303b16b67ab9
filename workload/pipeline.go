package workload

import (
	"context"
	"sync"
	"time"
	"unsafe"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// pipelineClient is what pipelining needs of a go-redis client: a single
// client and a cluster client both have it.
type pipelineClient interface {
	Pipeline() redis.Pipeliner
}

// pipelining is the part of a scheduler that sends requests in batches:
// each of its connections takes whatever requests are queued when it is
// free to write, up to maxBatch, and sends them in one pipeline. It is off
// (piped nil) for a pipeline of depth 1 and for a limiter whose decision
// is not one command.
type pipelining struct {
	piped    algorithms.Pipelined
	client   pipelineClient
	maxBatch int
	// reuse says each connection's commands are reused from batch to
	// batch: a command of a cluster client keeps the slot of its first
	// key, so there each request has a command of its own.
	reuse bool

	statsMu sync.Mutex
	stats   batchStats
}

// batchStats count the batches a run's pipelines sent.
type batchStats struct {
	batches, requests, resent int64
	largest                   int
}

func (s *batchStats) add(o batchStats) {
	s.batches += o.batches
	s.requests += o.requests
	s.resent += o.resent
	s.largest = max(s.largest, o.largest)
}

// setPipeline turns pipelining on for the run when it asks for batches of
// more than one and the limiter can send its decisions in a pipeline. It
// returns why it could not, or "".
func (d *scheduler) setPipeline(p plan.Pipeline, client pipelineClient) (note string) {
	if p.MaxBatch() <= 1 {
		return ""
	}
	piped, ok := d.limiter.(algorithms.Pipelined)
	if !ok {
		return d.limiter.Name() + " cannot be pipelined (its decision takes more than one command): its requests went out one at a time"
	}
	d.piped, d.client, d.maxBatch = piped, client, p.MaxBatch()
	_, cluster := client.(*redis.ClusterClient)
	d.reuse = !cluster
	return ""
}

// pipelineFigures says how the run's sent requests went out: the batches
// of its pipelines, and every other request alone (all of them when it was
// not pipelined, the primes of a boundary run when it was).
func (d *scheduler) pipelineFigures(p plan.Pipeline, sent int64, note string) *result.Pipeline {
	d.statsMu.Lock()
	s := d.stats
	d.statsMu.Unlock()
	out := &result.Pipeline{Depth: 1, Note: note}
	if d.piped != nil {
		out.Depth, out.Auto = d.maxBatch, p.Auto
	}
	alone := max(sent-s.requests, 0)
	out.Batches = s.batches + alone
	out.Resent = s.resent
	out.LargestBatch = int64(s.largest)
	if alone > 0 {
		out.LargestBatch = max(out.LargestBatch, 1)
	}
	if out.Batches > 0 {
		out.MeanBatch = float64(sent) / float64(out.Batches)
	}
	return out
}

// batchCall is one request of a batch: the go-redis command that carries
// it, and the instant its reply was read. go-redis reads a pipeline's
// replies in order and hands each to its command's SetErr as soon as it is
// read, so the instant taken there is the request's own completion, not
// the batch's. A connection keeps its calls from batch to batch, and with
// them their commands, arguments and keys: a request allocates only what
// go-redis makes of its reply.
type batchCall struct {
	*redis.Cmd
	clock event.Clock
	done  time.Time
	// args is the command's arguments, and req what the request carried
	// (its cost, its clock reading), which reading its reply needs.
	args []any
	req  algorithms.Request
	// key is the identity's key, which args refers to: a string over
	// keyBuf, whose bytes stay as they are until the call's reply has
	// been read (the next batch builds the next key in them).
	key    string
	keyBuf []byte
}

// setKey makes c's key identity's, in its own buffer.
func (c *batchCall) setKey(keys event.KeyScheme, identity uint64) {
	c.keyBuf = keys.AppendKey(c.keyBuf[:0], identity)
	c.key = unsafe.String(unsafe.SliceData(c.keyBuf), len(c.keyBuf))
}

// command makes c's command carry args: its own, reset, when args are
// still the ones it was made with (the same arguments, in the same
// memory), else a new one.
func (c *batchCall) command(ctx context.Context, args []any, reuse bool) {
	if reuse && c.Cmd != nil {
		if was := c.Cmd.Args(); len(was) == len(args) && len(args) > 0 && &was[0] == &args[0] {
			c.Cmd.SetErr(nil)
			c.Cmd.SetVal(nil)
			c.args = args
			return
		}
	}
	c.Cmd, c.args = redis.NewCmd(ctx, args...), args
}

var _ redis.Cmder = (*batchCall)(nil)

// SetErr implements redis.Cmder: go-redis calls it when the reply has been
// read, or when the call failed. The first call is the completion.
func (c *batchCall) SetErr(err error) {
	if c.done.IsZero() {
		c.done = c.clock.Now()
	}
	c.Cmd.SetErr(err)
}

// pipeWorker is one connection's sender: its pipeline, and buffers reused
// from batch to batch.
type pipeWorker struct {
	*worker
	pipe  redis.Pipeliner
	calls []batchCall
	lost  []int
	cmds  []redis.Cmder
	stats batchStats
}

func (d *scheduler) newPipeWorker(id int) *pipeWorker {
	return &pipeWorker{
		worker: d.newWorker(id),
		pipe:   d.client.Pipeline(),
		calls:  make([]batchCall, d.maxBatch),
		cmds:   make([]redis.Cmder, 0, d.maxBatch),
	}
}

// done adds the worker's figures to the run's.
func (d *scheduler) workerDone(w *pipeWorker) {
	d.statsMu.Lock()
	d.stats.add(w.stats)
	d.statsMu.Unlock()
}

// startPipelines is startWorkers for a pipelined run: one goroutine per
// connection, each of which sends every batch it is handed as one
// pipeline. The queues hold what the connections could take in one round;
// past that the schedule waits, and its requests go out late, as without
// pipelining.
func (d *scheduler) startPipelines() (jobs *batchQueues, wait func()) {
	n := d.fleet.queues(d.concurrency)
	jobs = newBatchQueues(n, max(d.concurrency/n, 1), d.maxBatch)
	var wg sync.WaitGroup
	for i := 0; i < d.concurrency; i++ {
		wg.Add(1)
		go func(w *pipeWorker, mine chan []job) {
			defer wg.Done()
			defer d.workerDone(w)
			for b := range mine {
				d.sendBatch(w, b)
				jobs.done(b)
			}
		}(d.newPipeWorker(i), jobs.of(i))
	}
	return jobs, wg.Wait
}

// sendBatch sends jobs in one pipeline and records each request with its
// own due time, the batch's send time, and the instant its own reply was
// read.
func (d *scheduler) sendBatch(w *pipeWorker, jobs []job) {
	calls := w.calls[:len(jobs)]
	for i, j := range jobs {
		c := &calls[i]
		c.setKey(d.keys, j.identity)
		args, req := d.fleet.pipedFor(j.instance, d.piped).AppendCommand(c.args[:0], &c.key, j.units)
		c.command(d.callCtx, args, d.reuse)
		c.req, c.clock, c.done = req, d.clock, time.Time{}
	}
	w.slot.Begin(len(jobs))
	defer w.slot.End()
	sent := d.clock.Now()
	w.slot.Sent(d.rec.Start, sent)
	w.exec(d.callCtx, calls)
	d.resendLost(w, calls)
	w.stats.batches++
	w.stats.requests += int64(len(jobs))
	w.stats.largest = max(w.stats.largest, len(jobs))
	var lastOK, lastBad time.Time
	for i, j := range jobs {
		c := &calls[i]
		o := &w.out
		o.Identity, o.Due, o.Sent, o.Done, o.Instance = j.identity, j.due, sent, c.done, j.instance
		if o.Done.IsZero() {
			// Never answered nor failed by the client: done when it gave
			// the batch back.
			o.Done = d.clock.Now()
		}
		reply, err := c.Cmd.Result()
		o.Decision, o.Err = d.piped.Decide(c.req, reply, err)
		o.MayHaveRun = redisenv.MayHaveRun(o.Err)
		d.deliver(w.id, o)
		if o.Err != nil {
			lastBad = o.Done
		} else {
			lastOK = o.Done
		}
		// The reply and what the arguments held are free to go.
		c.Cmd.SetVal(nil)
		clear(c.args)
	}
	if !lastOK.IsZero() {
		d.lastSuccess.Store(lastOK.UnixNano())
	}
	if !lastBad.IsZero() {
		d.lastError.Store(lastBad.UnixNano())
	}
}

// exec sends calls as one pipeline and reads every reply.
func (w *pipeWorker) exec(ctx context.Context, calls []batchCall) {
	cmds := w.cmds[:0]
	for i := range calls {
		cmds = append(cmds, &calls[i])
	}
	_ = w.pipe.BatchProcess(ctx, cmds...)
	_, _ = w.pipe.Exec(ctx)
	clear(cmds)
}

// resendLost sends again, once, the calls of a batch that found the
// server without the script (NOSCRIPT, or a function it lost). Such a call
// did not run, and the pipeline that met the loss cannot recover it: the
// script is loaded again (a counted reload) and the calls go out in a
// batch of their own. They keep their first send time, so their latency
// includes the reload, as a caller's would; their completion is the reply
// to the second send. When the reload fails, its error is theirs.
func (d *scheduler) resendLost(w *pipeWorker, calls []batchCall) {
	lost := w.lost[:0]
	for i := range calls {
		if d.piped.Lost(calls[i].Cmd.Err()) {
			lost = append(lost, i)
		}
	}
	w.lost = lost
	if len(lost) == 0 {
		return
	}
	if err := d.piped.Reload(d.callCtx); err != nil {
		for _, i := range lost {
			calls[i].Cmd.SetErr(err)
		}
		return
	}
	again := make([]batchCall, len(lost))
	for k, i := range lost {
		again[k] = batchCall{Cmd: redis.NewCmd(d.callCtx, calls[i].args...), clock: d.clock}
	}
	w.exec(d.callCtx, again)
	for k, i := range lost {
		calls[i].Cmd, calls[i].done = again[k].Cmd, again[k].done
	}
	w.stats.resent += int64(len(lost))
}
