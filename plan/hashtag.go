package plan

// HashTag is how a scenario's built-in limiters tag their keys, which on a
// Redis Cluster decides how the identities spread over the masters.
type HashTag string

// The hash tags a scenario may choose.
const (
	// HashTagDefault is a scenario that chooses none: HashTagIdentity on a
	// cluster, HashTagNone on a single server (where a tag changes nothing
	// but the key's length).
	HashTagDefault HashTag = ""
	// HashTagIdentity puts the identity in braces
	// (rlbench:<run>:<alg>:<scenario>:{<identity>}): an identity's keys
	// share a slot, and identities spread over every slot.
	HashTagIdentity HashTag = "identity"
	// HashTagNone tags nothing: the whole key is hashed, which for a
	// one-key limiter spreads identities as well.
	HashTagNone HashTag = "none"
	// HashTagFixed puts every identity under one tag
	// (rlbench:<run>:<alg>:<scenario>:{all}:<identity>): one slot, one
	// master does all the work. The mistake the hot-node check exists for.
	HashTagFixed HashTag = "fixed"
	// HashTagDeclared is the tagging of a declared limiter's keys: its own
	// templates'.
	HashTagDeclared HashTag = "declared"
)
