package algorithms

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// MalformedCounter is implemented by limiters that keep a decision whose
// optional reply parts could not be read, and count those parts.
type MalformedCounter interface {
	// MalformedReplies are the counts since the limiter was bound, by
	// part in reply order; none when every value read.
	MalformedReplies() []MalformedPart
}

// MalformedPart counts the replies whose value of one part could not be
// read: the decisions stood, without that part.
type MalformedPart struct {
	// Part is the part as declared ("retry_after", "remaining"), and
	// Position where the reply carries it.
	Part     string
	Position int
	// Count is how many replies carried a value that could not be read.
	Count int64
	// Example is the first such reply's error.
	Example string
}

// malformedCount is one part's count and its first example.
type malformedCount struct {
	n       atomic.Int64
	example atomic.Pointer[string]
}

func (c *malformedCount) add(e *ReplyError) {
	c.n.Add(1)
	if c.example.Load() == nil {
		msg := e.Error()
		c.example.CompareAndSwap(nil, &msg)
	}
}

// MalformedReplies implements MalformedCounter.
func (l *Declared) MalformedReplies() []MalformedPart {
	var out []MalformedPart
	for i := range l.reader.parts {
		p := &l.reader.parts[i]
		c := &l.malformed[p.part]
		n := c.n.Load()
		if n == 0 {
			continue
		}
		mp := MalformedPart{Part: p.name, Position: p.value.Position, Count: n}
		if e := c.example.Load(); e != nil {
			mp.Example = *e
		}
		out = append(out, mp)
	}
	return out
}

// Decide implements Pipelined: the reply to req read by the declared
// layout. A script that returns false (or nothing) answers nil, which the
// layout reads as such. An optional part that cannot be read is counted
// (MalformedReplies) and left out of the decision, which stands. On an
// error the decision holds only what the request asked (its Cost and
// ClientNowMicros): a call that failed may still have run, and taken that
// many units.
func (l *Declared) Decide(req Request, reply any, err error) (Decision, error) {
	if errors.Is(err, redis.Nil) {
		reply, err = nil, nil
	}
	asked := Decision{Cost: req.Cost, ClientNowMicros: req.NowMicros, ClientSkewMicros: req.SkewMicros}
	if err != nil {
		return asked, err
	}
	d, bad, err := l.reader.read(req, reply)
	if err != nil {
		return asked, fmt.Errorf("%s: %w", l.decl.Name, err)
	}
	for _, e := range bad {
		l.malformed[e.part].add(e)
	}
	return d, nil
}
