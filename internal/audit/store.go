package audit

import (
	"math"
	"unsafe"
)

// The audit keeps every decision of every audited identity until the run
// is over, so what one decision costs bounds a run of a million
// identities. A decision is kept as a storedRecord of 16 bytes in the log
// of its identity's shard, appended in chunks of a fixed size: no slice
// per identity, and no slack beyond one chunk per shard. The common
// decisions fit it whole: the time and the answer, and one of the reply's
// remaining (when a float32 holds it exactly) or a denial's retry hint
// (with a remaining of zero, or none). Any other (a time on the caller's
// clock, several units, a fractional remaining beside a retry hint) keeps
// its whole auditRecord in the shard's extras, which the stored record
// points to. Replaying, the audit reads each identity's records back, in
// the order they came, into the auditRecords the replay works on.

// storedRecord is one decision as the log keeps it.
type storedRecord struct {
	// key is the auditRecord's key (time << 1 | denied), with what aux
	// holds in its top bits.
	key  uint64
	slot uint32
	aux  uint32
}

// What a stored record's aux holds: kindShift places the kind in its key.
const (
	kindShift = 61
	keyMask   = 1<<kindShift - 1
	// kindPlain: nothing; no remaining, no retry hint.
	kindPlain = 0
	// kindRemaining: the remaining, as float32 bits; no retry hint.
	kindRemaining = 1
	// kindZeroRetry: a remaining of zero and the retry hint, in ms.
	kindZeroRetry = 2
	// kindRetry: no remaining, and the retry hint.
	kindRetry = 3
	// kindExtra: the index of the whole record in the shard's extras.
	kindExtra = 4
)

// storedRecordBytes is what one stored record takes.
const storedRecordBytes = uint64(unsafe.Sizeof(storedRecord{}))

// chunkRecords is how many records one chunk of a shard's log holds (16
// KiB).
const chunkRecords = 1024

// encode is r of identity slot as the log keeps it, appending to extras
// what does not fit.
func encode(slot int, r auditRecord, extras *[]auditRecord) storedRecord {
	s := storedRecord{key: r.key, slot: uint32(slot)}
	kind := kindExtra
	fits := r.key <= keyMask && r.widthUs == 0 && r.units == 0 && !r.argsTime && !r.seen && !r.callerTimed
	remNone, remZero := math.IsNaN(r.remaining), math.Float64bits(r.remaining) == 0
	switch {
	case !fits:
	case remNone && r.retryMs == noRetry:
		kind = kindPlain
	case remNone:
		kind, s.aux = kindRetry, r.retryMs
	case r.retryMs == noRetry && float64(float32(r.remaining)) == r.remaining:
		kind, s.aux = kindRemaining, math.Float32bits(float32(r.remaining))
	case remZero:
		kind, s.aux = kindZeroRetry, r.retryMs
	}
	if kind == kindExtra {
		if len(*extras) >= math.MaxUint32 {
			// Past four billion extras in one shard: the decision is kept
			// without its reply's parts (not checked), never lost.
			s.key &= keyMask
			return s
		}
		s.aux = uint32(len(*extras))
		*extras = append(*extras, r)
	}
	s.key |= uint64(kind) << kindShift
	return s
}

// decode is the auditRecord s holds.
func (s storedRecord) decode(extras []auditRecord) auditRecord {
	r := auditRecord{key: s.key & keyMask, remaining: math.NaN(), retryMs: noRetry}
	switch s.key >> kindShift {
	case kindRemaining:
		r.remaining = float64(math.Float32frombits(s.aux))
	case kindZeroRetry:
		r.remaining, r.retryMs = 0, s.aux
	case kindRetry:
		r.retryMs = s.aux
	case kindExtra:
		return extras[s.aux]
	}
	return r
}

// logShard is one shard's log: its records in chunks, in the order they
// came, and the records that did not fit one.
type logShard struct {
	chunks [][]storedRecord
	n      int
	extras []auditRecord
	// next is the position identity reads from.
	next int
}

// add appends r of identity slot.
func (l *logShard) add(slot int, r auditRecord) {
	if l.n%chunkRecords == 0 {
		l.chunks = append(l.chunks, make([]storedRecord, 0, chunkRecords))
	}
	c := &l.chunks[len(l.chunks)-1]
	*c = append(*c, encode(slot, r, &l.extras))
	l.n++
}

// at is the record at position i of the log.
func (l *logShard) at(i uint32) storedRecord { return l.chunks[i/chunkRecords][i%chunkRecords] }

// heapBytes is what the shard holds on the heap.
func (l *logShard) heapBytes() uint64 {
	total := uint64(cap(l.chunks)) * uint64(unsafe.Sizeof([]storedRecord(nil)))
	total += uint64(len(l.chunks)) * chunkRecords * storedRecordBytes
	return total + uint64(cap(l.extras))*auditRecordBytes
}

// byIdentity reorders the shard's log so that each identity's records
// follow one another, identities in the order of their slots and each
// one's records in the order they came (a counting sort, through a buffer
// of one shard's records), and rewinds the reading to its start: locals is
// how many of the audit's slots the shard holds, each slot s being its
// local identity s / auditShards.
func (l *logShard) byIdentity(locals int) {
	from := make([]uint32, locals+1)
	for _, c := range l.chunks {
		for _, s := range c {
			from[s.slot/auditShards+1]++
		}
	}
	for k := 1; k <= locals; k++ {
		from[k] += from[k-1]
	}
	sorted := make([]storedRecord, l.n)
	for _, c := range l.chunks {
		for _, s := range c {
			k := s.slot / auditShards
			sorted[from[k]] = s
			from[k]++
		}
	}
	for j, c := range l.chunks {
		copy(c, sorted[j*chunkRecords:])
	}
	l.next = 0
}

// identity appends to dst the records of identity slot, in the order they
// came. Once the log is in identity order (byIdentity), calls for the
// shard's identities in the order of their slots read it through once,
// freeing each chunk as it is passed.
func (l *logShard) identity(dst []auditRecord, slot int) []auditRecord {
	for l.next < l.n {
		s := l.at(uint32(l.next))
		if int(s.slot) != slot {
			break
		}
		dst = append(dst, s.decode(l.extras))
		l.next++
		if l.next%chunkRecords == 0 {
			l.chunks[l.next/chunkRecords-1] = nil
		}
	}
	return dst
}
