package algorithms

// Stater is a Model that can state its state: two models of one limiter
// whose states are equal decide every later request alike (the replies
// they predict may still differ by the instant of the last request, which
// the next request moves on). The audit's replay keeps one model of each
// state when it follows several possible histories of an identity.
type Stater interface {
	// AppendState appends the state to dst.
	AppendState(dst []int64) []int64
}

var (
	_ Stater = (*fixedWindowModel)(nil)
	_ Stater = (*slidingLogModel)(nil)
	_ Stater = (*tokenBucketModel)(nil)
	_ Stater = (*leakyBucketModel)(nil)
	_ Stater = (*gcraModel)(nil)
	_ Stater = (*slidingCounterModel)(nil)
	_ Stater = (*slidingBucketsModel)(nil)
)

func b2i64(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// AppendState implements Stater: the window's count and its end.
func (m *fixedWindowModel) AppendState(dst []int64) []int64 {
	return append(dst, m.count, m.expireAtMs)
}

// AppendState implements Stater: the admissions still in the window at
// the last request, each with its units.
func (m *slidingLogModel) AppendState(dst []int64) []int64 {
	for _, e := range m.log[m.head:] {
		if e.at > m.last-m.windowUs {
			dst = append(dst, e.at, e.units)
		}
	}
	return dst
}

// AppendState implements Stater: the tokens and when they were counted.
func (m *tokenBucketModel) AppendState(dst []int64) []int64 {
	return append(dst, b2i64(m.seen), m.tokens, m.ts)
}

// AppendState implements Stater: the level and when it was measured.
func (m *leakyBucketModel) AppendState(dst []int64) []int64 {
	return append(dst, b2i64(m.seen), m.level, m.ts)
}

// AppendState implements Stater: the theoretical arrival time, in whole
// microseconds and 1/limit of one (a TAT in the past is none).
func (m *gcraModel) AppendState(dst []int64) []int64 {
	if !m.seen || m.ahead == 0 {
		return append(dst, 0)
	}
	return append(dst, 1, m.last+m.ahead/m.limit, m.ahead%m.limit)
}

// AppendState implements Stater: the window, its count and the previous
// window's.
func (m *slidingCounterModel) AppendState(dst []int64) []int64 {
	return append(dst, m.w, m.cur, m.prev)
}

// AppendState implements Stater: the live buckets.
func (m *slidingBucketsModel) AppendState(dst []int64) []int64 {
	for _, b := range m.buckets {
		dst = append(dst, b.index, b.count)
	}
	return dst
}

// LogModel is a Model whose Remaining counts only what it admitted within
// the window before the last request, each admission at its own instant:
// where the instants of some admissions are known only within a span, the
// count is still exact at any time that span lies wholly inside or wholly
// outside the window before.
type LogModel interface {
	ReplyModel
	// LogWindowMicros is the window's length.
	LogWindowMicros() int64
}

var _ LogModel = (*slidingLogModel)(nil)

// LogWindowMicros implements LogModel.
func (m *slidingLogModel) LogWindowMicros() int64 { return m.windowUs }

// WindowOpener is a Model of a window that opens at the first request
// after the last one ended and lasts WindowMicros: what a placed call in
// it took is exact until that window may have ended, and a reply that an
// admission of units left Limit-units is the first of a window, whose
// whole state it states.
type WindowOpener interface {
	ReplyModel
	// WindowMicros is the window's length.
	WindowMicros() int64
	// Limit is what one window admits.
	Limit() int64
}

var _ WindowOpener = (*fixedWindowModel)(nil)

// WindowMicros implements WindowOpener.
func (m *fixedWindowModel) WindowMicros() int64 { return m.windowMs * 1000 }

// Limit implements WindowOpener.
func (m *fixedWindowModel) Limit() int64 { return m.limit }
