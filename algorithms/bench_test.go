package algorithms_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/redistest"
)

// BenchmarkAllow measures one decision per limiter on a real redis-server,
// including the client's allocations (go test -bench Allow -benchmem).
func BenchmarkAllow(b *testing.B) {
	rdb := redistest.Client(b)
	ctx := context.Background()
	for _, name := range algorithms.Comparable() {
		keys := make([]string, 1000)
		for i := range keys {
			keys[i] = "rlbench:bench:" + name + ":" + strconv.Itoa(i)
		}
		l, err := algorithms.New(name, rdb, algorithms.Policy{Limit: 100, Window: time.Second})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) { benchmarkDecisions(b, ctx, l, keys) })
	}
}

// benchmarkDecisions loads l and times one decision after another, over
// keys in turn.
func benchmarkDecisions(b *testing.B, ctx context.Context, l algorithms.Limiter, keys []string) {
	if err := l.Load(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := l.Allow(ctx, keys[i%len(keys)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAllowDeclared measures one decision of the token bucket
// declared as a user's limiter (its own copy of the Lua, a key template
// and a reply layout) beside the built-in itself, so the cost of templates
// and reply parsing shows as the difference of the two (go test -bench
// AllowDeclared -benchmem).
func BenchmarkAllowDeclared(b *testing.B) {
	rdb := redistest.Client(b)
	ctx := context.Background()
	p := algorithms.Policy{Limit: 100, Window: time.Second}
	builtin, err := algorithms.New(algorithms.TokenBucketName, rdb, p)
	if err != nil {
		b.Fatal(err)
	}
	src := builtin.(interface{ Script() *algorithms.Script }).Script().Source()
	d := &algorithms.Declaration{
		Name:      "my_token_bucket",
		Script:    src,
		Keys:      []algorithms.Template{algorithms.MustParseTemplate("bucket:{${identity}}", algorithms.KeyVariables)},
		Semantics: algorithms.SemanticsTokenBucket,
		Reply:     algorithms.ReplyLayout{Allowed: 1, Remaining: 2, RetryAfterMs: 3, ServerTimeUs: 4},
	}
	for _, a := range []string{"${limit}", "${window_us}", "${burst}"} {
		d.Args = append(d.Args, algorithms.MustParseTemplate(a, algorithms.ArgVariables))
	}
	declared, err := d.Bind(rdb, p, "bench")
	if err != nil {
		b.Fatal(err)
	}
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = "rlbench:bench:declared:" + strconv.Itoa(i)
	}
	for _, l := range []algorithms.Limiter{builtin, declared} {
		b.Run(l.Name(), func(b *testing.B) { benchmarkDecisions(b, ctx, l, keys) })
	}
}
