package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "false"}}
	for _, tc := range []struct {
		why    string
		linked string
		info   *debug.BuildInfo
		want   string
	}{
		{"set at link time", "v9.9.9", &debug.BuildInfo{Main: debug.Module{Version: "v1.0.0"}}, "v9.9.9"},
		{"go install @v1.2.3: the module version, no VCS", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"a checkout, stamped", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs}, "dev-0123456789ab"},
		{"a checkout with changes", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}}}, "dev-0123456789ab-dirty"},
		{"no stamp (-buildvcs=false)", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"no build information", "", nil, "dev"},
	} {
		if got := versionOf(tc.linked, tc.info, tc.info != nil); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.why, got, tc.want)
		}
	}
}
