//go:build !purego

package sim

import "golang.org/x/sys/cpu"

// bestSIMD is the widest vector unit this CPU and OS support. x/sys/cpu
// reports AVX2 and AVX-512 only when the OS saves their registers.
var bestSIMD = func() simdLevel {
	switch {
	case cpu.X86.HasAVX512F && cpu.X86.HasFMA:
		return simdAVX512
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return simdAVX2
	}
	return simdNone
}()
