//go:build !purego

package sim

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// The vendor read with CPUID is the one Linux reports, where it reports
// one.
func TestVendorStringMatchesTheOS(t *testing.T) {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		t.Skipf("no /proc/cpuinfo to compare with: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(key) == "vendor_id" {
			if got, want := vendorString(), strings.TrimSpace(val); got != want {
				t.Fatalf("vendorString() = %q, /proc/cpuinfo says %q", got, want)
			}
			if intelCPU != (vendorString() == "GenuineIntel") {
				t.Fatalf("intelCPU = %v for vendor %q", intelCPU, vendorString())
			}
			return
		}
	}
	t.Skip("/proc/cpuinfo names no vendor_id")
}
