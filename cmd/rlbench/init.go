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
	"time"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/calibrate"
	"github.com/rlbench/rlbench/internal/input"
	"github.com/rlbench/rlbench/internal/redisconf"
	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/workload"
)

// initOptions are the flags of `rlbench init`.
type initOptions struct {
	out      string
	name     string
	function string
	// redisAddr is the Redis to calibrate on (--redis); empty starts a
	// private redis-server. noCalibrate skips the calibration.
	redisAddr   string
	noCalibrate bool
}

// initCommand writes a profile skeleton for a user's limiter.
func initCommand() command {
	var o initOptions
	return command{
		name:  "init",
		usage: "[-o PROFILE.yaml] [--name NAME] [--function NAME] [--redis ADDR | --no-calibrate] LIMITER.lua",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&o.out, "o", "", "write the profile to `FILE` (default: NAME.yaml beside the Lua file)")
			fs.StringVar(&o.name, "name", "", "the limiter's `NAME` in keys, reports and thresholds (default: the file's name)")
			fs.StringVar(&o.function, "function", "", "for a Redis Functions library, the `FUNCTION` to call (default: the first it registers)")
			fs.StringVar(&o.redisAddr, "redis", "", "calibrate on the Redis at `ADDR` (host:port or redis:// URL; only keys under rlbench:init:, removed after) instead of a private redis-server")
			fs.BoolVar(&o.noCalibrate, "no-calibrate", false, "write the reading of the Lua without checking it against a Redis")
		},
		run: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
			if err := wantArgs("init", args, 1, "the limiter's Lua file"); err != nil {
				return err
			}
			if o.redisAddr != "" && o.noCalibrate {
				return usageErrorf("--redis names the Redis to calibrate on, and --no-calibrate skips the calibration: give one")
			}
			if o.redisAddr != "" {
				if err := redisconf.CheckAddr(o.redisAddr); err != nil {
					return usageErrorf("--redis: %v", err)
				}
			}
			return writeSkeleton(ctx, args[0], o, stdout, stderr)
		},
	}
}

var notNameChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// writeSkeleton writes a commented profile for the limiter in luaPath,
// calibrated on a Redis unless told not to, and says what to check before
// the first run. It never overwrites a file, and stops, having written
// nothing, when ctx ends (the first Ctrl-C) while it reads or calibrates.
func writeSkeleton(ctx context.Context, luaPath string, o initOptions, stdout, stderr io.Writer) error {
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
		dir, kind := inputFolder(luaPath)
		if dir == "" {
			return usageErrorf("%s is %s, not a file in a folder to write the profile beside: name the profile with -o FILE", luaPath, kind)
		}
		out = filepath.Join(dir, name+".yaml")
	} else if dir, kind := inputFolder(luaPath); dir == "" {
		fmt.Fprintf(stderr, "rlbench: warning: %s is %s: the profile names it as the limiter's Lua, and every run reads it again\n", luaPath, kind)
	}
	src, err := readLua(ctx, luaPath)
	if err != nil {
		return err
	}
	rel, err := relativeTo(filepath.Dir(out), luaPath)
	if err != nil {
		return err
	}
	draft, err := profile.NewDraft(profile.SkeletonOptions{Name: name, ScriptPath: rel, Source: src, Function: o.function, ProfilePath: out})
	if err != nil {
		return usageErrorf("%s: %v", luaPath, err)
	}
	if ctx.Err() != nil {
		return interrupted(ctx, "reading "+luaPath)
	}
	if _, err := os.Lstat(out); err == nil {
		return usageErrorf("%s exists; rlbench init does not overwrite a file (give another with -o)", out)
	}
	if !o.noCalibrate {
		if err := calibrateDraft(ctx, draft, luaPath, o, stdout, stderr); err != nil {
			return err
		}
	}
	text, err := draft.Render()
	if err != nil {
		return err
	}
	checks := draft.Checks()
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

// calibrateDraft probes the draft's declaration on a Redis, a private
// redis-server or the one --redis names (its keys only under a prefix of
// init's own, removed after), and revises the draft by what it found. It
// says so and goes on, the draft unrevised, when there is no Redis to
// probe or the Lua does not load; it stops when ctx ends.
func calibrateDraft(ctx context.Context, d *profile.Draft, luaPath string, o initOptions, stdout, stderr io.Writer) error {
	decl, unknown, err := d.Declaration()
	if err != nil {
		fmt.Fprintf(stdout, "not calibrated: %v; every guess stays marked CHECK\n", err)
		return nil
	}
	where := "a private redis-server"
	if o.redisAddr != "" {
		where = "the Redis at " + redisconf.Redact(o.redisAddr)
	}
	fmt.Fprintf(stderr, "rlbench: checking what it read of %s against %s (a few seconds; --no-calibrate skips it)\n", luaPath, where)
	// The embedded stand-in runs Lua of its own: what it made of a script
	// would not say what Redis makes of it.
	env, err := redisenv.Open(ctx, redisenv.Options{Addr: o.redisAddr, NoEmbedded: true, PoolSize: 8})
	switch {
	case ctx.Err() != nil:
		return interrupted(ctx, "calibrating on "+where)
	case err != nil:
		fmt.Fprintf(stdout, "not calibrated: %s; every guess stays marked CHECK (give --redis ADDR, or install redis-server)\n", report.PrintableLines(err.Error()))
		return nil
	}
	defer closeEnv(env, stderr)
	prefix := "rlbench:init:" + workload.NewRunID() + ":"
	start := time.Now()
	rep, err := calibrate.Run(ctx, env.Client, prefix, calibrate.Guess{Declaration: decl, Unknown: unknown})
	if cleanup := env.RemoveKeys(prefix); cleanup != nil && err == nil {
		fmt.Fprintf(stderr, "rlbench: warning: removing the calibration's keys under %s: %v\n", prefix, cleanup)
	}
	switch {
	case ctx.Err() != nil:
		return interrupted(ctx, "calibrating on "+where)
	case err != nil:
		fmt.Fprintf(stdout, "not calibrated: %s; every guess stays marked CHECK\n", report.PrintableLines(err.Error()))
		return nil
	}
	took := fmt.Sprintf("%d variants of the reading, %d calls, %s", rep.Probed, rep.Calls, time.Since(start).Round(100*time.Millisecond))
	d.Calibrated(profile.Calibration{Declaration: rep.Declaration, BoundOf: rep.BoundOf, Note: rep.Note, Where: where + ", " + took})
	verdict := "every probe held"
	if !rep.Passed {
		verdict = "some probes failed whatever was changed"
	}
	fmt.Fprintf(stdout, "calibrated on %s (%s): %s\n", where, took, verdict)
	var changed []string
	for _, f := range rep.Findings {
		if f.Fixed {
			changed = append(changed, f.String())
		}
	}
	if len(changed) > 0 {
		fmt.Fprintln(stdout, "changed by the calibration:")
		for _, c := range changed {
			fmt.Fprintln(stdout, "  - "+report.PrintableLines(c))
		}
	}
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
