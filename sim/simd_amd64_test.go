//go:build !purego

package sim

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/qjobs/quantum/internal/testenv"
)

// The vendor read with CPUID is the one Linux reports, where it reports
// one.
func TestVendorStringMatchesTheOS(t *testing.T) {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		testenv.Optional(t, "no /proc/cpuinfo to compare with: "+err.Error())
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
	testenv.Optional(t, "/proc/cpuinfo names no vendor_id")
}
