package workload

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/audit"
	"github.com/rlbench/rlbench/internal/event"
	"github.com/rlbench/rlbench/internal/recorder"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/result"
)

// steppedClock is a clock a fake server moves: Now reports the instant it
// was set to and, once armed, tells the server each time it is read.
type steppedClock struct {
	mu    sync.Mutex
	now   time.Time
	armed bool
	reads chan struct{}
}

func (c *steppedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.armed {
		c.reads <- struct{}{}
	}
	return c.now
}

func (c *steppedClock) Sleep(ctx context.Context, d time.Duration) error { return ctx.Err() }

func (c *steppedClock) set(t time.Time, armed bool) {
	c.mu.Lock()
	c.now, c.armed = t, armed
	c.mu.Unlock()
}

// readCommand reads one RESP array of bulk strings, as a client sends a
// command.
func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "*")))
	if err != nil {
		return nil, fmt.Errorf("want an array, got %q", line)
	}
	args := make([]string, n)
	for i := range args {
		head, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		size, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(head, "$")))
		if err != nil {
			return nil, fmt.Errorf("want a bulk string, got %q", head)
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		args[i] = string(buf[:size])
	}
	return args, nil
}

// TestPipelinedRequestsGetTheirOwnCompletionTimes sends one batch of eight
// requests, each due at its own instant, through a fake server on an
// in-memory connection. The server answers one reply at a time: it sets
// the clock to the next millisecond, writes the reply, and waits until the
// client has read the clock for it before the next. So request i completes
// at exactly i+1 ms, and its recorded latencies must be its own: i+1 ms
// from the send, and i+1 ms plus how long before the send it was due. Had
// the batch's completion been used, all eight would read 8 ms.
func TestPipelinedRequestsGetTheirOwnCompletionTimes(t *testing.T) {
	const n = 8
	base := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	clock := &steppedClock{now: base, reads: make(chan struct{}, 4*n)}
	client, server := net.Pipe()
	rdb := redis.NewClient(&redis.Options{
		Addr: "fake:6379", Protocol: 2, DisableIdentity: true, PoolSize: 1, PipelinePoolSize: -1, MaxRetries: -1,
		Dialer: func(context.Context, string, string) (net.Conn, error) { return client, nil },
	})
	defer rdb.Close()

	served := make(chan error, 1)
	go func() {
		r := bufio.NewReader(server)
		for calls := 0; calls < n; {
			args, err := readCommand(r)
			switch {
			case err != nil:
				served <- err
				return
			case strings.EqualFold(args[0], "evalsha"):
				calls++
			default:
				// The connection's handshake (HELLO): a server too old
				// for it, so the client carries on with RESP2.
				if _, err := fmt.Fprintf(server, "-ERR unknown command '%s'\r\n", args[0]); err != nil {
					served <- err
					return
				}
			}
		}
		for i := 0; i < n; i++ {
			at := base.Add(time.Duration(i+1) * time.Millisecond)
			clock.set(at, true)
			reply := fmt.Sprintf("*4\r\n:1\r\n$2\r\n99\r\n:0\r\n:%d\r\n", at.UnixMicro())
			if _, err := server.Write([]byte(reply)); err != nil {
				served <- err
				return
			}
			select {
			case <-clock.reads: // the client stamped reply i
			case <-time.After(10 * time.Second):
				served <- fmt.Errorf("the client did not read the clock when reply %d came in", i)
				_ = server.Close()
				return
			}
		}
		clock.set(base.Add(time.Hour), false)
		served <- nil
	}()

	lim := algorithms.NewFixedWindow(rdb, algorithms.Policy{Limit: 100, Window: time.Minute})
	d := &scheduler{limiter: lim, keys: event.KeyScheme{Head: "rlbench:test:"}, clock: clock, rec: recorder.New(base), concurrency: 1, callCtx: context.Background()}
	if note := d.setPipeline(plan.Pipeline{Depth: n}, rdb); note != "" {
		t.Fatal(note)
	}
	w := d.newPipeWorker(0)
	jobs := make([]job, n)
	for i := range jobs {
		jobs[i] = job{identity: uint64(i), due: base.Add(-time.Duration(i) * 100 * time.Microsecond)}
	}
	d.sendBatch(w, jobs)
	d.workerDone(w)
	if err := <-served; err != nil {
		t.Fatal(err)
	}

	var run result.Run
	d.rec.Fill(&run)
	if run.Requests.Allowed != n || run.Requests.Errors != 0 {
		t.Fatalf("requests %+v (errors %v), want %d allowed", run.Requests, run.Errors, n)
	}
	wantUncorrected, wantCorrected := result.NewHistogram(), result.NewHistogram()
	for i := 0; i < n; i++ {
		done := time.Duration(i+1) * time.Millisecond
		wantUncorrected.Record(done.Microseconds())
		wantCorrected.Record((done + time.Duration(i)*100*time.Microsecond).Microseconds())
	}
	for _, c := range []struct {
		name    string
		encoded string
		want    *result.Histogram
	}{
		{"from the send", run.LatencyUncorrectedHDR, wantUncorrected},
		{"from the due time", run.LatencyHDR, wantCorrected},
	} {
		encoded, err := result.EncodeHistogram(c.want)
		if err != nil {
			t.Fatal(err)
		}
		got, want := decodeHistogram(t, c.encoded), decodeHistogram(t, encoded)
		if !sameDistribution(got, want) {
			t.Errorf("latency %s: got %v, want each request's own %v", c.name, bars(got), bars(want))
		}
	}
	if got := d.pipelineFigures(plan.Pipeline{Depth: n}, n, ""); got.Batches != 1 || got.LargestBatch != n || got.MeanBatch != n {
		t.Errorf("pipeline figures %+v, want one batch of %d", got, n)
	}
}

func decodeHistogram(t *testing.T, s string) *hdrhistogram.Histogram {
	t.Helper()
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func sameDistribution(a, b *hdrhistogram.Histogram) bool {
	x, y := bars(a), bars(b)
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// bars are a histogram's non-empty buckets, as "value:count".
func bars(h *hdrhistogram.Histogram) []string {
	var out []string
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			out = append(out, fmt.Sprintf("%d:%d", b.To, b.Count))
		}
	}
	return out
}

// TestPipelineRecoversALostScript: a script the server lost answers
// NOSCRIPT to every call of the batch; none of them ran, and none can be
// recovered inside that pipeline. The batch must load the script again
// (one counted reload), send the calls again, and record every request
// decided, none as an error, and each decision in the audit. Rows cover a
// built-in script and a declared Redis Function (lost with FUNCTION FLUSH).
func TestPipelineRecoversALostScript(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	pol := algorithms.Policy{Limit: 5, Window: time.Minute}
	fn := &algorithms.Declaration{
		Name:     "fn_bucket",
		Library:  "#!lua name=rlbench_pipe_test\n" + tokenBucketFunction,
		Function: "pipe_bucket",
		Keys:     []algorithms.Template{algorithms.MustParseTemplate("b:{${identity}}", algorithms.KeyVariables)},
		Args: []algorithms.Template{algorithms.MustParseTemplate("${limit}", algorithms.ArgVariables),
			algorithms.MustParseTemplate("${window_us}", algorithms.ArgVariables), algorithms.MustParseTemplate("${burst}", algorithms.ArgVariables)},
		Reply:     algorithms.ReplyLayout{Allowed: 1, Remaining: 2, RetryAfterMs: 3, ServerTimeUs: 4},
		Semantics: algorithms.SemanticsTokenBucket,
	}
	declared, err := fn.Bind(rdb, pol, "s")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		why  string
		lim  algorithms.Limiter
		lose func() error
	}{
		{"a built-in script after SCRIPT FLUSH", algorithms.NewSlidingLog(rdb, pol), func() error { return rdb.ScriptFlush(ctx).Err() }},
		{"a declared function after FUNCTION FLUSH", declared, func() error { return rdb.FunctionFlush(ctx).Err() }},
	} {
		if err := tc.lim.Load(ctx); err != nil {
			t.Fatal(err)
		}
		if err := tc.lose(); err != nil {
			t.Fatal(err)
		}
		clock := event.RealClock{}
		aud := audit.New(audit.Config{Limiter: tc.lim, Identities: 4, Sample: 10, Seed: 1})
		d := &scheduler{limiter: tc.lim, keys: event.KeyScheme{Head: "rlbench:pipetest:" + tc.lim.Name() + ":"}, clock: clock, rec: recorder.New(clock.Now()),
			concurrency: 1, callCtx: ctx, sinks: []event.Sink{aud}}
		if note := d.setPipeline(plan.Pipeline{Depth: 16}, rdb); note != "" {
			t.Fatal(note)
		}
		w := d.newPipeWorker(0)
		jobs := make([]job, 16)
		for i := range jobs {
			jobs[i] = job{identity: uint64(i % 4), due: clock.Now()}
		}
		d.sendBatch(w, jobs)
		d.workerDone(w)
		var run result.Run
		d.rec.Fill(&run)
		if run.Requests.Errors != 0 || run.Requests.Allowed+run.Requests.Denied != 16 {
			t.Errorf("%s: requests %+v, errors %v; want 16 decided", tc.why, run.Requests, run.Errors)
		}
		if got := tc.lim.NoScriptReloads(); got != 1 {
			t.Errorf("%s: %d reloads, want 1", tc.why, got)
		}
		if got := d.pipelineFigures(plan.Pipeline{Depth: 16}, 16, ""); got.Resent != 16 || got.Batches != 1 {
			t.Errorf("%s: pipeline %+v, want one batch of 16, all sent again", tc.why, got)
		}
		got := aud.Finish(nil, nil).Audit
		if got.Decisions != 16 || got.ModelMismatches != 0 || got.Allowed != 16 {
			t.Errorf("%s: audit %+v, want 16 decisions, all admitted (4 per identity, within 5), no mismatch", tc.why, got)
		}
		if u, ok := tc.lim.(interface{ Unload(context.Context) error }); ok {
			_ = u.Unload(ctx)
		}
	}
}

// tokenBucketFunction is the built-in token bucket's Lua as the body of a
// Redis Function.
var tokenBucketFunction = func() string {
	src := algorithms.NewTokenBucket(nil, algorithms.Policy{Limit: 1, Window: time.Second}).Script().Source()
	return "redis.register_function('pipe_bucket', function(KEYS, ARGV)\n" + src + "\nend)\n"
}()
