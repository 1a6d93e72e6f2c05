package main

import (
	"os"
	"runtime"
	"runtime/pprof"
)

// profile starts a CPU profile and arranges an allocation profile, both of
// the whole process (the in-process server and the clients alike); the
// returned function writes them.
func profile(cpu, mem string) (func(), error) {
	if mem != "" {
		runtime.MemProfileRate = 4096
	}
	var cpuFile *os.File
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, err
		}
		cpuFile = f
	}
	return func() {
		if cpuFile != nil {
			pprof.StopCPUProfile()
			cpuFile.Close()
		}
		if mem != "" {
			if f, err := os.Create(mem); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}
	}, nil
}
