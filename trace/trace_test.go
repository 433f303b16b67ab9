package trace

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// writeTrace writes content to a file called name in a fresh directory.
func writeTrace(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	data := []byte(content)
	if strings.HasSuffix(name, ".gz") {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write(data)
		w.Close()
		data = b.Bytes()
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// replayAll scans the trace and replays it whole, once, at speed.
func replayAll(t *testing.T, s Spec, part Part, speed float64) (*Summary, []Arrival) {
	t.Helper()
	sum, err := Scan(context.Background(), s, part)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := sum.Replay(context.Background(), speed, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	var out []Arrival
	var a Arrival
	for rp.Next(&a) {
		out = append(out, a)
	}
	if err := rp.Err(); err != nil {
		t.Fatal(err)
	}
	return sum, out
}

func TestCSVReplaysAtTheTracesTimes(t *testing.T) {
	path := writeTrace(t, "t.csv", "# made by hand\ntime,identity,cost\n"+
		"2025-01-01T00:00:00Z,alice,1\n"+
		"2025-01-01T00:00:00.5Z,bob,3\n"+
		"2025-01-01T00:00:01.25Z,alice,2\n")
	sum, got := replayAll(t, Spec{File: path, Cost: "cost"}, Part{}, 1)
	want := []Arrival{{0, 0, 1}, {500 * time.Millisecond, 1, 3}, {1250 * time.Millisecond, 0, 2}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("arrival %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if sum.Requests != 3 || sum.Identities != 2 || sum.Heaviest != 2 {
		t.Errorf("summary: %d requests, %d identities, heaviest %d; want 3, 2, 2", sum.Requests, sum.Identities, sum.Heaviest)
	}
	// One pass lasts to the last request plus the mean gap (625ms).
	if sum.Period != 1875*time.Millisecond {
		t.Errorf("period %s, want 1.875s", sum.Period)
	}
}

func TestSpeedCompressesTime(t *testing.T) {
	path := writeTrace(t, "t.csv", "time,identity\n100,a\n101,b\n110,a\n")
	_, got := replayAll(t, Spec{File: path}, Part{}, 10)
	if got[1].Due != 100*time.Millisecond || got[2].Due != time.Second {
		t.Errorf("at 10x: %+v, want dues 0, 100ms, 1s", got)
	}
}

// A malformed line fails naming its file and line, in every format.
func TestMalformedLineSevenIsNamed(t *testing.T) {
	good := func(i int) string { return "2025-01-01T00:00:0" + string(rune('0'+i)) + "Z" }
	var csvLines, jsonLines, logLines []string
	csvLines = append(csvLines, "time,identity")
	for i := 2; i <= 9; i++ {
		switch i {
		case 7:
			csvLines = append(csvLines, "yesterday,alice")
			jsonLines = append(jsonLines, `{"time": "2025-01-01T00:00:07Z", "identity": `)
			logLines = append(logLines, `10.0.0.1 - - 01/Jan/2025:00:00:07 +0000 "GET / HTTP/1.1" 200 5 "-" "x"`)
		default:
			csvLines = append(csvLines, good(i)+",alice")
			jsonLines = append(jsonLines, `{"time": "`+good(i)+`", "identity": "alice"}`)
			logLines = append(logLines, `10.0.0.1 - - [01/Jan/2025:00:00:0`+string(rune('0'+i))+` +0000] "GET / HTTP/1.1" 200 5 "-" "x"`)
		}
	}
	jsonLines = append([]string{`{"time": "2025-01-01T00:00:00Z", "identity": "alice"}`}, jsonLines...)
	logLines = append([]string{`10.0.0.1 - - [01/Jan/2025:00:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "x"`}, logLines...)
	for _, tc := range []struct {
		name, file, body, want string
	}{
		{"csv", "t.csv", strings.Join(csvLines, "\n"), `"yesterday" is not RFC 3339`},
		{"jsonl", "t.jsonl", strings.Join(jsonLines, "\n"), "not a JSON object"},
		{"combined", "t.log.gz", strings.Join(logLines, "\n"), "no [time] after the user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeTrace(t, tc.file, tc.body)
			_, err := Scan(context.Background(), Spec{File: path}, Part{})
			var le *LineError
			if !errors.As(err, &le) || le.Line != 7 || le.File != path {
				t.Fatalf("got %v, want an error at %s:7", err, path)
			}
			if !strings.HasPrefix(err.Error(), path+":7: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %q, want it to start %s:7 and say %q", err, path, tc.want)
			}
		})
	}
}

func TestSkipBadLinesCountsThemUpToTheLimit(t *testing.T) {
	body := "time,identity\n1,a\nx,a\n2,b\n3\n4,a\n,\n5,a\n"
	path := writeTrace(t, "t.csv", body)
	sum, got := replayAll(t, Spec{File: path, SkipBadLines: 3}, Part{}, 1)
	if sum.Skipped != 3 || len(got) != 4 {
		t.Errorf("skipped %d and replayed %d; want 3 and 4", sum.Skipped, len(got))
	}
	if !strings.Contains(sum.FirstSkipped, path+":3:") {
		t.Errorf("first skipped: %q, want line 3", sum.FirstSkipped)
	}
	_, err := Scan(context.Background(), Spec{File: path, SkipBadLines: 2}, Part{})
	if err == nil || !strings.HasPrefix(err.Error(), path+":7: ") || !strings.Contains(err.Error(), "bad line 3: skip_bad_lines allows 2") {
		t.Errorf("with 2 allowed: %v, want line 7 as the third bad line", err)
	}
}

// A column the trace does not have names the ones it has.
func TestMissingColumnNamesThoseThatExist(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec Spec
		body string
		want string
	}{
		{"csv header", Spec{File: "t.csv", Identity: "ip"}, "time,client,path\n1,a,/\n",
			`t.csv:1: the header has no column "ip" (has: time, client, path)`},
		{"csv hint", Spec{File: "t.csv", Identity: "clent"}, "time,client\n1,a\n",
			`did you mean "client"?`},
		{"jsonl", Spec{File: "t.jsonl", Identity: "user"}, `{"ts": 1, "ip": "a", "time": 2}` + "\n",
			`t.jsonl:1: the first object has no field "user" (has: ip, time, ts)`},
		{"regex", Spec{File: "t.txt", Format: Regex, Regex: `^(?P<when>\S+) (?P<who>\S+)`, Time: "when"}, "1 a\n",
			`identity: regex has no named group "identity" (has: when, who)`},
		{"log", Spec{File: "t.log", Identity: "ip"}, "",
			`identity: format combined has no field "ip" (has: host, ident, user, time, request, method, path, protocol, status, bytes, referer, user_agent)`},
		{"common has no agent", Spec{File: "t.log", Format: Common, Identity: "user_agent"}, "",
			`format common has no field "user_agent"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.spec.File = writeTrace(t, tc.spec.File, tc.body)
			_, err := Scan(context.Background(), tc.spec, Part{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want it to hold %q", err, tc.want)
			}
		})
	}
}

func TestReorderWindow(t *testing.T) {
	// Line 4 is 2s early, line 6 one second: within 5s both go back in place.
	body := "time,identity\n10,a\n11,b\n9,c\n12,d\n11.5,e\n20,f\n"
	path := writeTrace(t, "t.csv", body)
	sum, got := replayAll(t, Spec{File: path, ReorderWindow: 5 * time.Second}, Part{}, 1)
	var dues []time.Duration
	for _, a := range got {
		dues = append(dues, a.Due)
	}
	want := []time.Duration{0, time.Second, 2 * time.Second, 2500 * time.Millisecond, 3 * time.Second, 11 * time.Second}
	if len(dues) != len(want) || sum.Reordered != 2 {
		t.Fatalf("dues %v (reordered %d), want %v (2)", dues, sum.Reordered, want)
	}
	for i := range want {
		if dues[i] != want[i] {
			t.Errorf("due %d: %s, want %s", i, dues[i], want[i])
		}
	}
	// Identities are numbered in time order: c (9) first.
	if got[0].Identity != 0 || got[1].Identity != 1 {
		t.Errorf("identities %v: want c then a numbered 0 and 1", got)
	}
	_, err := Scan(context.Background(), Spec{File: path, ReorderWindow: time.Second}, Part{})
	if err == nil || !strings.HasPrefix(err.Error(), path+":4: ") || !strings.Contains(err.Error(), "2s earlier than line 3's") {
		t.Errorf("window 1s: %v, want line 4 refused as 2s earlier than line 3", err)
	}
	_, err = Scan(context.Background(), Spec{File: path}, Part{})
	if err == nil || !strings.HasPrefix(err.Error(), path+":4: ") || !strings.Contains(err.Error(), "out of time order") {
		t.Errorf("no window: %v, want line 4 named as the first out of order", err)
	}
}

// Requests that share a second of an access log are spread over it in the
// order the log has them.
func TestTiesAreSpreadOverTheirTick(t *testing.T) {
	line := func(ip, ts string) string {
		return ip + ` - - [` + ts + `] "GET /x HTTP/1.1" 200 1 "-" "ua \"q\""` + "\n"
	}
	body := line("1.1.1.1", "01/Jan/2025:00:00:00 +0000") + line("2.2.2.2", "01/Jan/2025:00:00:00 +0000") +
		line("3.3.3.3", "01/Jan/2025:00:00:00 +0000") + line("1.1.1.1", "01/Jan/2025:00:00:00 +0000") +
		line("2.2.2.2", "01/Jan/2025:00:00:01 +0000")
	_, got := replayAll(t, Spec{File: writeTrace(t, "access.log", body)}, Part{}, 1)
	want := []Arrival{{0, 0, 0}, {250 * time.Millisecond, 1, 0}, {500 * time.Millisecond, 2, 0}, {750 * time.Millisecond, 0, 0}, {time.Second, 1, 0}}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("got %+v, want %+v", got, want)
		}
	}
}

func TestGzipIsToldByItsBytesNotItsName(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte("time,identity\n1,a\n2,b\n"))
	w.Close()
	zipped := filepath.Join(dir, "looks-plain.csv")
	os.WriteFile(zipped, b.Bytes(), 0o644)
	plain := filepath.Join(dir, "looks-zipped.csv.gz")
	os.WriteFile(plain, []byte("time,identity\n1,a\n2,b\n"), 0o644)
	for _, p := range []string{zipped, plain} {
		sum, err := Scan(context.Background(), Spec{File: p}, Part{})
		if err != nil || sum.Requests != 2 || sum.Gzip != (p == zipped) {
			t.Errorf("%s: %+v, %v", p, sum, err)
		}
	}
	cut := filepath.Join(dir, "cut.csv.gz")
	os.WriteFile(cut, b.Bytes()[:len(b.Bytes())-12], 0o644)
	if _, err := Scan(context.Background(), Spec{File: cut}, Part{}); err == nil || !strings.Contains(err.Error(), "damaged or cut short") {
		t.Errorf("a gzip cut short: %v", err)
	}
}

func TestTimeFormats(t *testing.T) {
	for _, tc := range []struct {
		format, in string
		wantNs     int64
		wantTick   time.Duration
	}{
		{TimeAuto, "1700000000", 1700000000e9, time.Second},
		{TimeAuto, "1700000000.250", 1700000000250e6, time.Millisecond},
		{TimeAuto, "1700000000123", 1700000000123e6, time.Millisecond},
		{TimeAuto, "1700000000123456", 1700000000123456e3, time.Microsecond},
		{TimeAuto, "1700000000123456789", 1700000000123456789, 1},
		{TimeAuto, "2023-11-14T22:13:20.5+00:00", 1700000000500e6, 100 * time.Millisecond},
		{TimeAuto, "[14/Nov/2023:22:13:20 +0000]", 1700000000e9, time.Second},
		{TimeUnixSeconds, "86400", 86400e9, time.Second},
		{TimeUnixMillis, "1700000000123.5", 1700000000123500000, 100 * time.Microsecond},
		{TimeUnixMicros, "1700000000123456", 1700000000123456e3, time.Microsecond},
		{TimeCLF, "14/Nov/2023:23:13:20 +0100", 1700000000e9, time.Second},
		{"2006-01-02 15:04:05.000", "2023-11-14 22:13:20.125", 1700000000125e6, time.Millisecond},
	} {
		p, err := newTimeParser(tc.format)
		if err != nil {
			t.Fatal(err)
		}
		ns, tick, err := p.parse([]byte(tc.in))
		if err != nil || ns != tc.wantNs || tick != int64(tc.wantTick) {
			t.Errorf("%s %q: %d tick %d (%v), want %d tick %d", tc.format, tc.in, ns, tick, err, tc.wantNs, tc.wantTick)
		}
	}
	// An auto parser decides on the first time and holds to it.
	p, _ := newTimeParser(TimeAuto)
	p.parse([]byte("1700000000"))
	if _, _, err := p.parse([]byte("2023-11-14T22:13:20Z")); err == nil || !strings.Contains(err.Error(), "seconds since the epoch") {
		t.Errorf("a second format after the first: %v", err)
	}
	for _, bad := range []string{"", "-5", "1e9", "1.", "99999999999999999999", "0x10"} {
		p, _ := newTimeParser(TimeUnixSeconds)
		if _, _, err := p.parse([]byte(bad)); err == nil {
			t.Errorf("%q read as a time", bad)
		}
	}
	if _, err := newTimeParser("epoch"); err == nil || !strings.Contains(err.Error(), "unknown time format") {
		t.Errorf("unknown format: %v", err)
	}
}

// Identities are numbered densely in the order the part first shows them,
// and the dictionary refuses more than its cap.
func TestIdentitiesAreNumberedDenselyAndCapped(t *testing.T) {
	path := writeTrace(t, "t.jsonl", `{"time":1,"identity":"k9"}
{"time":2,"identity":"k3"}
{"time":3,"identity":"k9"}
{"time":4,"identity":7}
`)
	sum, got := replayAll(t, Spec{File: path}, Part{}, 1)
	ids := []uint64{got[0].Identity, got[1].Identity, got[2].Identity, got[3].Identity}
	if ids[0] != 0 || ids[1] != 1 || ids[2] != 0 || ids[3] != 2 || sum.Identities != 3 {
		t.Errorf("identities %v (%d), want 0 1 0 2 (3)", ids, sum.Identities)
	}
	if got := sum.RequestsOf(func(id uint64) bool { return id%2 == 0 }); got != 3 {
		t.Errorf("requests of identities 0 and 2: %d, want 3", got)
	}
	_, err := Scan(context.Background(), Spec{File: path, MaxIdentities: 2}, Part{})
	if err == nil || !strings.HasPrefix(err.Error(), path+":4: more than 2 distinct identities") {
		t.Errorf("cap 2: %v", err)
	}
}

func TestPartAndLoop(t *testing.T) {
	path := writeTrace(t, "t.csv", "time,identity\n0,a\n1,b\n2,c\n3,d\n4,e\n")
	sum, got := replayAll(t, Spec{File: path}, Part{Start: time.Second, Duration: 2 * time.Second}, 1)
	if len(got) != 2 || got[0] != (Arrival{0, 0, 0}) || got[1] != (Arrival{time.Second, 1, 0}) || sum.Period != 2*time.Second {
		t.Fatalf("part 1s+2s: %+v (period %s)", got, sum.Period)
	}
	// The hash is the whole file's, though the part ends before it.
	data, _ := os.ReadFile(path)
	if h := sha256.Sum256(data); sum.SHA256 != hex.EncodeToString(h[:]) {
		t.Errorf("sha256 %s, want the file's %x", sum.SHA256, h)
	}
	if _, err := Scan(context.Background(), Spec{File: path}, Part{Start: time.Minute}); err == nil || !strings.Contains(err.Error(), "holds no request") {
		t.Errorf("a part past the end: %v", err)
	}
	// Looping: each pass one period (2s) after the last, at 2x.
	rp, err := sum.Replay(context.Background(), 2, true)
	if err != nil {
		t.Fatal(err)
	}
	var a Arrival
	var dues []time.Duration
	for len(dues) < 6 && rp.Next(&a) {
		dues = append(dues, a.Due)
	}
	rp.Close()
	want := []time.Duration{0, 500 * time.Millisecond, time.Second, 1500 * time.Millisecond, 2 * time.Second, 2500 * time.Millisecond}
	for i := range want {
		if i >= len(dues) || dues[i] != want[i] {
			t.Fatalf("looped dues %v, want %v", dues, want)
		}
	}
	if err := rp.Err(); err != nil {
		t.Errorf("closed replay: %v", err)
	}
}

func TestAChangedFileFailsTheReplay(t *testing.T) {
	path := writeTrace(t, "t.csv", "time,identity\n0,a\n1,b\n")
	sum, err := Scan(context.Background(), Spec{File: path}, Part{})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte("time,identity\n0,a\n1,b\n2,c\n"), 0o644)
	if _, err := sum.Replay(context.Background(), 1, false); err == nil || !strings.Contains(err.Error(), "changed since it was checked") {
		t.Errorf("replay of a changed file: %v", err)
	}
}

func TestSpecIsChecked(t *testing.T) {
	for _, tc := range []struct {
		spec Spec
		want string
	}{
		{Spec{File: "x.txt"}, "format: cannot tell the format of x.txt"},
		{Spec{File: "x.txt", Format: "jsonlines"}, `unknown format "jsonlines"`},
		{Spec{File: "x.log", Format: Regex}, "regex: missing"},
		{Spec{File: "x.log", Regex: "(?P<time>.)"}, "regex: has no meaning for format combined"},
		{Spec{File: "x.txt", Format: Regex, Regex: "(?P<time"}, "regex: invalid named capture"},
		{Spec{File: "x.csv", TimeFormat: "epoch"}, "time_format: unknown time format"},
		{Spec{File: "x.csv", Identity: "time"}, `identity: "time" is also the time column`},
		{Spec{File: "x.log", Time: "status"}, "an access log's time is its [time] field"},
		{Spec{File: "x.csv", MaxIdentities: MaxIdentitiesLimit + 1}, "max_identities: must be from 1"},
	} {
		if _, err := tc.spec.Resolved(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.spec, err, tc.want)
		}
	}
	if _, err := Scan(context.Background(), Spec{File: "/nonexistent/t.csv"}, Part{}); err == nil || !strings.Contains(err.Error(), "/nonexistent/t.csv: cannot read: no such file") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Scan(context.Background(), Spec{File: t.TempDir() + "/"}, Part{}); err == nil {
		t.Error("a directory read as a trace")
	}
}

func TestLongLinesAreRefused(t *testing.T) {
	long := strings.Repeat("x", MaxLineBytes+10)
	for _, name := range []string{"t.csv", "t.jsonl"} {
		path := writeTrace(t, name, "time,identity\n1,a\n2,"+long+"\n")
		if name == "t.jsonl" {
			path = writeTrace(t, name, `{"time":1,"identity":"a"}`+"\n"+`{"time":2,"identity":"`+long+"\"}\n")
		}
		_, err := Scan(context.Background(), Spec{File: path, SkipBadLines: 5}, Part{})
		if err == nil || !strings.Contains(err.Error(), ":3: longer than") && !strings.Contains(err.Error(), ":2: longer than") {
			t.Errorf("%s: %v, want the long line named", name, err)
		}
	}
}

// RequestsWithin counts a replay's requests up to a time, looping or not,
// to within what the timeline's buckets tell apart.
func TestRequestsWithin(t *testing.T) {
	var b strings.Builder
	b.WriteString("time,identity\n")
	// 3000 requests over 30s: 100 a second, one every 10ms.
	for i := 0; i < 3000; i++ {
		b.WriteString(strconv.FormatFloat(float64(i)/100, 'f', 2, 64) + ",a\n")
	}
	sum, err := Scan(context.Background(), Spec{File: writeTrace(t, "t.csv", b.String())}, Part{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Period != 30*time.Second {
		t.Fatalf("period %s, want 30s", sum.Period)
	}
	for _, tc := range []struct {
		d    time.Duration
		loop bool
		want int64
	}{
		{0, false, 0},
		{10 * time.Second, false, 1000},
		{15*time.Second + 5*time.Millisecond, false, 1501},
		{time.Minute, false, 3000},
		// Just past the last request (29.99s): all of them, though the
		// last bucket reaches further.
		{29*time.Second + 995*time.Millisecond, false, 3000},
		{time.Minute, true, 6000},
		{75 * time.Second, true, 7500},
	} {
		got := sum.RequestsWithin(tc.d, tc.loop)
		// A bucket is 32ms wide here: at most about three requests off.
		if got < tc.want-3 || got > tc.want+3 || (tc.want == 3000 && got != 3000) {
			t.Errorf("within %s (loop %v): %d, want about %d", tc.d, tc.loop, got, tc.want)
		}
	}
}
