package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// versionCommand prints the version.
func versionCommand() command {
	return command{
		name: "version",
		run: func(_ context.Context, args []string, stdout, _ io.Writer) error {
			if err := wantArgs("version", args, 0, "no arguments"); err != nil {
				return err
			}
			info, ok := debug.ReadBuildInfo()
			line := "rlbench " + version()
			if d := versionDetails(info, ok); d != "" {
				line += " (" + d + ")"
			}
			_, err := fmt.Fprintln(stdout, line)
			return err
		},
	}
}

// buildVersion is set at link time (-ldflags "-X main.buildVersion=v1.2.3").
var buildVersion = ""

// version is what a result records as the tool's version: the link-time
// version; else the module version the binary was built as (what `go
// install github.com/rlbench/rlbench/cmd/rlbench@v1.2.3` gives); else
// the VCS revision of the checkout it was built from; else "dev".
func version() string {
	info, ok := debug.ReadBuildInfo()
	return versionOf(buildVersion, info, ok)
}

func versionOf(linked string, info *debug.BuildInfo, ok bool) string {
	if linked != "" {
		return linked
	}
	if !ok || info == nil {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := revision(info)
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

// revision is the VCS revision the binary was built from, and whether the
// checkout had changes; "" when the build did not stamp it.
func revision(info *debug.BuildInfo) (rev string, dirty bool) {
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	return rev, dirty
}

// versionDetails is what `rlbench version` prints after the version: the
// module path, the revision and its time, and the Go that built it.
func versionDetails(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return ""
	}
	var parts []string
	if info.Main.Path != "" {
		parts = append(parts, info.Main.Path)
	}
	if rev, dirty := revision(info); rev != "" {
		s := "revision " + rev
		if dirty {
			s += " (with uncommitted changes)"
		}
		for _, st := range info.Settings {
			if st.Key == "vcs.time" {
				s += " of " + st.Value
			}
		}
		parts = append(parts, s)
	}
	parts = append(parts, "built with "+info.GoVersion)
	return strings.Join(parts, ", ")
}
