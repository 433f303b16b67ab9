package algorithms

import (
	"strconv"
	"strings"
)

// ClusterSlots is how many hash slots a Redis Cluster divides keys into.
const ClusterSlots = 16384

// HashTag is the part of key a Redis Cluster hashes to find its slot: the
// text between the first "{" and the first "}" after it, when there is
// some; otherwise the whole key. Keys with the same tag share a slot.
func HashTag(key string) string {
	open := strings.IndexByte(key, '{')
	if open < 0 {
		return key
	}
	end := strings.IndexByte(key[open+1:], '}')
	if end <= 0 {
		return key
	}
	return key[open+1 : open+1+end]
}

// KeySlot is the hash slot of key: CRC16 (XMODEM) of its hash tag, modulo
// ClusterSlots, as Redis Cluster computes it.
func KeySlot(key string) int {
	return int(crc16(HashTag(key)) % ClusterSlots)
}

// crc16 is CRC-16/XMODEM (polynomial 0x1021, initial value 0), the
// checksum Redis Cluster hashes keys with.
func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// SlotSplit says that a declared limiter's keys for one identity would lie
// in different hash slots: on a Redis Cluster a script may only touch keys
// of one slot, so every call would fail with CROSSSLOT.
type SlotSplit struct {
	// Key is the index of the key template whose key left the first one's
	// slot; Identity is the identity it was found with.
	Key      int
	Identity string
	// Slot is that key's slot, FirstSlot the first key's.
	Slot, FirstSlot int
}

// slotCheckIdentities is how many identities SplitSlots tries: keys
// without a common hash tag land in different slots for nearly every
// identity, and keys with one never do.
const slotCheckIdentities = 8

// SplitSlots reports the first key template that puts an identity's key in
// another slot than the first template does, under namespace (the run
// prefix rlbench puts in front of every key) with ${scenario} standing for
// scenario; nil when every key of every identity tried shares one slot.
func (d *Declaration) SplitSlots(namespace, scenario string) *SlotSplit {
	if len(d.Keys) < 2 {
		return nil
	}
	fixed := map[string]string{VarScenario: scenario}
	keys := make([]boundTemplate, len(d.Keys))
	for i, t := range d.Keys {
		keys[i] = t.bind(fixed)
	}
	for id := range slotCheckIdentities {
		v := &requestVars{identity: strconv.Itoa(id)}
		first := KeySlot(string(keys[0].appendTo([]byte(namespace), v)))
		for i := 1; i < len(keys); i++ {
			if slot := KeySlot(string(keys[i].appendTo([]byte(namespace), v))); slot != first {
				return &SlotSplit{Key: i, Identity: v.identity, Slot: slot, FirstSlot: first}
			}
		}
	}
	return nil
}
