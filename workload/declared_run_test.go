package workload_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/workload"
)

// declaredProfile parses body as a profile in a directory that also holds
// files (name to Lua source), so its declarations find their scripts.
func declaredProfile(t *testing.T, body string, files map[string]string) *profile.Profile {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := profile.Parse(filepath.Join(dir, "p.yaml"), []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// twoKeyWindow is a textbook fixed window that also keeps a second key per
// identity (its count again), expiring at the same instant as the first so
// the two always come and go together; its reply carries no server time.
const twoKeyWindow = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
redis.call('SET', KEYS[2], n)
redis.call('PEXPIREAT', KEYS[2], redis.call('PEXPIRETIME', KEYS[1]))
if n > tonumber(ARGV[1]) then return {0, 0, redis.call('PTTL', KEYS[1]) + 1} end
return {1, tonumber(ARGV[1]) - n, 0}
`

// TestDeclaredLimiterThroughEveryShape runs a user's limiter of two keys
// per identity through steady, boundary and cardinality on a private
// server: the same figures as a built-in's, identities counted once though
// they hold two keys, the boundary placed by the key's PTTL, and its
// server cost read from cmdstat_evalsha. The cardinality run's window is
// an hour, longer than the test may last, so no key expires before the
// census counts it, however slowly a busy machine gets through the
// identities.
func TestDeclaredLimiterThroughEveryShape(t *testing.T) {
	rdb := redistest.Client(t)
	p := declaredProfile(t, `
policy: {limit: 10, window: 1s}
algorithms:
  - name: textbook
    script: window.lua
    keys: ["count:{${identity}}", "seen:{${identity}}"]
    args: ["${limit}", "${window_s}"]
    reply: {allowed: 1, remaining: 2, retry_after_ms: 3}
    semantics: fixed_window
concurrency: 8
scenarios:
  - name: steady
    shape: steady
    rate: 2x
    identities: 4
    duration: 1200ms
  - name: edge
    shape: boundary
    identities: 3
    offset: 60ms
    stagger: 150ms
  - name: many
    shape: cardinality
    identities: 1200
    distribution: sequential
    rate: max
    policy: {window: 1h}
`, map[string]string{"window.lua": twoKeyWindow})
	res, err := (&workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb, Mode: redisenv.Private}}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Profile.Limiters) != 1 || res.Profile.Limiters[0].Keys[1] != "seen:{${identity}}" || res.Profile.Limiters[0].SourceSHA256 == "" {
		t.Errorf("the result does not describe the declared limiter: %+v", res.Profile.Limiters)
	}
	for i := range res.Runs {
		r := &res.Runs[i]
		a, m, s := r.Audit, r.Memory, r.Server
		if a == nil || m == nil || s == nil || r.Requests.Errors != 0 {
			t.Fatalf("%s: audit %v, memory %v, server %v, errors %v", r.Key(), a, m, s, r.Errors)
		}
		if a.Basis != result.AuditByBoundClientTime || a.Timing == nil || a.Overshoot != 0 || a.Decisions != r.Requests.Sent || a.BoundWindow != 20 {
			t.Errorf("%s: audit %+v", r.Key(), *a)
		}
		if m.Identities != int64(r.Identities) || m.Keys != 2*m.Identities || m.KeysWithoutTTL != 0 || m.KeysOutsidePrefix != 0 {
			t.Errorf("%s: memory: %d identities holding %d keys (%d without TTL, %d outside), want %d holding two each",
				r.Key(), m.Identities, m.Keys, m.KeysWithoutTTL, m.KeysOutsidePrefix, r.Identities)
		}
		if s.Command != "evalsha" || s.Calls != r.Requests.Sent || s.UsecPerCall <= 0 {
			t.Errorf("%s: server %+v, want every request's EVALSHA", r.Key(), *s)
		}
	}
	many := res.Runs[2]
	if _, ok := many.Memory.PerIdentity(); !ok || many.Memory.Encodings["int"] == 0 {
		t.Errorf("many: no memory per identity or encodings: %+v", *many.Memory)
	}
	// The bursts went either side of the boundary the key's PTTL showed:
	// the window's limit before it, the next window's after it, all within
	// one window's length.
	edge := res.Runs[1]
	if edge.ClockOffset == nil || edge.Audit.MaxWindowAdmitted != 2*10-1 {
		t.Errorf("edge: clock %+v, at most %d in a window, want 19 (the prime's window and the next)", edge.ClockOffset, edge.Audit.MaxWindowAdmitted)
	}
}

// TestDeclaredLimiterWritingOutsideItsKeys: a script that writes keys it
// was not given is caught on a private server: the keys are counted and
// named, the verdict's failure, and removed so the next run is not blamed.
func TestDeclaredLimiterWritingOutsideItsKeys(t *testing.T) {
	rdb := redistest.Client(t)
	p := declaredProfile(t, `
policy: {limit: 5, window: 1s}
algorithms:
  - name: stray
    script: stray.lua
    keys: ["${identity}"]
    args: ["${identity}"]
    reply: {allowed: 1}
    semantics: bound
    bound: {admitted: 5}
concurrency: 4
scenarios:
  - shape: steady
    rate: 1x
    identities: 3
    duration: 300ms
`, map[string]string{"stray.lua": `redis.call('SET', KEYS[1], 1, 'PX', 1000)
redis.call('SET', 'stray:' .. ARGV[1], 1)
return 1
`})
	res, err := (&workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb, Mode: redisenv.Private}}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m := res.Runs[0].Memory
	if m.KeysOutsidePrefix != 3 || len(m.OutsidePrefixExamples) != 3 || !strings.HasPrefix(m.OutsidePrefixExamples[0], "stray:") {
		t.Errorf("keys outside the prefix: %d, %q; want the 3 stray ones", m.KeysOutsidePrefix, m.OutsidePrefixExamples)
	}
	if n := countKeys(t, rdb, "stray:*"); n != 0 {
		t.Errorf("%d stray keys left on the private server", n)
	}
}

// TestDeclaredFunctionRun: a Redis Function's server cost comes from
// cmdstat_fcall, its decisions are replayed through its family's model,
// and the library it loaded is gone after the run.
func TestDeclaredFunctionRun(t *testing.T) {
	rdb := redistest.Client(t)
	src, err := os.ReadFile("../profiles/examples/token_bucket_function.lua")
	if err != nil {
		t.Fatal(err)
	}
	p := declaredProfile(t, `
policy: {limit: 10, window: 100ms, burst: 15}
algorithms:
  - name: fn_bucket
    function: token_bucket_allow
    library: lib.lua
    keys: ["bucket:{${identity}}"]
    args: ["${limit}", "${window_us}", "${burst}"]
    reply: {allowed: 1, remaining: 2, retry_after_ms: 3, server_time_us: 4}
    semantics: token_bucket
concurrency: 8
scenarios:
  - shape: steady
    rate: 3x
    arrival: poisson
    identities: 4
    duration: 600ms
`, map[string]string{"lib.lua": string(src)})
	res, err := (&workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb, Mode: redisenv.Private}}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := res.Runs[0]
	if s := r.Server; s == nil || s.Command != "fcall" || s.Calls != r.Requests.Sent {
		t.Errorf("server %+v, want every request's FCALL", s)
	}
	a := r.Audit
	if a.Basis != result.AuditByModel || a.ModelMismatches != 0 || a.ExpectedAllowed != r.Requests.Allowed || r.Requests.Denied == 0 {
		t.Errorf("audit %+v", *a)
	}
	if a.Reply == nil || a.Reply.RemainingChecked != a.Decisions || a.Reply.RetryAfterChecked != r.Requests.Denied || a.Reply.RetryAfterTooEarly != 0 {
		t.Errorf("reply check %+v, want every remaining and every denial's hint checked", a.Reply)
	}
	libs, err := rdb.FunctionList(context.Background(), redis.FunctionListQuery{}).Result()
	if err != nil || len(libs) != 0 {
		t.Errorf("libraries left after the run: %v, %v", libs, err)
	}
}

// TestDeclaredBoundaryFromClientTime: a limiter whose reply carries no
// server time and whose window is not a key's expiry (a sliding log) gets
// its bursts a window after the prime, placed through the clock alignment.
func TestDeclaredBoundaryFromClientTime(t *testing.T) {
	rdb := redistest.Client(t)
	p := declaredProfile(t, `
policy: {limit: 8, window: 400ms}
algorithms:
  - name: my_log
    script: log.lua
    keys: ["log:{${identity}}"]
    args: ["${limit}", "${window_us}"]
    reply: {allowed: 1, remaining: 2}
    semantics: sliding_window
concurrency: 16
scenarios:
  - shape: boundary
    identities: 3
    burst: 10
    offset: 50ms
    stagger: 150ms
`, map[string]string{"log.lua": builtinScript(t, "sliding_log")})
	res, err := (&workload.Runner{Plan: p.Plan(1), Env: &redisenv.Env{Client: rdb}}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := res.Runs[0]
	a := r.Audit
	// Before the boundary the prime's window has 7 places left; after it
	// the prime has left and one more gets in.
	if r.Requests.Sent != 3*21 || r.Requests.Allowed != 3*9 || a.Overshoot != 0 || a.MaxWindowAdmitted != 8 || a.Basis != result.AuditByBoundClientTime {
		t.Errorf("sent %d, allowed %d, audit %+v", r.Requests.Sent, r.Requests.Allowed, *a)
	}
}

// builtinScript is a built-in limiter's Lua, for a user's copy of it.
func builtinScript(t *testing.T, name string) string {
	t.Helper()
	l, err := algorithms.New(name, nil, algorithms.Policy{Limit: 1, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return l.(interface{ Script() *algorithms.Script }).Script().Source()
}
