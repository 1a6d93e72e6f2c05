package quantum

import (
	"bufio"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// The Service holds one memory budget for every job it runs at once: a
// worker claims a job only when the memory its backend said it needs
// (Resources.Memory) is free, and a job that needs more than the whole
// budget is refused at create. Without it, W workers could each allocate
// the largest state at once.

// fallbackMemoryBudget is the budget when the machine's memory cannot be
// read: 4 GiB, one 28-qubit state.
const fallbackMemoryBudget int64 = 4 << 30

// DefaultMemoryBudget returns the budget a Service has unless
// WithMemoryBudget sets one: half of the memory this process may use,
// which is the least of the machine's physical memory, the limit of its
// cgroup (in a container) and GOMEMLIMIT when set. The other half is left
// to the Go runtime, compiles, requests and results. When none of them can
// be read it is 4 GiB.
func DefaultMemoryBudget() int64 {
	limit := int64(math.MaxInt64)
	if n := debug.SetMemoryLimit(-1); n > 0 {
		limit = n
	}
	if n := physicalMemory(); n > 0 {
		limit = min(limit, n)
	}
	if n := cgroupMemoryLimit(); n > 0 {
		limit = min(limit, n)
	}
	if limit == math.MaxInt64 {
		return fallbackMemoryBudget
	}
	return limit / 2
}

// physicalMemory reads MemTotal from /proc/meminfo; 0 when it cannot.
func physicalMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil || kb <= 0 || kb > math.MaxInt64/1024 {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}

// cgroupMemoryLimit reads the memory limit of the process's cgroup (v2,
// then v1); 0 when there is none or it cannot be read.
func cgroupMemoryLimit() int64 {
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		// "max", or v1's page-rounded MaxInt64, mean no limit.
		if err != nil || n <= 0 || n >= math.MaxInt64/2 {
			continue
		}
		return n
	}
	return 0
}
