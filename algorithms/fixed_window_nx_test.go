package algorithms_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
)

// TestFixedWindowNXSetsTheExpiryOnce: in both forms, the first request of a
// window creates the key and sets its expiry a window after it (EXPIRE for
// a window of whole seconds, PEXPIRE for one of milliseconds); later
// requests leave the expiry alone (NX), so the window does not slide; a
// denial's retry hint reaches just past the expiry, and a request then
// opens a new window.
func TestFixedWindowNXSetsTheExpiryOnce(t *testing.T) {
	rdb := redistest.Client(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		window time.Duration
		expire string
	}{
		{algorithms.FixedWindowNXName, time.Second, "expire"},
		{algorithms.FixedWindowNXName, 300 * time.Millisecond, "pexpire"},
		{algorithms.FixedWindowNXPipelinedName, time.Second, "expire"},
		{algorithms.FixedWindowNXPipelinedName, 300 * time.Millisecond, "pexpire"},
	} {
		t.Run(fmt.Sprintf("%s/%s", tc.name, tc.window), func(t *testing.T) {
			const limit = 3
			p := algorithms.Policy{Limit: limit, Window: tc.window}
			l := newLimiter(t, rdb, tc.name, p)
			key := fmt.Sprintf("rlbench:test:%s:%s:once", tc.name, tc.window)
			stat := func() int64 {
				t.Helper()
				s, err := redisenv.ReadCommandStat(ctx, rdb, tc.expire)
				if err != nil {
					t.Fatal(err)
				}
				return s.Calls
			}
			expiresBefore := stat()
			before := serverNow(t, rdb) / 1000
			d, err := l.Allow(ctx, key)
			after := serverNow(t, rdb) / 1000
			if err != nil || !d.Allowed || d.Remaining != strconv.Itoa(limit-1) {
				t.Fatalf("first request: %+v, %v", d, err)
			}
			if got := stat() - expiresBefore; got != 1 {
				t.Errorf("%s ran %d times for one request", tc.expire, got)
			}
			expireAt := func() int64 {
				t.Helper()
				ms, err := rdb.PExpireTime(ctx, key).Result()
				if err != nil {
					t.Fatal(err)
				}
				return ms.Milliseconds()
			}
			first := expireAt()
			if opened := first - p.WindowMillis(); opened < before || opened > after {
				t.Errorf("the window opened at %dms, not between the TIME before (%d) and after (%d) the request", opened, before, after)
			}
			for i := 2; i <= limit+1; i++ {
				if d, err = l.Allow(ctx, key); err != nil {
					t.Fatal(err)
				}
				if got := expireAt(); got != first {
					t.Errorf("request %d moved the expiry from %d to %d", i, first, got)
				}
			}
			if d.Allowed || d.RetryAfter <= 0 || d.RetryAfter > tc.window+time.Millisecond {
				t.Fatalf("request %d: %+v, want denied with a retry within the window", limit+1, d)
			}
			time.Sleep(d.RetryAfter)
			if d, err = l.Allow(ctx, key); err != nil || !d.Allowed || d.Remaining != strconv.Itoa(limit-1) {
				t.Errorf("after the retry hint: %+v, %v; want a new window", d, err)
			}
		})
	}
}

// cutter arms the connections of one client: the next write of a request
// for key, on any of them, sends only its first `through` commands and
// closes the connection, as a client killed in the middle of sending a
// pipeline. cutAddr is then the local address of the connection it cut.
type cutter struct {
	key     string
	through atomic.Int32
	cutAddr atomic.Value
}

// cutConn is a connection that a cutter may cut.
type cutConn struct {
	net.Conn
	armed *cutter
}

func (c *cutConn) Write(b []byte) (int, error) {
	if !bytes.Contains(b, []byte(c.armed.key)) {
		return c.Conn.Write(b)
	}
	n := int(c.armed.through.Swap(0))
	if n == 0 {
		return c.Conn.Write(b)
	}
	end, err := respCommandsEnd(b, n)
	if err != nil {
		return 0, err
	}
	if _, err := c.Conn.Write(b[:end]); err != nil {
		return 0, err
	}
	c.armed.cutAddr.Store(c.LocalAddr().String())
	_ = c.Conn.Close()
	return end, errors.New("connection cut after the first commands of the write")
}

// respCommandsEnd is where the first n RESP commands (arrays of bulk
// strings, as go-redis writes them) of b end.
func respCommandsEnd(b []byte, n int) (int, error) {
	r := bufio.NewReader(bytes.NewReader(b))
	pos := 0
	line := func() (string, error) {
		s, err := r.ReadString('\n')
		pos += len(s)
		return s, err
	}
	for ; n > 0; n-- {
		head, err := line()
		if err != nil || head[0] != '*' {
			return 0, fmt.Errorf("not a RESP array at byte %d", pos)
		}
		args, _ := strconv.Atoi(head[1 : len(head)-2])
		for ; args > 0; args-- {
			size, err := line()
			if err != nil {
				return 0, err
			}
			length, _ := strconv.Atoi(size[1 : len(size)-2])
			if _, err := r.Discard(length + 2); err != nil {
				return 0, err
			}
			pos += length + 2
		}
	}
	return pos, nil
}

// TestFixedWindowNXInterrupted cuts the client between INCR and EXPIRE. In
// the pipelined form the INCR has run: the key is left without a TTL, the
// census rlbench takes after every run counts it as a leak, and it stays
// so until the identity's next request, whose EXPIRE NX finds no expiry
// and sets one (counting the lost request in that window). In the
// transactional form the server discards the unfinished MULTI: no key at
// all.
func TestFixedWindowNXInterrupted(t *testing.T) {
	addr := redistest.Start(t)
	ctx := context.Background()
	healthy := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = healthy.Close() })
	p := algorithms.Policy{Limit: 5, Window: time.Minute}
	for _, tc := range []struct {
		name string
		// through is how many commands reach the server: INCR alone, or
		// MULTI and INCR.
		through int32
		leaks   bool
	}{
		{algorithms.FixedWindowNXPipelinedName, 1, true},
		{algorithms.FixedWindowNXName, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := "rlbench:test:" + tc.name + ":cut:"
			key := prefix + "1"
			armed := &cutter{key: key}
			cut := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, MaxRetries: -1,
				Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
					c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
					if err != nil {
						return nil, err
					}
					return &cutConn{Conn: c, armed: armed}, nil
				}})
			t.Cleanup(func() { _ = cut.Close() })
			if err := cut.Ping(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			l, err := algorithms.New(tc.name, cut, p)
			if err != nil {
				t.Fatal(err)
			}
			armed.through.Store(tc.through)
			if _, err := l.Allow(ctx, key); err == nil {
				t.Fatal("the cut request got an answer")
			}
			// The server has read all the cut client sent once it has
			// dropped the client.
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				list, err := healthy.ClientList(ctx).Result()
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(list, fmt.Sprintf("addr=%s ", armed.cutAddr.Load())) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the server still lists the cut client after 5s")
				}
			}
			census, err := redisenv.TakeCensus(ctx, healthy, prefix, 10, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			pttl, err := healthy.PTTL(ctx, key).Result()
			if err != nil {
				t.Fatal(err)
			}
			if !tc.leaks {
				if census.Keys != 0 || pttl != -2*time.Nanosecond {
					t.Errorf("after a MULTI cut before EXEC: %d keys, PTTL %v; want none", census.Keys, pttl)
				}
				return
			}
			if census.Keys != 1 || census.WithoutTTL != 1 || pttl != -1*time.Nanosecond {
				t.Fatalf("after a pipeline cut after INCR: census %+v, PTTL %v; want one key without a TTL", census, pttl)
			}
			// The next request heals it: EXPIRE NX finds no expiry.
			next, err := algorithms.New(tc.name, healthy, p)
			if err != nil {
				t.Fatal(err)
			}
			d, err := next.Allow(ctx, key)
			if err != nil || !d.Allowed || d.Remaining != strconv.FormatInt(p.Limit-2, 10) {
				t.Errorf("the next request: %+v, %v; want admitted with the lost request counted (%d left)", d, err, p.Limit-2)
			}
			if ttl, err := healthy.PTTL(ctx, key).Result(); err != nil || ttl <= 0 || ttl > p.Window {
				t.Errorf("after the next request PTTL %s, %v; want the window", ttl, err)
			}
		})
	}
}
