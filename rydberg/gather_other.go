//go:build !amd64 || purego

package rydberg

// haveGather is false here: fullReal's loop of sums in Go runs, and
// fullRealGathered is never called.
var haveGather = false

func (o *pass) fullRealGathered(lo, hi int, f float64, cur, prev, next, acc []complex128) float64 {
	panic("rydberg: fullRealGathered without AVX2")
}
