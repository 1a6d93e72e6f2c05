//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) used so far by this process,
// or with children by its waited-for child processes.
func cpuTime(children bool) time.Duration {
	who := syscall.RUSAGE_SELF
	if children {
		who = syscall.RUSAGE_CHILDREN
	}
	var r syscall.Rusage
	if err := syscall.Getrusage(who, &r); err != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
