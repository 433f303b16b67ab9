package event

import (
	"strconv"
	"strings"

	"github.com/rlbench/rlbench/plan"
)

// fixedTag is the one hash tag every identity shares under hash_tag:
// fixed, the way a limiter keyed {ratelimit}:<user> shares one.
const fixedTag = "{all}:"

// KeyScheme is how a run names an identity's key: Head, the identity's
// number, Tail. Under a run prefix P it is P<identity> untagged, P{<id>}
// with the identity as hash tag, P{all}:<identity> with one tag for all.
type KeyScheme struct {
	Head, Tail string
	// Tag is how the keys are tagged, for the result: identity, none or
	// fixed, or plan.HashTagDeclared for a declared limiter.
	Tag plan.HashTag
}

// NewKeyScheme is the key scheme of a run under prefix. A declared
// limiter is handed prefix<identity> and builds its keys from its own
// templates. A built-in's keys carry the run's hash tag; by default the
// identity on a cluster, and no tag on a single server, where a tag
// changes nothing but the key's length (and so the memory figures).
func NewKeyScheme(prefix string, tag plan.HashTag, declared, cluster bool) KeyScheme {
	if declared {
		return KeyScheme{Head: prefix, Tag: plan.HashTagDeclared}
	}
	if tag == plan.HashTagDefault {
		tag = plan.HashTagNone
		if cluster {
			tag = plan.HashTagIdentity
		}
	}
	switch tag {
	case plan.HashTagIdentity:
		return KeyScheme{Head: prefix + "{", Tail: "}", Tag: tag}
	case plan.HashTagFixed:
		return KeyScheme{Head: prefix + fixedTag, Tag: tag}
	}
	return KeyScheme{Head: prefix, Tag: plan.HashTagNone}
}

// Key is identity's key.
func (k KeyScheme) Key(identity uint64) string {
	return string(k.AppendKey(make([]byte, 0, len(k.Head)+20+len(k.Tail)), identity))
}

// AppendKey appends identity's key to dst.
func (k KeyScheme) AppendKey(dst []byte, identity uint64) []byte {
	dst = append(dst, k.Head...)
	dst = strconv.AppendUint(dst, identity, 10)
	return append(dst, k.Tail...)
}

// Identity reports whether key is one of the scheme's keys, and whose.
func (k KeyScheme) Identity(key string) (uint64, bool) {
	rest, ok := strings.CutPrefix(key, k.Head)
	if !ok {
		return 0, false
	}
	id, ok := strings.CutSuffix(rest, k.Tail)
	if !ok || id == "" {
		return 0, false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < '0' || id[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(id, 10, 64)
	return n, err == nil
}
