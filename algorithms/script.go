package algorithms

import (
	"context"
	"crypto/sha1"
	"embed"
	"encoding/hex"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// Redis is the narrow part of a go-redis client the limiters call, so a
// single client, a ring or a cluster client all work: the scripts, the
// Redis Functions a declared limiter may be, and pipelines for the one
// limiter that is not a script.
type Redis interface {
	redis.Scripter
	FunctionLoad(ctx context.Context, code string) *redis.StringCmd
	FunctionList(ctx context.Context, q redis.FunctionListQuery) *redis.FunctionListCmd
	FunctionDelete(ctx context.Context, libName string) *redis.StringCmd
	FCall(ctx context.Context, function string, keys []string, args ...any) *redis.Cmd
	Pipelined(ctx context.Context, fn func(redis.Pipeliner) error) ([]redis.Cmder, error)
	TxPipelined(ctx context.Context, fn func(redis.Pipeliner) error) ([]redis.Cmder, error)
}

// builtinScripts are the built-in limiters' Lua files, one per limiter,
// named after it.
//
//go:embed *.lua
var builtinScripts embed.FS

// builtinScript is the built-in limiter name's script, <name>.lua. A name
// without one is a mistake in this package, found by its tests.
func builtinScript(name string) *Script {
	src, err := builtinScripts.ReadFile(name + ".lua")
	if err != nil {
		panic("algorithms: no built-in script " + name + ".lua")
	}
	return newScript(name, string(src))
}

// Script is one embedded Lua limiter: its source, its SHA1, and how often a
// NOSCRIPT reply (after SCRIPT FLUSH, a restart or a failover) forced it to
// be loaded again.
type Script struct {
	name string
	src  string
	sha  string
	// shaArg is sha as a command argument, boxed once, so that queueing a
	// call allocates nothing for it.
	shaArg  any
	reloads reloads
}

// NewScript wraps Lua source that keeps the limiter reply contract, to be
// loaded and run like the built-in limiters' scripts.
func NewScript(name, src string) *Script { return newScript(name, src) }

func newScript(name, src string) *Script {
	sum := sha1.Sum([]byte(src))
	sha := hex.EncodeToString(sum[:])
	return &Script{name: name, src: src, sha: sha, shaArg: sha}
}

// Source is the Lua text.
func (s *Script) Source() string { return s.src }

// SHA1 is the digest EVALSHA calls the script by.
func (s *Script) SHA1() string { return s.sha }

// Reloads counts the NOSCRIPT replies that made Run load the script again.
func (s *Script) Reloads() int64 { return s.reloads.count() }

// Load sends the script with SCRIPT LOAD, so the timed part of a run only
// ever calls EVALSHA. go-redis's cluster client sends it to every node.
func (s *Script) Load(ctx context.Context, rdb Redis) error {
	sha, err := rdb.ScriptLoad(ctx, s.src).Result()
	if err != nil {
		return fmt.Errorf("loading the %s script: %w", s.name, err)
	}
	if sha != s.sha {
		return fmt.Errorf("loading the %s script: server answered SHA1 %s, want %s", s.name, sha, s.sha)
	}
	return nil
}

// Run calls the script with EVALSHA. A NOSCRIPT reply is not fatal: the
// script is loaded again on the server that lost it, the reload counted,
// and the call retried once.
func (s *Script) Run(ctx context.Context, rdb Redis, keys []string, args ...any) (any, error) {
	return s.reloads.run(ctx, s, rdb, keys, func() (any, error) {
		return rdb.EvalSha(ctx, s.sha, keys, args...).Result()
	})
}

// Lost reports whether err is the server's NOSCRIPT: it no longer has the
// script (after SCRIPT FLUSH, a restart or a failover), so the call did not
// run.
func (s *Script) Lost(err error) bool {
	return err != nil && redis.HasErrorPrefix(err, "NOSCRIPT")
}

// Reload loads the script again after the server lost it, and counts the
// reload.
func (s *Script) Reload(ctx context.Context, rdb Redis) error { return s.reloads.reload(ctx, s, rdb) }

// AppendCommand appends to dst the EVALSHA call of the script on keys with
// args, as go-redis sends it: to queue in a pipeline.
func (s *Script) AppendCommand(dst []any, keys []string, args ...any) []any {
	return appendCall(dst, "evalsha", s.sha, keys, args)
}

// appendCall lays out a script or function call after dst: the command,
// the script or function, the number of keys, the keys, then the
// arguments.
func appendCall(dst []any, command, callee string, keys []string, args []any) []any {
	dst = append(dst, command, callee, len(keys))
	for _, k := range keys {
		dst = append(dst, k)
	}
	return append(dst, args...)
}
