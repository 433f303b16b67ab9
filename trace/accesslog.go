package trace

import (
	"bytes"
	"io"
	"regexp"
	"slices"
)

// The columns of an access log line, by their place in LogFields.
const (
	logHost = iota
	logIdent
	logUser
	logTime
	logRequest
	logMethod
	logPath
	logProtocol
	logStatus
	logBytes
	logReferer
	logUserAgent
	logColumns
)

// logParser reads the common or combined log format:
//
//	host ident user [time] "request" status bytes ["referer" "user agent"]
//
// Anything after the last field it reads (nginx's "$http_x_forwarded_for",
// say) is passed over; so are blank lines and lines starting with #.
type logParser struct {
	lines    *lineReader
	combined bool
	// identity, time and cost index the columns (cost -1: none).
	identity, time, cost int
	cols                 [logColumns][]byte
}

func newLogParser(s Spec, r io.Reader) *logParser {
	p := &logParser{lines: newLineReader(r), combined: s.Format == Combined, cost: -1}
	p.identity = slices.Index(LogFields, s.Identity)
	p.time = slices.Index(LogFields, s.Time)
	if s.Cost != "" {
		p.cost = slices.Index(LogFields, s.Cost)
	}
	return p
}

func (p *logParser) read(f *fields) error {
	for {
		b, err := p.lines.next()
		if err != nil {
			return err
		}
		if skippable(b) {
			continue
		}
		line := p.lines.line
		if msg := p.split(b); msg != "" {
			return badLine(line, "%s: %q", msg, clip(b))
		}
		f.line = line
		f.identity, f.time = p.cols[p.identity], p.cols[p.time]
		f.cost = nil
		if p.cost >= 0 {
			f.cost = p.cols[p.cost]
		}
		return nil
	}
}

// split cuts line into the columns; it says what is missing when the line
// is not in the format.
func (p *logParser) split(line []byte) string {
	c := &p.cols
	var ok bool
	rest := line
	if c[logHost], rest, ok = token(rest); !ok {
		return "no host"
	}
	if c[logIdent], rest, ok = token(rest); !ok {
		return "no ident field after the host"
	}
	if c[logUser], rest, ok = token(rest); !ok {
		return "no user field after the ident"
	}
	if c[logTime], rest, ok = enclosed(rest, '[', ']'); !ok {
		return "no [time] after the user"
	}
	if c[logRequest], rest, ok = enclosed(rest, '"', '"'); !ok {
		return "no quoted request after the time"
	}
	if c[logStatus], rest, ok = token(rest); !ok {
		return "no status after the request"
	}
	if c[logBytes], rest, ok = token(rest); !ok {
		return "no size after the status"
	}
	c[logReferer], c[logUserAgent] = nil, nil
	if p.combined {
		if c[logReferer], rest, ok = enclosed(rest, '"', '"'); !ok {
			return "no quoted referer after the size (a common log? give format: common)"
		}
		if c[logUserAgent], _, ok = enclosed(rest, '"', '"'); !ok {
			return "no quoted user agent after the referer"
		}
	}
	req := c[logRequest]
	c[logMethod], req, _ = bytes.Cut(req, []byte(" "))
	c[logPath], c[logProtocol], _ = bytes.Cut(req, []byte(" "))
	return ""
}

// token is b's first space-separated word, and what follows it.
func token(b []byte) (tok, rest []byte, ok bool) {
	b = bytes.TrimLeft(b, " ")
	if len(b) == 0 {
		return nil, nil, false
	}
	i := bytes.IndexByte(b, ' ')
	if i < 0 {
		return b, nil, true
	}
	return b[:i], b[i:], true
}

// enclosed is what stands between open and close at the start of b (a
// backslash escapes the next byte, as servers write a quote in a
// request), and what follows.
func enclosed(b []byte, open, close byte) (in, rest []byte, ok bool) {
	b = bytes.TrimLeft(b, " ")
	if len(b) == 0 || b[0] != open {
		return nil, nil, false
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case close:
			return b[1:i], b[i+1:], true
		}
	}
	return nil, nil, false
}

// regexParser reads each line with a regular expression whose named
// groups are the columns; blank lines and lines starting with # are passed
// over.
type regexParser struct {
	lines                *lineReader
	re                   *regexp.Regexp
	identity, time, cost int
	names                []string
	match                []int
}

func newRegexParser(s Spec, re *regexp.Regexp, r io.Reader) *regexParser {
	p := &regexParser{lines: newLineReader(r), re: re, cost: -1, names: re.SubexpNames()}
	p.identity = re.SubexpIndex(s.Identity)
	p.time = re.SubexpIndex(s.Time)
	if s.Cost != "" {
		p.cost = re.SubexpIndex(s.Cost)
	}
	return p
}

func (p *regexParser) read(f *fields) error {
	for {
		b, err := p.lines.next()
		if err != nil {
			return err
		}
		if skippable(b) {
			continue
		}
		line := p.lines.line
		p.match = p.re.FindSubmatchIndex(b)
		if p.match == nil {
			return badLine(line, "does not match the regex: %q", clip(b))
		}
		f.line = line
		if f.identity, err = p.group(b, line, p.identity); err != nil {
			return err
		}
		if f.time, err = p.group(b, line, p.time); err != nil {
			return err
		}
		f.cost = nil
		if p.cost >= 0 {
			if f.cost, err = p.group(b, line, p.cost); err != nil {
				return err
			}
		}
		return nil
	}
}

// group is what group i matched in line b.
func (p *regexParser) group(b []byte, line int64, i int) ([]byte, error) {
	from, to := p.match[2*i], p.match[2*i+1]
	if from < 0 {
		return nil, badLine(line, "the regex's group %q matched nothing: %q", p.names[i], clip(b))
	}
	return b[from:to], nil
}
