package trace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// entry is one request read from a trace.
type entry struct {
	// ns is its time in nanoseconds since the epoch, spread within the
	// tick it was written at when several share it; tick is that
	// resolution.
	ns, tick int64
	// hash is its identity's.
	hash uint64
	// cost is how many units it asks for (0: the run's cost).
	cost int64
	// line is where it starts in the file.
	line int64
}

// reader reads a trace's requests in time order: parsed, bad lines
// skipped as the spec allows, put back in order within the reorder window,
// and requests that share a time spread over its tick.
type reader struct {
	ctx  context.Context
	spec Spec
	file *openedFile
	p    parser
	tp   *timeParser
	f    fields

	pending entryHeap
	// latest is the latest time read so far, and latestLine its line.
	latest, latestLine int64
	eof                bool
	// group holds the requests of one time, spread, handed out from at.
	group []entry
	at    int
	// last is the time of the request handed out last.
	last int64

	// skipped counts the bad lines skipped, firstBad says the first;
	// reordered counts the lines read before a line of an earlier time.
	skipped   int64
	firstBad  string
	reordered int64
	reads     int
}

// openReader opens the trace of resolved spec s, hashing it with hashed.
func openReader(ctx context.Context, s Spec, hashed bool) (*reader, error) {
	f, err := openFile(s.File, hashed)
	if err != nil {
		return nil, err
	}
	r, err := newReader(ctx, s, f.r)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.file = f
	return r, nil
}

// newReader reads the trace of resolved spec s from in.
func newReader(ctx context.Context, s Spec, in io.Reader) (*reader, error) {
	tp, err := newTimeParser(s.TimeFormat)
	if err != nil {
		return nil, &LineError{File: s.File, Msg: err.Error()}
	}
	return &reader{ctx: ctx, spec: s, p: newParser(s, in), tp: tp, latest: -1, last: -1}, nil
}

// Close closes the trace's file.
func (r *reader) Close() error {
	if r.file == nil {
		return nil
	}
	return r.file.Close()
}

// next reads the next request in time order into e; io.EOF after the
// last. Any other error names the file and, when it is a line's, the line.
func (r *reader) next(e *entry) error {
	for r.at >= len(r.group) {
		if err := r.fill(); err != nil {
			return err
		}
	}
	*e = r.group[r.at]
	r.at++
	// Spread times never pass a later request's own.
	e.ns = max(e.ns, r.last)
	r.last = e.ns
	return nil
}

// fill reads until the earliest request held can no longer be preceded by
// one still to come (it lies more than the reorder window before the
// latest time read), or to the end, and takes every request of its time
// into the group, spread evenly over its tick in the order they were read.
func (r *reader) fill() error {
	window := r.spec.ReorderWindow.Nanoseconds()
	for !r.eof && (len(r.pending) == 0 || r.pending[0].ns >= r.latest-window) {
		var e entry
		err := r.read(&e)
		if errors.Is(err, io.EOF) {
			r.eof = true
			break
		}
		if err != nil {
			return err
		}
		if err := r.hold(e); err != nil {
			return err
		}
	}
	if len(r.pending) == 0 {
		return io.EOF
	}
	r.group, r.at = r.group[:0], 0
	t := r.pending[0].ns
	for len(r.pending) > 0 && r.pending[0].ns == t {
		r.group = append(r.group, r.pending.pop())
	}
	if n := int64(len(r.group)); n > 1 {
		tick := r.group[0].tick
		if len(r.pending) > 0 {
			tick = min(tick, r.pending[0].ns-t)
		}
		for j := range r.group {
			r.group[j].ns += tick * int64(j) / n
		}
	}
	return nil
}

// hold keeps e until its turn comes; a request further out of order than
// the reorder window allows refuses the trace.
func (r *reader) hold(e entry) error {
	window := r.spec.ReorderWindow.Nanoseconds()
	switch {
	case e.ns < r.latest-window && window == 0:
		return &LineError{File: r.spec.File, Line: e.line, Msg: fmt.Sprintf("%s is earlier than line %d's %s: the trace is out of time order (sort it first, or give reorder_window to put lines back in order)",
			stampText(e.ns), r.latestLine, stampText(r.latest))}
	case e.ns < r.latest-window:
		return &LineError{File: r.spec.File, Line: e.line, Msg: fmt.Sprintf("%s is %s earlier than line %d's %s: more out of order than reorder_window %s puts back (sort the trace first, or widen reorder_window)",
			stampText(e.ns), time.Duration(r.latest-e.ns), r.latestLine, stampText(r.latest), r.spec.ReorderWindow)}
	case e.ns < r.latest:
		r.reordered++
	default:
		r.latest, r.latestLine = e.ns, e.line
	}
	if len(r.pending) >= MaxReorderRecords {
		return &LineError{File: r.spec.File, Line: e.line, Msg: fmt.Sprintf("more than %d requests within reorder_window %s to hold: narrow it, or sort the trace first", MaxReorderRecords, r.spec.ReorderWindow)}
	}
	r.pending.push(e)
	return nil
}

// read parses the next request in file order, skipping the bad lines the
// spec allows.
func (r *reader) read(e *entry) error {
	for {
		if r.reads++; r.reads%4096 == 0 && r.ctx.Err() != nil {
			return r.ctx.Err()
		}
		err := r.p.read(&r.f)
		if err == nil {
			err = r.convert(e)
		}
		if err == nil {
			return nil
		}
		var le *LineError
		if !errors.As(err, &le) || !le.Bad {
			return named(r.spec.File, err)
		}
		if err := r.skip(le); err != nil {
			return err
		}
	}
}

// convert reads the fields parsed into a request.
func (r *reader) convert(e *entry) error {
	f := &r.f
	ns, tick, err := r.tp.parse(f.time)
	if err != nil {
		return badLine(f.line, "%s: %v", r.spec.Time, err)
	}
	if len(f.identity) == 0 {
		return badLine(f.line, "%s is empty", r.spec.Identity)
	}
	*e = entry{ns: ns, tick: tick, hash: hashIdentity(f.identity), line: f.line}
	if f.cost != nil {
		if e.cost, err = parseCost(f.line, f.cost); err != nil {
			return err
		}
	}
	return nil
}

// skip counts a bad line, or refuses the trace when it is one more than
// the spec allows.
func (r *reader) skip(le *LineError) error {
	c := *le
	c.File, c.Bad = r.spec.File, false
	if r.skipped >= r.spec.SkipBadLines {
		if r.spec.SkipBadLines > 0 {
			c.Msg += fmt.Sprintf(" (bad line %d: skip_bad_lines allows %d)", r.skipped+1, r.spec.SkipBadLines)
		}
		return &c
	}
	if r.skipped == 0 {
		r.firstBad = c.Error()
	}
	r.skipped++
	return nil
}

// hashIdentity is the 64-bit FNV-1a hash of an identity's text: what the
// dictionary keeps of it.
func hashIdentity(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// stampText writes a time of the trace for messages.
func stampText(ns int64) string {
	return time.Unix(0, ns).UTC().Format("2006-01-02T15:04:05.999999999Z")
}

// entryHeap is a min-heap of requests by time, then by line. It is
// written out rather than built on container/heap, whose Push and Pop box
// every request on the heap of the garbage collector.
type entryHeap []entry

func (h entryHeap) less(i, j int) bool {
	return h[i].ns < h[j].ns || (h[i].ns == h[j].ns && h[i].line < h[j].line)
}

// push adds e.
func (h *entryHeap) push(e entry) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if !s.less(i, parent) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

// pop removes and returns the earliest request.
func (h *entryHeap) pop() entry {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(s) && s.less(l, m) {
			m = l
		}
		if r := l + 1; r < len(s) && s.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}
