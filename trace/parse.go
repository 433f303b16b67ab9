package trace

import (
	"io"
	"regexp"
)

// fields is one request as a parser read it from its line: views into the
// line, valid until the next read.
type fields struct {
	time, identity, cost []byte
	// line is where the request starts.
	line int64
}

// parser reads a trace's requests, line by line.
type parser interface {
	// read reads the next request into f. It returns io.EOF after the
	// last, and a *LineError for a line it cannot read: Bad when the
	// reading may go on past it (Spec.SkipBadLines), fatal otherwise (a
	// column the trace does not have, a file that cannot be read).
	read(f *fields) error
}

// newParser reads r, a trace in the format of resolved spec s.
func newParser(s Spec, r io.Reader) parser {
	switch s.Format {
	case CSV:
		return newCSVParser(s, r)
	case JSONL:
		return newJSONParser(s, r)
	case Regex:
		return newRegexParser(s, regexp.MustCompile(s.Regex), r)
	}
	return newLogParser(s, r)
}

// MaxCost is the most units one request of a trace may ask for.
const MaxCost = 1 << 30

// parseCost reads a request's cost: a whole number from 1 to MaxCost.
func parseCost(line int64, b []byte) (int64, error) {
	if len(b) == 0 || len(b) > 10 {
		return 0, badLine(line, "cost %q is not a whole number from 1 to %d", clip(b), MaxCost)
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, badLine(line, "cost %q is not a whole number from 1 to %d", clip(b), MaxCost)
		}
		v = v*10 + int64(c-'0')
	}
	if v < 1 || v > MaxCost {
		return 0, badLine(line, "cost %q is not a whole number from 1 to %d", clip(b), MaxCost)
	}
	return v, nil
}

// skippable reports whether a line is a comment or blank, which line
// formats pass over: a trace may carry its parameters in a # line.
func skippable(line []byte) bool {
	return len(line) == 0 || line[0] == '#'
}
