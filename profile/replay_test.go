package profile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/plan"
)

// replayDir writes a profile's directory holding traces/t.csv: 20
// requests from 4 identities over 9.5 seconds (one every half second).
func replayDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "traces"), 0o755)
	var b strings.Builder
	b.WriteString("time,identity,user,n\n")
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "%.1f,10.0.0.%d,u%d,%d\n", 1700000000+float64(i)/2, i%4, i%2, i%3+1)
	}
	if err := os.WriteFile(filepath.Join(dir, "traces", "t.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

const replayProfile = `policy: {limit: 10, window: 1s}
algorithms: [fixed_window, sliding_log]
scenarios:
  - name: replay
    shape: replay
%s
`

func TestReplayScenario(t *testing.T) {
	dir := replayDir(t)
	for _, tc := range []struct {
		why        string
		body       string
		identities int
		duration   time.Duration
		planned    int64
	}{
		{"the whole trace at its own pace: 20 requests, 10s a pass (9.5s and the mean gap)",
			"    trace: traces/t.csv", 4, 10 * time.Second, 20},
		{"ten times as fast",
			"    trace: traces/t.csv\n    speed: 10x", 4, time.Second, 20},
		{"a part: from 2s for 3s, six requests; the identity is the user column",
			"    trace: {file: traces/t.csv, identity: user}\n    start: 2s\n    duration: 3s", 2, 3 * time.Second, 6},
		{"looping for 25s at 2x: five passes",
			"    trace: traces/t.csv\n    speed: 2x\n    loop: true\n    run_for: 25s", 4, 25 * time.Second, 100},
		{"looping for 50 requests: three passes",
			"    trace: traces/t.csv\n    loop: true\n    requests: 50", 4, 30 * time.Second, 50},
	} {
		t.Run(tc.why, func(t *testing.T) {
			p, err := Parse(filepath.Join(dir, "p.yaml"), []byte(fmt.Sprintf(replayProfile, tc.body)))
			if err != nil {
				t.Fatal(err)
			}
			pl := p.Plan(1)
			r := pl.Runs[0]
			if r.Shape != plan.ShapeReplay || r.Replay == nil || r.Identities != tc.identities || r.Duration != tc.duration || r.Planned != tc.planned {
				t.Errorf("run: shape %s, %d identities, %s, %d planned; want replay, %d, %s, %d",
					r.Shape, r.Identities, r.Duration, r.Planned, tc.identities, tc.duration, tc.planned)
			}
			if len(pl.Runs) != 2 || pl.Runs[1].Replay != r.Replay {
				t.Error("the limiters do not share one reading of the trace")
			}
		})
	}
}

func TestReplayErrors(t *testing.T) {
	dir := replayDir(t)
	bad := "time,identity\n"
	for i := 1; i <= 9; i++ {
		if i == 6 { // line 7, after the header
			bad += "noon,a\n"
			continue
		}
		bad += fmt.Sprintf("%d,a\n", i)
	}
	os.WriteFile(filepath.Join(dir, "traces", "bad.csv"), []byte(bad), 0o644)
	path := filepath.Join(dir, "p.yaml")
	tracePath := filepath.Join(dir, "traces")
	for _, tc := range []struct {
		body string
		want string
	}{
		{"    trace: traces/bad.csv",
			`p.yaml:6: scenarios[0].trace: ` + tracePath + `/bad.csv:7: time: "noon" is not seconds since the epoch`},
		{"    trace: {file: traces/bad.csv, skip_bad_lines: 1}\n    speed: 0x",
			`p.yaml:7: scenarios[0].speed: "0x" is not a speed like 10x`},
		{"    trace: {file: traces/t.csv, identity: ip}",
			`scenarios[0].trace: ` + tracePath + `/t.csv:1: the header has no column "ip" (has: time, identity, user, n)`},
		{"    trace: {file: traces/t.csv, format: xml}",
			`p.yaml:6: scenarios[0].trace.format: unknown format "xml"`},
		{"    trace: {file: traces/t.csv, time_fromat: unix_s}",
			`scenarios[0].trace.time_fromat: unknown field (did you mean "time_format"?`},
		{"    trace: traces/none.csv",
			`scenarios[0].trace: ` + tracePath + `/none.csv: cannot read: no such file or directory`},
		{"    trace: traces/t.txt",
			`scenarios[0].trace: format: cannot tell the format of`},
		{"    rate: 2x\n    trace: traces/t.csv",
			`scenarios[0].rate: unknown field`},
		{"    trace: traces/t.csv\n    run_for: 1m",
			`scenarios[0].run_for: bounds a replay that loops`},
		{"    trace: traces/t.csv\n    loop: true",
			`scenarios[0].loop: repeats the trace without end`},
		{"    trace: traces/t.csv\n    start: 1h",
			`scenarios[0].start: the part from 1h0m0s for the rest of the trace holds no request`},
		{"    identities: 5\n    trace: traces/t.csv",
			`scenarios[0].identities: unknown field`},
		{"    speed: 2x",
			`scenarios[0].trace: missing`},
		{"    trace: {file: traces/t.csv, cost: n}",
			`p.yaml:6: scenarios[0].trace.cost: the trace's column "n" gives each request's cost, but no limiter here takes ${cost}`},
	} {
		_, err := Parse(path, []byte(fmt.Sprintf(replayProfile, tc.body)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %q", tc.body, err, tc.want)
		}
	}
	// Skipping the bad line is allowed and counted.
	p, err := Parse(path, []byte(fmt.Sprintf(replayProfile, "    trace: {file: traces/bad.csv, skip_bad_lines: 1}")))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Scenarios[0].Replay.Trace; got.Skipped != 1 || got.Requests != 8 {
		t.Errorf("skipped %d, %d requests; want 1 and 8", got.Skipped, got.Requests)
	}
	if w := p.Warnings(); len(w) != 1 || !strings.Contains(w[0], "p.yaml:4: scenario replay: 1 bad line of the trace skipped (skip_bad_lines: 1); the first: "+tracePath+"/bad.csv:7: time:") {
		t.Errorf("warnings %q", w)
	}
}
