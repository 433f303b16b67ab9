package algorithms

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Pipelined is a Limiter whose decision is one Redis command, so that many
// decisions can go out in one pipeline: the command and the reading of its
// reply come apart. A script the server lost (NOSCRIPT) cannot be recovered
// inside the pipeline that met it: the caller reloads it once the replies
// are in (Reload) and sends the calls it failed again.
type Pipelined interface {
	Limiter
	// AppendCommand appends to dst the command that decides the identity
	// key, as go-redis sends it: EVALSHA sha numkeys keys... args..., or
	// FCALL. A caller that reuses dst from call to call allocates no
	// arguments.
	AppendCommand(dst []any, key string) []any
	// Decide reads the decision from the command's reply and error.
	Decide(reply any, err error) (Decision, error)
	// Lost reports whether err says the server no longer has the script
	// or function: the call did not run, and may be sent again once
	// Reload has loaded it.
	Lost(err error) bool
	// Reload loads the script or library again after the server lost it,
	// and counts the reload (see NoScriptReloads).
	Reload(ctx context.Context) error
}

var (
	_ Pipelined = (*FixedWindow)(nil)
	_ Pipelined = (*SlidingLog)(nil)
	_ Pipelined = (*TokenBucket)(nil)
	_ Pipelined = (*LeakyBucket)(nil)
	_ Pipelined = (*SlidingBuckets)(nil)
	_ Pipelined = (*GCRA)(nil)
	_ Pipelined = (*SlidingCounter)(nil)
	_ Pipelined = (*Declared)(nil)
	_ Pipelined = (*declaredExact)(nil)
)

// AppendCommand implements Pipelined: EVALSHA of the limiter's script on
// key.
func (s *scripted) AppendCommand(dst []any, key string) []any {
	dst = append(dst, "evalsha", s.script.shaArg, 1, key)
	return append(dst, s.args...)
}

// Decide implements Pipelined: the uniform reply, read by ParseReply.
func (s *scripted) Decide(reply any, err error) (Decision, error) {
	if err != nil {
		return Decision{}, err
	}
	d, err := ParseReply(reply)
	if err != nil {
		return Decision{}, fmt.Errorf("%s: %w", s.name, err)
	}
	return d, nil
}

// Lost implements Pipelined: NOSCRIPT.
func (s *scripted) Lost(err error) bool { return s.script.Lost(err) }

// Reload implements Pipelined.
func (s *scripted) Reload(ctx context.Context) error { return s.script.Reload(ctx, s.rdb) }

// AppendCommand implements Pipelined: EVALSHA of the script, or FCALL of
// the function, with the keys and arguments the templates make for key.
func (l *Declared) AppendCommand(dst []any, key string) []any {
	keys, args := l.call(key)
	return l.callee.AppendCommand(dst, keys, args...)
}

// Decide implements Pipelined: the reply read by the declared layout. A
// script that returns false (or nothing) answers nil, which the layout
// reads as such.
func (l *Declared) Decide(reply any, err error) (Decision, error) {
	if errors.Is(err, redis.Nil) {
		reply, err = nil, nil
	}
	if err != nil {
		return Decision{}, err
	}
	d, err := l.decl.Reply.Parse(reply)
	if err != nil {
		return Decision{}, fmt.Errorf("%s: %w", l.decl.Name, err)
	}
	return d, nil
}

// Lost implements Pipelined: NOSCRIPT, or a function the server lost.
func (l *Declared) Lost(err error) bool { return l.callee.Lost(err) }

// Reload implements Pipelined.
func (l *Declared) Reload(ctx context.Context) error { return l.callee.Reload(ctx, l.rdb) }

// CanPipeline reports whether the registered limiter name decides in one
// command, so that a profile's pipeline sends its requests in batches.
func CanPipeline(name string) bool {
	l, err := New(name, nil, Policy{Limit: 1, Window: time.Second})
	if err != nil {
		return false
	}
	_, ok := l.(Pipelined)
	return ok
}
