package workload

import (
	"strconv"
	"strings"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/profile"
)

// fixedTag is the one hash tag every identity shares under hash_tag:
// fixed, the way a limiter keyed {ratelimit}:<user> shares one.
const fixedTag = "{all}:"

// declaredTag is the tagging of a declared limiter's keys: its own
// templates'.
const declaredTag profile.HashTag = "declared"

// keyScheme is how a run names an identity's key: head, the identity's
// number, tail. Under a run prefix P it is P<identity> untagged, P{<id>}
// with the identity as hash tag, P{all}:<identity> with one tag for all.
type keyScheme struct {
	head, tail string
	// tag is how the keys are tagged, for the result: identity, none or
	// fixed, or declaredTag for a declared limiter.
	tag profile.HashTag
}

// keyScheme is the key scheme of a run of lim in spec under prefix. A
// declared limiter is handed prefix<identity> and builds its keys from
// its own templates. A built-in's keys carry the scenario's hash tag; by
// default the identity on a cluster, and no tag on a single server, where
// a tag changes nothing but the key's length (and so the memory figures).
func (r *Runner) keyScheme(lim algorithms.Limiter, spec profile.RunSpec, prefix string) keyScheme {
	if _, declared := lim.(keyOwner); declared {
		return keyScheme{head: prefix, tag: declaredTag}
	}
	tag := spec.Scenario.HashTag
	if tag == profile.HashTagDefault {
		tag = profile.HashTagNone
		if r.Env.Cluster != nil {
			tag = profile.HashTagIdentity
		}
	}
	switch tag {
	case profile.HashTagIdentity:
		return keyScheme{head: prefix + "{", tail: "}", tag: tag}
	case profile.HashTagFixed:
		return keyScheme{head: prefix + fixedTag, tag: tag}
	}
	return keyScheme{head: prefix, tag: profile.HashTagNone}
}

// key is identity's key.
func (k keyScheme) key(identity uint64) string {
	return string(k.appendKey(make([]byte, 0, len(k.head)+20+len(k.tail)), identity))
}

// appendKey appends identity's key to dst.
func (k keyScheme) appendKey(dst []byte, identity uint64) []byte {
	dst = append(dst, k.head...)
	dst = strconv.AppendUint(dst, identity, 10)
	return append(dst, k.tail...)
}

// identity reports whether key is one of the scheme's keys, and whose.
func (k keyScheme) identity(key string) (uint64, bool) {
	rest, ok := strings.CutPrefix(key, k.head)
	if !ok {
		return 0, false
	}
	id, ok := strings.CutSuffix(rest, k.tail)
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
