//go:build purego || !amd64

package sim

// bestSIMD: without assembly every loop is pure Go.
const bestSIMD = simdNone

// intelCPU: the cost model's tables for Intel matter only with vector kernels.
const intelCPU = false
