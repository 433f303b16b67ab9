// Package algorithms holds rate limiters that live in Redis, each usable
// on its own as a library: fixed window, sliding-window log, token bucket,
// leaky bucket (the default four), the fixed window without Lua (INCR and
// EXPIRE NX, in MULTI/EXEC or pipelined), sliding buckets, GCRA, the
// sliding-window counter, and a deliberately wrong counter that audits
// must catch.
//
// A Policy ("Limit requests per Window, with an optional Burst") is the one
// sentence every limiter interprets. Each limiter is one embedded Lua
// script (a .lua file whose header states its KEYS, ARGV and reply), loaded
// with SCRIPT LOAD and called with EVALSHA; it reads, decides and updates in
// one execution, takes its time from Redis TIME, gives every key a TTL, and
// replies {allowed, remaining, retry_after_ms, server_now_us}, parsed into a
// Decision. Being denied is a Decision, not an error.
//
// Every limiter that can be audited (Auditable) also gives an exact
// reference Model, a pure-Go replay of its script, and its Bound: the most
// it may admit to one identity within any interval. The approximate
// windows also name the exact algorithm they approximate (Approximation). The package depends on
// go-redis only, through the narrow Redis interface, so a single client, a
// ring or a cluster client all work.
//
//	lim, _ := algorithms.New("sliding_log", rdb, algorithms.Policy{Limit: 100, Window: time.Minute})
//	_ = lim.Load(ctx)
//	d, err := lim.Allow(ctx, "user:42")
//
// A user's own limiter is a Declaration: a Lua script or a Redis Function,
// the templates of its keys and arguments, where its reply carries each
// answer (ReplyLayout), and its Semantics (a family, whose model and bound
// judge it, or a declared Promise). Bound to a client and a policy it is
// one more Limiter: Bounded always, Auditable when its reply carries the
// server time and its family has a model, an InstantWindowed whose
// windows a boundary run finds from its decisions when it is a fixed
// window.
//
//	decl := &algorithms.Declaration{Name: "checkout", Script: src, Keys: keys, Args: args,
//		Reply: algorithms.ReplyLayout{Allowed: 1, Remaining: 2}, Semantics: algorithms.SemanticsFixedWindow}
//	lim, _ := decl.Bind(rdb, policy, "steady")
//	d, err := lim.Allow(ctx, "app:limits:42") // keys app:limits:<template with 42>
//
// A declaration fits the script rather than the other way round: its
// arguments may carry the caller's clock in any unit (${now_s},
// ${now_s_float}, ${now_ms}, ${now_us}, one reading per request, with
// TimeFrom saying whose clock it decides by) and each request's cost
// (${cost}, drawn from the Cost a Binding gives; Decision.Cost keeps it);
// its reply's parts are read in a unit with values that mean none
// (ReplyValue), its answer as 1/0, a number read by AllowedWhen, or texts.
// An optional part that cannot be read leaves the decision standing
// (Decision.Unread) and is counted (MalformedCounter). A reply that says
// where its window ends makes the limiter a ReplyWindower. The families'
// models decide requests of any cost (CostModel), and bounds count units.
package algorithms
