package algorithms

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// Function is a function in a Redis Functions library, called with FCALL:
// the library is loaded with FUNCTION LOAD before the timed part of a run,
// and again (counted) when the server has lost it, as a script is after
// NOSCRIPT.
type Function struct {
	name    string
	library string
	src     string
	reloads reloads
	// created says the library was loaded by this Function, so Unload may
	// delete it: a library someone else loaded stays.
	created atomic.Bool
}

// NewFunction prepares the function name of the library whose Lua source
// is src. The library's first line names it (#!lua name=<library>), as
// FUNCTION LOAD requires.
func NewFunction(name, src string) (*Function, error) {
	lib, err := libraryName(src)
	if err != nil {
		return nil, err
	}
	if name == "" {
		return nil, fmt.Errorf("no function name given")
	}
	return &Function{name: name, library: lib, src: src}, nil
}

// libraryName reads the library's name from its "#!lua name=<library>"
// first line.
func libraryName(src string) (string, error) {
	first, _, _ := strings.Cut(src, "\n")
	first = strings.TrimSpace(strings.TrimPrefix(first, "\ufeff"))
	rest, ok := strings.CutPrefix(first, "#!lua")
	if !ok {
		return "", fmt.Errorf(`a Redis Functions library starts with a line like "#!lua name=mylib", got %q`, first)
	}
	for _, field := range strings.Fields(rest) {
		if lib, ok := strings.CutPrefix(field, "name="); ok && lib != "" {
			return lib, nil
		}
	}
	return "", fmt.Errorf(`the library's first line %q gives no name=<library>`, first)
}

// Name is the function FCALL calls.
func (f *Function) Name() string { return f.name }

// Library is the library's name.
func (f *Function) Library() string { return f.library }

// Source is the library's Lua text.
func (f *Function) Source() string { return f.src }

// Reloads counts the times Run found the function missing and loaded the
// library again.
func (f *Function) Reloads() int64 { return f.reloads.count() }

// Load sends the library with FUNCTION LOAD and checks it registers the
// function; on a cluster, to every master. A library of the same name
// already on a server is used when its code is the same, and refused
// otherwise: rlbench never replaces a library it did not load.
func (f *Function) Load(ctx context.Context, rdb Redis) error {
	created, err := onEveryMaster(ctx, rdb, f.loadOn)
	if created {
		f.created.Store(true)
	}
	return err
}

// loadOn loads the library on one server and reports whether it created
// it there.
func (f *Function) loadOn(ctx context.Context, rdb Redis) (created bool, err error) {
	err = rdb.FunctionLoad(ctx, f.src).Err()
	switch {
	case err == nil:
		created = true
	case strings.Contains(err.Error(), "already exists"):
		lib, lerr := f.find(ctx, rdb, true)
		if lerr != nil {
			return false, lerr
		}
		if lib.Code != f.src {
			return false, fmt.Errorf("loading library %s: the server already holds a library of that name with other code; "+
				"rlbench does not replace a library it did not load (rename yours in its #!lua name= line, or FUNCTION DELETE %s first)", f.library, f.library)
		}
	default:
		return false, fmt.Errorf("loading library %s (FUNCTION LOAD): %w", f.library, err)
	}
	lib, err := f.find(ctx, rdb, false)
	if err != nil {
		return created, err
	}
	var names []string
	for _, fn := range lib.Functions {
		if fn.Name == f.name {
			return created, nil
		}
		names = append(names, fn.Name)
	}
	return created, fmt.Errorf("library %s has no function %q (it registers: %s)", f.library, f.name, strings.Join(names, ", "))
}

// find reads the library's entry from FUNCTION LIST.
func (f *Function) find(ctx context.Context, rdb Redis, withCode bool) (redis.Library, error) {
	libs, err := rdb.FunctionList(ctx, redis.FunctionListQuery{LibraryNamePattern: f.library, WithCode: withCode}).Result()
	if err != nil {
		return redis.Library{}, fmt.Errorf("FUNCTION LIST %s: %w", f.library, err)
	}
	for _, l := range libs {
		if l.Name == f.library {
			return l, nil
		}
	}
	return redis.Library{}, fmt.Errorf("library %s is not on the server after FUNCTION LOAD", f.library)
}

// Run calls the function with FCALL. A function the server no longer has
// (after FUNCTION FLUSH, a restart or a failover) is not fatal: the library
// is loaded again, the reload counted, and the call retried once.
func (f *Function) Run(ctx context.Context, rdb Redis, keys []string, args ...any) (any, error) {
	return f.reloads.run(ctx, f, rdb, keys, func() (any, error) {
		return rdb.FCall(ctx, f.name, keys, args...).Result()
	})
}

// Lost reports whether err says the server no longer has the function
// (after FUNCTION FLUSH, a restart or a failover), so the call did not run.
func (f *Function) Lost(err error) bool {
	return err != nil && strings.Contains(err.Error(), "Function not found")
}

// Reload loads the library again after the server lost it, and counts the
// reload.
func (f *Function) Reload(ctx context.Context, rdb Redis) error { return f.reloads.reload(ctx, f, rdb) }

// AppendCommand appends to dst the FCALL of the function on keys with
// args, as go-redis sends it: to queue in a pipeline.
func (f *Function) AppendCommand(dst []any, keys []string, args ...any) []any {
	return appendCall(dst, "fcall", f.name, keys, args)
}

// Unload deletes the library when Load put it there, so that nothing of the
// run stays on a server rlbench does not own; a library that was already
// there stays.
func (f *Function) Unload(ctx context.Context, rdb Redis) error {
	if !f.created.Swap(false) {
		return nil
	}
	_, err := onEveryMaster(ctx, rdb, func(ctx context.Context, server Redis) (bool, error) {
		if err := server.FunctionDelete(ctx, f.library).Err(); err != nil && !strings.Contains(err.Error(), "not exist") {
			return false, fmt.Errorf("FUNCTION DELETE %s: %w", f.library, err)
		}
		return false, nil
	})
	return err
}
