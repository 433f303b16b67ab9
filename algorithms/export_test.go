package algorithms

import "fmt"

// WithScript returns a copy of the built-in scripted limiter l that runs
// src in place of its own script, keeping its model, bound and windows: a
// broken copy, for tests that the audit catches it.
func WithScript(l Limiter, src string) (Limiter, error) {
	script := newScript(l.Name()+"_broken", src)
	switch v := l.(type) {
	case *GCRA:
		c := *v
		c.script = script
		return &c, nil
	case *SlidingCounter:
		c := *v
		c.script = script
		return &c, nil
	case *SlidingBuckets:
		c := *v
		c.script = script
		return &c, nil
	case *FixedWindow:
		c := *v
		c.script = script
		return &c, nil
	}
	return nil, fmt.Errorf("%s is not a scripted built-in", l.Name())
}

// AdmitOneMore returns a copy of the fixed window without Lua that admits
// limit+1 requests per window: the same commands, decided off by one.
func AdmitOneMore(l *FixedWindowNX) *FixedWindowNX {
	c := *l
	c.admitUpTo++
	return &c
}
