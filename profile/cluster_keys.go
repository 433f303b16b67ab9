package profile

import (
	"fmt"
	"strings"

	"github.com/rlbench/rlbench/algorithms"
)

// slotCheckNamespace stands for the run prefix rlbench puts in front of a
// declared limiter's keys when their slots are checked: keys without a
// hash tag hash the prefix too.
const slotCheckNamespace = "rlbench:00000000:"

// checkKeySlots refuses a declared limiter whose keys would not share one
// hash slot: on a Redis Cluster every call of its script would fail with
// CROSSSLOT, and a limiter that outgrows one Redis must be ready for one.
// The error names the template that leaves the first key's slot.
func checkKeySlots(f *yamlMap, decl *algorithms.Declaration) {
	split := decl.SplitSlots(slotCheckNamespace+decl.Name+":steady:", "steady")
	if split == nil {
		return
	}
	line := f.lineOf("keys")
	if n := f.values["keys"]; n != nil && split.Key < len(n.Content) {
		line = n.Content[split.Key].Line
	}
	first, other := decl.Keys[0].String(), decl.Keys[split.Key].String()
	fix := "give every key the same hash tag (the identity in braces)"
	if a, b := identityTagged(first), identityTagged(other); a != "" && b != "" {
		fix = fmt.Sprintf("give every key the same hash tag, the identity in braces: e.g. %q and %q", a, b)
	}
	f.d.errorf(line, templateField(f, "keys", split.Key),
		"%q puts identity %s in hash slot %d, and KEYS[1] %q puts it in slot %d: on a Redis Cluster the keys of one call must share a slot; %s",
		other, split.Identity, split.Slot, first, split.FirstSlot, fix)
}

// identityTagged is template t with the identity as its hash tag:
// "b:${identity}" becomes "b:{${identity}}". It is t itself when the
// identity already is its tag, and "" when t has braces of its own that
// the suggestion would not fix.
func identityTagged(t string) string {
	const v = "${" + algorithms.VarIdentity + "}"
	if strings.Contains(t, "{"+v+"}") && algorithms.HashTag(strings.ReplaceAll(t, v, "0")) == "0" {
		return t
	}
	if strings.ContainsAny(strings.ReplaceAll(t, v, ""), "{}") {
		return ""
	}
	return strings.Replace(t, v, "{"+v+"}", 1)
}
