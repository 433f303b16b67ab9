package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
)

// versionCommand prints the version.
func versionCommand() command {
	return command{
		name: "version",
		run: func(_ context.Context, args []string, stdout, _ io.Writer) error {
			if err := wantArgs("version", args, 0, "no arguments"); err != nil {
				return err
			}
			_, err := fmt.Fprintln(stdout, "rlbench", version())
			return err
		},
	}
}

// buildVersion is set at link time (-ldflags "-X main.buildVersion=v1.2.3").
var buildVersion = ""

// version is the link-time version, or the VCS revision the binary was built
// from, or "dev".
func version() string {
	if buildVersion != "" {
		return buildVersion
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "dev-" + rev
}
