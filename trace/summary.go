package trace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
)

// Part is the part of a trace a replay sends: from Start after the trace's
// first request, for Duration (zero: to the end), both in the trace's own
// time.
type Part struct {
	Start, Duration time.Duration
}

// Summary is what Scan found in the part of a trace a replay sends: how
// many requests, from how many identities, over how long, and the
// dictionary that numbers the identities in the order the part first
// shows them.
type Summary struct {
	// Spec is the trace's spec, resolved; Part the part summarized.
	Spec Spec
	Part Part
	// Requests is how many requests the part holds, and Identities how
	// many distinct callers send them.
	Requests   int64
	Identities int
	// Origin is the instant a replay's time counts from: the trace's
	// first request plus Part.Start. First and Last are the part's
	// first and last requests' times.
	Origin, First, Last time.Time
	// Period is how long one pass over the part lasts in the trace's
	// time: Part.Duration when given, else from Origin to the last
	// request plus the mean gap between requests (so a loop leaves that
	// gap between the last request and the next pass's first).
	Period time.Duration
	// Skipped is how many bad lines were skipped and FirstSkipped what
	// the first one was; Reordered how many lines were read before a line
	// of an earlier time and put back in order.
	Skipped      int64
	FirstSkipped string
	Reordered    int64
	// Gzip says the file is compressed; SHA256 is the file's hash, in
	// hex (segments of one load on many machines replay one trace).
	Gzip   bool
	SHA256 string
	// Heaviest is how many requests the identity that sent the most sent.
	Heaviest int64

	ids    map[uint64]uint32
	counts []uint32
	stamp  stamp
	// over counts the part's requests by their time from Origin.
	over timeline
}

// timelineBuckets is the most buckets a timeline holds.
const timelineBuckets = 1024

// timeline counts requests in buckets of their time from an origin, a
// millisecond wide at first; when a time falls past the last bucket,
// neighbours merge two by two and the width doubles, so it holds at most
// timelineBuckets counts however long the part.
type timeline struct {
	widthNs int64
	counts  []int64
}

// add counts a request offsetNs after the origin.
func (t *timeline) add(offsetNs int64) {
	if t.widthNs == 0 {
		t.widthNs = int64(time.Millisecond)
	}
	for offsetNs/t.widthNs >= timelineBuckets {
		for j := 0; j < len(t.counts); j += 2 {
			c := t.counts[j]
			if j+1 < len(t.counts) {
				c += t.counts[j+1]
			}
			t.counts[j/2] = c
		}
		t.counts = t.counts[:(len(t.counts)+1)/2]
		t.widthNs *= 2
	}
	i := int(offsetNs / t.widthNs)
	for len(t.counts) <= i {
		t.counts = append(t.counts, 0)
	}
	t.counts[i]++
}

// before is about how many requests came before offsetNs: those of the
// buckets wholly before it, and the share of its bucket's count that its
// place within the bucket stands for.
func (t *timeline) before(offsetNs int64) float64 {
	if t.widthNs == 0 || offsetNs <= 0 {
		return 0
	}
	var n float64
	for i, c := range t.counts {
		from := int64(i) * t.widthNs
		switch {
		case from+t.widthNs <= offsetNs:
			n += float64(c)
		case from < offsetNs:
			n += float64(c) * float64(offsetNs-from) / float64(t.widthNs)
		}
	}
	return n
}

// Scan reads the part of the trace of spec s that part selects, checks
// every line of it, and summarizes it. Errors name the field of the spec
// that is wrong (*FieldError), or the file and line that could not be read
// (*LineError).
func Scan(ctx context.Context, s Spec, part Part) (*Summary, error) {
	s, err := s.Resolved()
	if err != nil {
		return nil, err
	}
	if part.Start < 0 || part.Duration < 0 {
		return nil, &FieldError{Field: "start", Msg: "a part of a trace starts and lasts a time of zero or more"}
	}
	r, err := openReader(ctx, s, true)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	sum := &Summary{Spec: s, Part: part, ids: map[uint64]uint32{}, stamp: r.file.stamp, Gzip: r.file.gzip}
	var e entry
	var origin, end, first, last, traceFirst int64
	started := false
	for {
		err := r.next(&e)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if !started {
			traceFirst, origin, started = e.ns, addClamped(e.ns, part.Start), true
			end = math.MaxInt64
			if part.Duration > 0 {
				end = addClamped(origin, part.Duration)
			}
		}
		if e.ns < origin {
			continue
		}
		if e.ns >= end {
			break
		}
		id, ok := sum.ids[e.hash]
		if !ok {
			if len(sum.ids) >= s.MaxIdentities {
				return nil, &LineError{File: s.File, Line: e.line, Msg: fmt.Sprintf("more than %d distinct identities (%s); give max_identities to allow more (at most %d)", s.MaxIdentities, s.Identity, MaxIdentitiesLimit)}
			}
			id = uint32(len(sum.ids))
			sum.ids[e.hash] = id
			sum.counts = append(sum.counts, 0)
		}
		if sum.counts[id] == math.MaxUint32 {
			return nil, &LineError{File: s.File, Line: e.line, Msg: fmt.Sprintf("one identity sends more than %d requests", uint32(math.MaxUint32))}
		}
		sum.counts[id]++
		sum.Heaviest = max(sum.Heaviest, int64(sum.counts[id]))
		if sum.Requests == 0 {
			first = e.ns
		}
		last = e.ns
		sum.Requests++
		sum.over.add(e.ns - origin)
	}
	sum.Skipped, sum.FirstSkipped, sum.Reordered = r.skipped, r.firstBad, r.reordered
	if sum.SHA256, err = r.file.digest(); err != nil {
		return nil, &LineError{File: s.File, Msg: "cannot read: " + err.Error()}
	}
	if !started {
		return nil, &LineError{File: s.File, Msg: "holds no request"}
	}
	if sum.Requests == 0 {
		return nil, &FieldError{Field: "start", Msg: fmt.Sprintf("the part from %s for %s holds no request: the trace's requests run from %s to %s",
			part.Start, partLength(part.Duration), stampText(traceFirst), stampText(r.last))}
	}
	sum.Identities = len(sum.ids)
	sum.Origin, sum.First, sum.Last = time.Unix(0, origin).UTC(), time.Unix(0, first).UTC(), time.Unix(0, last).UTC()
	sum.Period = part.Duration
	if sum.Period == 0 {
		gap := time.Millisecond
		if sum.Requests > 1 {
			gap = max(time.Duration((last-first)/(sum.Requests-1)), 1)
		}
		sum.Period = time.Duration(last-origin) + gap
	}
	return sum, nil
}

// partLength says a part's duration.
func partLength(d time.Duration) string {
	if d == 0 {
		return "the rest of the trace"
	}
	return d.String()
}

// addClamped is a + b, at most math.MaxInt64.
func addClamped(a int64, b time.Duration) int64 {
	if int64(b) > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + int64(b)
}

// RequestsOf is how many of the part's requests come from the identities
// owns accepts: a segment's share of a replay.
func (s *Summary) RequestsOf(owns func(identity uint64) bool) int64 {
	var n int64
	for id, c := range s.counts {
		if owns(uint64(id)) {
			n += int64(c)
		}
	}
	return n
}

// RequestsWithin is about how many requests a replay of the part sends in
// its first d of the trace's time (d times the speed of the replay's own):
// the whole part when d reaches a Period, else the requests before d, by
// a count of them in at most 1024 spans of time. Looping, each whole Period
// in d sends the whole part again.
func (s *Summary) RequestsWithin(d time.Duration, loop bool) int64 {
	if d <= 0 {
		return 0
	}
	if !loop || d < s.Period {
		if d > s.Last.Sub(s.Origin) {
			// Past the last request: all of them, not what the last
			// bucket's share of its width would say.
			return s.Requests
		}
		return min(int64(math.Round(s.over.before(int64(d)))), s.Requests)
	}
	passes := int64(d / s.Period)
	if passes > math.MaxInt64/max(s.Requests, 1)-1 {
		return math.MaxInt64
	}
	return passes*s.Requests + s.RequestsWithin(d-time.Duration(passes)*s.Period, false)
}

// MeanPerSecond is the part's mean rate of requests in the trace's own
// time (over one Period).
func (s *Summary) MeanPerSecond() float64 {
	return float64(s.Requests) / s.Period.Seconds()
}
