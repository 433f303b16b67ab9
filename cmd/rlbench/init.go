package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/input"
	"github.com/rlbench/rlbench/profile"
)

// initOptions are the flags of `rlbench init`.
type initOptions struct {
	out      string
	name     string
	function string
}

// initCommand writes a profile skeleton for a user's limiter.
func initCommand() command {
	var o initOptions
	return command{
		name:  "init",
		usage: "[-o PROFILE.yaml] [--name NAME] [--function NAME] LIMITER.lua",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&o.out, "o", "", "write the profile to `FILE` (default: NAME.yaml beside the Lua file)")
			fs.StringVar(&o.name, "name", "", "the limiter's `NAME` in keys, reports and thresholds (default: the file's name)")
			fs.StringVar(&o.function, "function", "", "for a Redis Functions library, the `FUNCTION` to call (default: the first it registers)")
		},
		run: func(ctx context.Context, args []string, stdout, _ io.Writer) error {
			if err := wantArgs("init", args, 1, "the limiter's Lua file"); err != nil {
				return err
			}
			return writeSkeleton(ctx, args[0], o, stdout)
		},
	}
}

var notNameChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// writeSkeleton writes a commented profile for the limiter in luaPath and
// says what to check before the first run. It never overwrites a file, and
// stops, having written nothing, when ctx ends (the first Ctrl-C) while it
// reads.
func writeSkeleton(ctx context.Context, luaPath string, o initOptions, stdout io.Writer) error {
	src, err := readLua(ctx, luaPath)
	if err != nil {
		return err
	}
	name := o.name
	if name == "" {
		name = notNameChars.ReplaceAllString(strings.TrimSuffix(filepath.Base(luaPath), filepath.Ext(luaPath)), "_")
		if algorithms.Known(name) {
			name = "my_" + name
		}
		name = name[:min(len(name), 64)]
	}
	out := o.out
	if out == "" {
		out = filepath.Join(filepath.Dir(luaPath), name+".yaml")
	}
	rel, err := relativeTo(filepath.Dir(out), luaPath)
	if err != nil {
		return err
	}
	text, checks, err := profile.Skeleton(profile.SkeletonOptions{Name: name, ScriptPath: rel, Source: src, Function: o.function})
	if err != nil {
		return usageErrorf("%s: %v", luaPath, err)
	}
	if ctx.Err() != nil {
		return interrupted(ctx, "reading "+luaPath)
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return usageErrorf("%s exists; rlbench init does not overwrite a file (give another with -o)", out)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(text); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s for %s\n", out, luaPath)
	if len(checks) > 0 {
		fmt.Fprintln(stdout, "check (marked CHECK in the file):")
		for _, c := range checks {
			fmt.Fprintln(stdout, "  - "+c)
		}
	}
	if _, err := profile.LoadContext(ctx, out); err != nil {
		if ctx.Err() != nil {
			return interrupted(ctx, "checking "+out)
		}
		fmt.Fprintf(stdout, "before the first run, edit:\n%v\n", err)
		return nil
	}
	fmt.Fprintf(stdout, "then: rlbench run %s\n", out)
	return nil
}

// readLua reads a limiter's Lua, at most profile.MaxSourceBytes of it,
// from a regular file or a named pipe, and refuses what is not Lua text:
// an empty file, a binary one. A read that waits (a pipe's writer) ends
// with ctx.
func readLua(ctx context.Context, path string) (string, error) {
	data, err := input.Read(ctx, path, "a limiter's Lua", profile.MaxSourceBytes)
	var tooLarge *input.TooLargeError
	switch {
	case ctx.Err() != nil:
		return "", interrupted(ctx, "reading "+path)
	case errors.As(err, &tooLarge):
		return "", usageErrorf("%s is larger than %d bytes; a limiter's Lua is far smaller", path, profile.MaxSourceBytes)
	case err != nil:
		return "", usageErrorf("%s: %v", path, err)
	}
	if err := profile.CheckLuaText(data); err != nil {
		return "", usageErrorf("%s %v", path, err)
	}
	return string(data), nil
}

// relativeTo is path as seen from dir, the way a profile in dir names it.
func relativeTo(dir, path string) (string, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	absPath, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absDir, absPath)
	if err != nil {
		return absPath, nil
	}
	return filepath.ToSlash(rel), nil
}
