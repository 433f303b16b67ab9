package algorithms

import (
	"testing"
)

func TestKeySlot(t *testing.T) {
	for _, tc := range []struct {
		why, key string
		want     int
	}{
		{"the CRC-16/XMODEM check value 0x31c3", "123456789", 0x31c3},
		{"CLUSTER KEYSLOT's documented example", "somekey", 11058},
		{"a key with a hash tag hashes the tag", "foo{hash_tag}", 2515},
		{"another key with the same tag shares the slot", "bar{hash_tag}", 2515},
		{"the redis-cli example", "foo", 12182},
		{"an empty tag hashes the whole key", "foo{}bar", int(crc16("foo{}bar") % ClusterSlots)},
		{"only the first tag counts", "foo{bar}{zap}", int(crc16("bar") % ClusterSlots)},
		{"the tag ends at the first closing brace", "foo{{bar}}zap", int(crc16("{bar") % ClusterSlots)},
		{"an unclosed brace hashes the whole key", "foo{bar", int(crc16("foo{bar") % ClusterSlots)},
	} {
		if got := KeySlot(tc.key); got != tc.want {
			t.Errorf("%s: KeySlot(%q) = %d, want %d", tc.why, tc.key, got, tc.want)
		}
	}
}

func TestSplitSlots(t *testing.T) {
	decl := func(keys ...string) *Declaration {
		d := &Declaration{Name: "co"}
		for _, k := range keys {
			d.Keys = append(d.Keys, MustParseTemplate(k, KeyVariables))
		}
		return d
	}
	for _, tc := range []struct {
		why       string
		d         *Declaration
		wantSplit int // index of the template that leaves the slot; 0 for none
	}{
		{"one key has nothing to share a slot with", decl("k:${identity}"), 0},
		{"the identity as every key's tag", decl("a:{${identity}}", "b:{${identity}}"), 0},
		{"the scenario and identity as every key's tag", decl("a:{${scenario}:${identity}}", "b:{${scenario}:${identity}}"), 0},
		{"no tags: the whole keys hash apart", decl("a:${identity}", "b:${identity}"), 1},
		{"the second key forgot its tag", decl("a:{${identity}}", "b:{${identity}}", "c:${identity}"), 2},
		{"one tag for every identity shares a slot (a hot one, but one)", decl("{all}:a:${identity}", "{all}:b:${identity}"), 0},
	} {
		got := tc.d.SplitSlots("rlbench:00000000:co:steady:", "steady")
		switch {
		case tc.wantSplit == 0 && got != nil:
			t.Errorf("%s: split %+v, want none", tc.why, *got)
		case tc.wantSplit != 0 && (got == nil || got.Key != tc.wantSplit):
			t.Errorf("%s: split %+v, want keys[%d]", tc.why, got, tc.wantSplit)
		case got != nil && got.Slot == got.FirstSlot:
			t.Errorf("%s: a split with equal slots: %+v", tc.why, *got)
		}
	}
}
