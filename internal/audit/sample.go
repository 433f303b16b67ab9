package audit

import "math/rand/v2"

// sampleIdentities draws k distinct identities out of 0..n-1 (k <= n), the
// same ones for the same seed, and numbers them 0..k-1 in the order drawn.
// It uses Floyd's algorithm: k draws and O(k) memory, however large n is.
func sampleIdentities(n, k uint64, seed int64) map[uint64]int32 {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5bd1e9955bd1e995))
	out := make(map[uint64]int32, k)
	for j := n - k; j < n; j++ {
		t := rng.Uint64N(j + 1)
		if _, taken := out[t]; taken {
			t = j
		}
		out[t] = int32(len(out))
	}
	return out
}
