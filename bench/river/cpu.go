package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// usage is the CPU used so far by this process (the nodes or the River
// clients, and the 16 submitters) and by the PostgreSQL server started
// here (its postmaster and the processes it forked that are alive now:
// the backends of the run's connections, which live as long as their
// pools, the WAL writer, the autovacuum launcher).
type usage struct {
	proc, pg time.Duration
}

func (a usage) sub(b usage) usage { return usage{a.proc - b.proc, a.pg - b.pg} }

// measure reads usage; pg is 0 for a server not started here (pid 0).
func measure(pid int) usage {
	u := usage{proc: procCPU()}
	if pid > 0 {
		u.pg = treeCPU(pid)
	}
	return u
}

func procCPU() time.Duration {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

// clockTick is Linux's USER_HZ, the unit of /proc/<pid>/stat's times.
const clockTick = 10 * time.Millisecond

// treeCPU is the user and system time of pid and of its live children,
// from /proc.
func treeCPU(pid int) time.Duration {
	var total time.Duration
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // it ended meanwhile
		}
		// pid (comm) state ppid … utime stime: comm may hold spaces, so
		// the fields are counted from the last ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 13 {
			continue
		}
		self, _ := strconv.Atoi(strings.Fields(s[:i])[0])
		ppid, _ := strconv.Atoi(fields[1])
		if self != pid && ppid != pid {
			continue
		}
		ut, _ := strconv.ParseInt(fields[11], 10, 64)
		st, _ := strconv.ParseInt(fields[12], 10, 64)
		total += time.Duration(ut+st) * clockTick
	}
	return total
}
