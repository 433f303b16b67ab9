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
		run: func(_ context.Context, args []string, stdout, _ io.Writer) error {
			if err := wantArgs("init", args, 1, "the limiter's Lua file"); err != nil {
				return err
			}
			return writeSkeleton(args[0], o, stdout)
		},
	}
}

var notNameChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// writeSkeleton writes a commented profile for the limiter in luaPath and
// says what to check before the first run. It never overwrites a file.
func writeSkeleton(luaPath string, o initOptions, stdout io.Writer) error {
	src, err := readLua(luaPath)
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
	if _, err := profile.Load(out); err != nil {
		fmt.Fprintf(stdout, "before the first run, edit:\n%v\n", err)
		return nil
	}
	fmt.Fprintf(stdout, "then: rlbench run %s\n", out)
	return nil
}

// readLua reads a limiter's Lua, at most profile.MaxSourceBytes of it.
func readLua(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", usageErrorf("%v", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, profile.MaxSourceBytes+1))
	if err != nil {
		return "", usageErrorf("reading %s: %v", path, err)
	}
	if len(data) > profile.MaxSourceBytes {
		return "", usageErrorf("%s is larger than %d bytes; a limiter's Lua is far smaller", path, profile.MaxSourceBytes)
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
