package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func sampleResult() *Result {
	return &Result{
		Schema:    Schema,
		Tool:      Tool{Name: "rlbench", Version: "test"},
		Profile:   ProfileInfo{Name: "demo", Policy: PolicyInfo{Limit: 100, WindowMs: 1000, Burst: 100}},
		Redis:     RedisInfo{Mode: "private", Version: "7.0.15", Addr: "127.0.0.1:1"},
		StartedAt: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC),
		Complete:  true,
		Runs: []Run{{
			Algorithm: "fixed_window", Scenario: "steady", Shape: "steady",
			Requests:  Requests{Sent: 10, Allowed: 6, Denied: 3, Errors: 1},
			LatencyUs: Latency{Count: 10, P50: 250, P99: 1500, P999: 2500000, Max: 2500000},
			Errors:    []ErrorCount{{Message: "i/o timeout", Count: 1}},
		}},
		Thresholds: []ThresholdResult{},
		Verdict:    Pass,
	}
}

func TestWriteFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "result.json")
	want := sampleResult()
	if err := WriteFile(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Runs[0].Requests != want.Runs[0].Requests || got.Profile.Name != "demo" || !got.StartedAt.Equal(want.StartedAt) {
		t.Errorf("round trip changed the result: %+v", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestDecodeSaysWhatIsWrong(t *testing.T) {
	good, err := marshalResult(sampleResult())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		why  string
		data string
		want string
	}{
		{"empty", "", "empty file"},
		{"truncated", good[:len(good)/2], "truncated JSON"},
		{"not JSON", "schema: yes", "invalid JSON at line 1"},
		{"another schema", strings.Replace(good, Schema, "rlbench.result/v9", 1), `schema "rlbench.result/v9" is not supported`},
		{"no schema", `{"runs": []}`, `no "schema" field`},
		{"wrong type", strings.Replace(good, `"sent": 10`, `"sent": "ten"`, 1), "field runs.requests.sent holds a JSON string"},
		{"unknown field", strings.Replace(good, `"verdict"`, `"verdikt": 1, "verdict"`, 1), `unknown field "verdikt"`},
		{"bad verdict", strings.Replace(good, `"verdict": "pass"`, `"verdict": "maybe"`, 1), `verdict "maybe"`},
	} {
		_, err := Decode([]byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.why, err, tc.want)
		}
	}
}

func marshalResult(r *Result) (string, error) {
	path := filepath.Join(os.TempDir(), "rlbench-report-test.json")
	defer os.Remove(path)
	if err := WriteFile(path, r); err != nil {
		return "", err
	}
	b, err := os.ReadFile(path)
	return string(b), err
}

func TestFormatMicros(t *testing.T) {
	for us, want := range map[int64]string{0: "0us", 87: "87us", 999: "999us", 1000: "1.00ms", 1240: "1.24ms", 12400: "12.4ms", 124000: "124ms", 2_000_000: "2.00s"} {
		if got := FormatMicros(us); got != want {
			t.Errorf("FormatMicros(%d) = %q, want %q", us, got, want)
		}
	}
}

func TestSummaryFlagsWhatMatters(t *testing.T) {
	r := sampleResult()
	r.Complete = false
	r.IncompleteReason = "interrupted (Ctrl-C)"
	r.Redis.MaxmemoryPolicy = "allkeys-lru"
	var buf bytes.Buffer
	if err := WriteSummary(&buf, r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"fixed_window", "250us", "1.50ms", "2.50s", "INCOMPLETE: interrupted", "allkeys-lru", `1 of 10 requests failed (most common: "i/o timeout" x1)`} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{117, "117 B"},                 // a whole per-identity figure
		{87.5, "87.5 B"},               // small and fractional: one decimal
		{138.23, "138 B"},              // three digits are enough
		{1536, "1.50 KiB"},             // past 1 KiB
		{58 * 1024 * 1024, "58.0 MiB"}, // an RSS
		{-3460.8, "-3.38 KiB"},         // a noisy delta can be negative
	} {
		if got := formatSize(tc.v); got != tc.want {
			t.Errorf("formatSize(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	if FormatBytes(0) != "-" {
		t.Errorf("FormatBytes(0) = %q, want -", FormatBytes(0))
	}
}
