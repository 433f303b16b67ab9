// Package plural puts a noun in the number its count asks for, so that
// every message rlbench writes says "1 time" and "2 times", never
// "1 times". It imports nothing, so that every package may use it.
package plural

// Noun is one when n is 1, else many: "key" or "keys".
func Noun[N ~int | ~int64 | ~uint64](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// S is the English plural ending of n things: "" for 1, "s" otherwise, for
// a noun that takes an s ("key"+S(n)).
func S[N ~int | ~int64 | ~uint64](n N) string { return Noun(n, "", "s") }
