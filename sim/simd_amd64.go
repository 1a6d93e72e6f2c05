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

// cpuVendor returns the vendor string of CPUID leaf 0, in its registers'
// order (cpuid_amd64.s); x/sys/cpu does not report it.
func cpuVendor() (ebx, edx, ecx uint32)

// intelCPU reports a GenuineIntel CPU, whose kernel costs differ from
// AMD's enough to change the fusion width that pays (fusecost.go).
var intelCPU = vendorString() == "GenuineIntel"

// vendorString is the 12-byte vendor of CPUID leaf 0: "GenuineIntel",
// "AuthenticAMD" and so on.
func vendorString() string {
	var b []byte
	ebx, edx, ecx := cpuVendor()
	for _, r := range []uint32{ebx, edx, ecx} {
		b = append(b, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	return string(b)
}
