package result

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// many is a result of n runs, each a copy of run, written as WriteFile
// writes it.
func many(t *testing.T, n int) []byte {
	t.Helper()
	r := &Result{Schema: Schema, Verdict: Pass, Complete: true, Thresholds: []ThresholdResult{},
		StartedAt: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	for i := range n {
		r.Runs = append(r.Runs, Run{Algorithm: "fixed_window", Scenario: fmt.Sprintf("s%d", i), Shape: "steady",
			Requests: Requests{Sent: 3, Allowed: 2, Denied: 1}, Series: []Second{{TS: 1, Allowed: 2, Denied: 1}}})
	}
	path := filepath.Join(t.TempDir(), "result.json")
	if err := WriteFile(path, r); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// cancelAfter is a reader that ends ctx once it has handed out more than
// n bytes: an interruption in the middle of a parse, at a place certain
// whatever the machine's speed.
type cancelAfter struct {
	r      io.Reader
	n      int64
	cancel context.CancelFunc
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	if len(p) > 512 {
		p = p[:512]
	}
	k, err := c.r.Read(p)
	if c.n -= int64(k); c.n < 0 {
		c.cancel()
	}
	return k, err
}

// TestDecodingStopsWhenInterrupted: a context that ends in the middle of
// a result stops the decoding before the next run, with the context's
// error, rather than after the whole file.
func TestDecodingStopsWhenInterrupted(t *testing.T) {
	data := many(t, 2000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := &countingReader{r: &cancelAfter{r: bytes.NewReader(data), n: int64(len(data) / 4), cancel: cancel}}
	_, err := decode(ctx, in, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want the context's", err)
	}
	if in.n > int64(len(data)/2) {
		t.Errorf("read %d of %d bytes after the interruption at a quarter", in.n, len(data))
	}
}

// TestDecodingNamesTheLine: an error deep in a large result names the
// line and column where it is, in a run far from the first, in a field
// outside the runs, and in a file read from disk as from memory.
func TestDecodingNamesTheLine(t *testing.T) {
	good := string(many(t, 50))
	lineOf := func(s, sub string, nth int) int {
		at := -1
		for range nth {
			at += 1 + strings.Index(s[at+1:], sub)
		}
		return strings.Count(s[:at], "\n") + 1
	}
	for _, tc := range []struct {
		why  string
		data string
		want string
	}{
		{"a wrong type in the 40th run", replaceNth(good, `"sent": 3`, `"sent": "x"`, 40),
			fmt.Sprintf("line %d, column", lineOf(good, `"sent": 3`, 40))},
		{"a wrong type outside the runs", strings.Replace(good, `"seed": 0`, `"seed": "x"`, 1),
			fmt.Sprintf("line %d, column", lineOf(good, `"seed": 0`, 1))},
		{"broken JSON in the 30th run", replaceNth(good, `"shape": "steady"`, `"shape": steady`, 30),
			fmt.Sprintf("invalid JSON at line %d, column", lineOf(good, `"shape": "steady"`, 30))},
		{"cut off between two runs", good[:strings.Index(good, `"algorithm"`)-1], "truncated JSON"},
		{"cut off after the runs begin", `{"schema": "rlbench.result/v1", "runs": [`, "truncated JSON"},
		{"cut off after a key", `{"schema"`, "truncated JSON"},
		{"an unknown field in the 20th run", replaceNth(good, `"shape": "steady"`, `"shape": "steady", "shaep": 1`, 20),
			`unknown field "shaep"`},
	} {
		_, err := Decode([]byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.why, err, tc.want)
		}
		path := filepath.Join(t.TempDir(), "r.json")
		if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, ferr := ReadFile(path)
		if ferr == nil || !strings.Contains(ferr.Error(), tc.want) {
			t.Errorf("%s, from a file: %v, want %q", tc.why, ferr, tc.want)
		}
	}
}

// replaceNth replaces the nth occurrence of old in s.
func replaceNth(s, old, new string, nth int) string {
	at := -1
	for range nth {
		at += 1 + strings.Index(s[at+1:], old)
	}
	return s[:at] + new + s[at+len(old):]
}
