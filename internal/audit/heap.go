package audit

import (
	"math/bits"
	"unsafe"
)

// Sizes the audit's heap is counted in.
const (
	auditRecordBytes = uint64(unsafe.Sizeof(auditRecord{}))
	// sampleSlotBytes is one slot of the sample's map (an 8-byte identity
	// and its 4-byte index, padded to 16, and a byte of control): Go's
	// maps hold 7 entries in 8 slots and size their tables in powers of
	// two.
	sampleSlotBytes = 17
)

// heapBytes is what the audit holds on the heap once the run's decisions
// are in, its most: every audited decision in its shard's log (counted by
// the chunks it fills, and the extras by the capacity their slice grew
// to), and a sample's map.
func (a *Auditor) heapBytes() uint64 {
	var total uint64
	for i := range a.logs {
		mu := &a.locks[i]
		mu.Lock()
		total += a.logs[i].heapBytes()
		mu.Unlock()
	}
	if n := uint64(len(a.slots)); n > 0 {
		slots := uint64(1) << bits.Len64((n*8+6)/7-1)
		total += slots * sampleSlotBytes
	}
	return total
}
