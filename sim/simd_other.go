//go:build purego || !amd64

package sim

// bestSIMD: without assembly every loop is pure Go.
const bestSIMD = simdNone
