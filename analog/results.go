package analog

import (
	"math/rand/v2"
	"strings"

	"github.com/qjobs/quantum/rydberg"
)

// How a device reads its atoms out (decisions.md, "Results").
//
// analog, as Braket and the public client report Aquila's shots: per shot
// pre_sequence (1 for a site found filled before the pulses, 0 empty) and
// post_sequence (1 for an atom found in g after them, 0 for r or an empty
// site), and counts keyed by one letter a site: e (empty), r, g.
//
// pulser.sequence, as Pulser reads the ground-rydberg basis: one
// character an atom in register order (q0 leftmost), 1 for r and 0 for g.

// readAnalog reads each shot's configuration out per site, with the
// device's noise when the job has it: each filled site found empty with
// Aquila's filling error, each atom left in g read as r with its atom
// loss. The noise draws its own stream from the seed, apart from the
// shots'.
func (j *job) readAnalog(st *rydberg.State, shots []int, seed uint64) (map[string]int, map[string]any) {
	var rng *rand.Rand
	if j.noise != "" {
		rng = rand.New(rand.NewPCG(seed, 0x5eed_a9a1))
	}
	counts := map[string]int{}
	measurements := make([]any, len(shots))
	key := make([]byte, j.sites)
	for i, cfg := range shots {
		pre := make([]any, j.sites)
		post := make([]any, j.sites)
		for site, atom := range j.atomOf {
			filled, rydberg := atom >= 0, atom >= 0 && st.Rydberg(cfg, atom)
			if rng != nil && filled {
				if rng.Float64() < aquilaFillingError {
					filled, rydberg = false, false
				} else if !rydberg && rng.Float64() < aquilaAtomLoss {
					rydberg = true
				}
			}
			switch {
			case !filled:
				pre[site], post[site], key[site] = 0, 0, 'e'
			case rydberg:
				pre[site], post[site], key[site] = 1, 0, 'r'
			default:
				pre[site], post[site], key[site] = 1, 1, 'g'
			}
		}
		counts[string(key)]++
		measurements[i] = map[string]any{"success": true, "pre_sequence": pre, "post_sequence": post}
	}
	return counts, map[string]any{"measurements": measurements}
}

// pulserCounts reads each shot as Pulser does.
func pulserCounts(st *rydberg.State, shots []int) map[string]int {
	counts := map[string]int{}
	var b strings.Builder
	for _, cfg := range shots {
		b.Reset()
		for k := range st.Atoms() {
			if st.Rydberg(cfg, k) {
				b.WriteByte('1')
			} else {
				b.WriteByte('0')
			}
		}
		counts[b.String()]++
	}
	return counts
}
