package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// cpuProfile profiles the process until the returned function is called:
// a server's CPU is measured from outside (bench/load), and where it goes
// can only be seen from inside.
func cpuProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
