package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// csvParser reads a CSV trace: its first record names the columns, lines
// starting with # are comments, and a quoted field may hold commas and
// line breaks (RFC 4180, as encoding/csv reads it).
type csvParser struct {
	spec  Spec
	lines *limitedLines
	r     *csv.Reader
	// identity, time and cost are the columns' indexes (cost -1: none),
	// known once the header is read.
	identity, time, cost int
	header               bool
	columns              int
}

func newCSVParser(s Spec, r io.Reader) *csvParser {
	l := &limitedLines{r: r}
	c := csv.NewReader(l)
	c.Comment = '#'
	c.ReuseRecord = true
	c.FieldsPerRecord = -1
	return &csvParser{spec: s, lines: l, r: c, cost: -1}
}

func (p *csvParser) read(f *fields) error {
	if !p.header {
		if err := p.readHeader(); err != nil {
			return err
		}
	}
	for {
		rec, err := p.r.Read()
		if err != nil {
			return p.fail(err)
		}
		line, _ := p.r.FieldPos(0)
		if len(rec) == 1 && rec[0] == "" {
			continue
		}
		if len(rec) != p.columns {
			return badLine(int64(line), "has %s, the header %d", counted(len(rec), "field"), p.columns)
		}
		f.line = int64(line)
		f.identity, f.time = []byte(rec[p.identity]), []byte(rec[p.time])
		f.cost = nil
		if p.cost >= 0 {
			f.cost = []byte(rec[p.cost])
		}
		return nil
	}
}

// readHeader reads the column names and finds the spec's columns among
// them; a column the header lacks is fatal, naming those it has.
func (p *csvParser) readHeader() error {
	rec, err := p.r.Read()
	if errors.Is(err, io.EOF) {
		return fatal(0, "holds no header line: a CSV trace's first line names its columns (e.g. time,identity)")
	}
	if err != nil {
		// A header that cannot be read leaves no columns to read by.
		err = p.fail(err)
		var l *LineError
		if errors.As(err, &l) {
			l.Bad = false
		}
		return err
	}
	line, _ := p.r.FieldPos(0)
	names := make([]string, len(rec))
	for i, n := range rec {
		names[i] = strings.TrimSpace(n)
	}
	p.header, p.columns = true, len(names)
	find := func(name string) (int, error) {
		i := slices.Index(names, name)
		if i < 0 {
			return -1, fatal(int64(line), "%s", noColumn(name, names, "column", "the header"))
		}
		return i, nil
	}
	if p.identity, err = find(p.spec.Identity); err != nil {
		return err
	}
	if p.time, err = find(p.spec.Time); err != nil {
		return err
	}
	if p.spec.Cost != "" {
		if p.cost, err = find(p.spec.Cost); err != nil {
			return err
		}
	}
	return nil
}

// fail turns the CSV reader's error into the trace's: a record it cannot
// read is a bad line, a file it cannot read is fatal.
func (p *csvParser) fail(err error) error {
	var pe *csv.ParseError
	var le *LineError
	switch {
	case errors.Is(err, io.EOF):
		return io.EOF
	case errors.As(err, &le):
		return le
	case errors.As(err, &pe):
		if errors.As(pe.Err, &le) {
			return le
		}
		return badLine(int64(pe.StartLine), "%v", pe.Err)
	}
	return fatal(p.lines.line+1, "cannot read: %v", err)
}

// counted is "1 thing" or "N things".
func counted(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
