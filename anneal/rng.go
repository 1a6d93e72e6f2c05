package anneal

import "math/bits"

// rng is wyrand: one multiplication a number, which matters at 10^8
// proposals a second, and statistically sound for Metropolis decisions.
// Each read has its own, made from the seed and the read's index, so that
// reads come out the same on any number of workers.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(r.s, r.s^0xe7037ed1a0b428db)
	return hi ^ lo
}

// float is uniform in [0, 1), 53 bits.
func (r *rng) float() float64 { return float64(r.next()>>11) * 0x1p-53 }

// splitmix64 spreads a seed's bits: seeds 1, 2, 3 start unrelated streams.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// readRNG is the generator of read r of a run seeded with seed.
func readRNG(seed uint64, r int) rng {
	return rng{s: splitmix64(seed ^ splitmix64(uint64(r)+1))}
}
