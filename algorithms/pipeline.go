package algorithms

import (
	"context"
	"fmt"
	"time"
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
	// FCALL, and says what the request carried (its cost, its clock
	// reading). units is what the request asks for when its caller sets
	// it (as WithUnits does for Allow): zero leaves the limiter's own
	// cost, and a limiter not told its cost ignores it. The command may
	// refer to *key rather than copy it (go-redis sends a *string as the
	// string it points to): the caller keeps it unchanged until the command
	// has been sent and answered, and a caller that reuses dst and key from
	// call to call allocates nothing for them.
	AppendCommand(dst []any, key *string, units int64) ([]any, Request)
	// Decide reads the decision from the reply and error of the command
	// that carried req.
	Decide(req Request, reply any, err error) (Decision, error)
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
// key. A built-in decides one unit per request: units are not its.
func (s *scripted) AppendCommand(dst []any, key *string, _ int64) ([]any, Request) {
	dst = append(dst, "evalsha", s.script.shaArg, 1, key)
	return append(dst, s.args...), Request{}
}

// Decide implements Pipelined: the uniform reply, read by ParseReply; a
// built-in decides one unit per request.
func (s *scripted) Decide(_ Request, reply any, err error) (Decision, error) {
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
func (l *Declared) AppendCommand(dst []any, key *string, units int64) ([]any, Request) {
	return l.appendCommandOn(dst, *key, CallerClock{}, units)
}

// appendCommandOn is AppendCommand for a caller whose clock is c: the
// templates fill keys and arguments of their own from key.
func (l *Declared) appendCommandOn(dst []any, key string, c CallerClock, units int64) ([]any, Request) {
	keys, args, req := l.call(key, c, units)
	return l.callee.AppendCommand(dst, keys, args...), req
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
