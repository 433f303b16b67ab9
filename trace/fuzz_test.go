package trace

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

// FuzzReader feeds arbitrary bytes to every format's parser and to the
// reader that orders what they read: nothing panics, every error is a
// LineError, a bad line is numbered, and requests come out in time order,
// no more of them than the lines.
func FuzzReader(f *testing.F) {
	f.Add(uint8(0), []byte("time,identity,cost\n1,a,1\n0.5,b,2\n\"x,y\",c,3\n"))
	f.Add(uint8(1), []byte(`{"time":"2025-01-01T00:00:00Z","identity":"a"}`+"\n{\"time\":1}\n# c\n"))
	f.Add(uint8(2), []byte(`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326`+"\n"))
	f.Add(uint8(3), []byte(`1.2.3.4 - u [10/Oct/2000:13:55:36 -0700] "GET /\"a HTTP/1.0" 200 - "-" "ua" "xff"`+"\n"))
	f.Add(uint8(4), []byte("1700000000 a 3\n1700000001 b\n"))
	specs := []Spec{
		{Format: CSV, Cost: "cost"},
		{Format: JSONL},
		{Format: Common, Cost: "bytes"},
		{Format: Combined, Identity: "user_agent"},
		{Format: Regex, Regex: `^(?P<time>\S+) (?P<identity>\S+)(?: (?P<cost>\d+))?$`},
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		s := specs[int(which)%len(specs)]
		s.File = "fuzz"
		s.SkipBadLines = 3
		s.ReorderWindow = time.Duration(which) * time.Second / 16
		s, err := s.Resolved()
		if err != nil {
			t.Fatal(err)
		}
		r, err := newReader(context.Background(), s, bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		lines := int64(bytes.Count(data, []byte("\n")) + 1)
		var e entry
		var n int64
		last := int64(-1)
		for {
			err := r.next(&e)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				var le *LineError
				if !errors.As(err, &le) || le.File != "fuzz" || le.Line < 0 || le.Line > lines {
					t.Fatalf("error %v (%T) is not a LineError of a line of the trace", err, err)
				}
				break
			}
			if e.ns < last {
				t.Fatalf("request of line %d at %d after one at %d", e.line, e.ns, last)
			}
			if e.line < 1 || e.line > lines || (s.Cost != "" && e.cost < 0) {
				t.Fatalf("request %+v outside the trace's %d lines", e, lines)
			}
			last = e.ns
			if n++; n > lines {
				t.Fatalf("%d requests from %d lines", n, lines)
			}
		}
	})
}
