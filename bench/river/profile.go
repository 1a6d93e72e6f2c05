package main

import (
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile of this process (the nodes or River's
// clients, and the submitters; not PostgreSQL) to file until the returned
// stop is called: with -only, a profile of one shape.
func startProfile(file string) (stop func(), err error) {
	f, err := os.Create(file)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
