package quantum_test

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qasm"
	"github.com/qjobs/quantum/quantumtest"
)

// doublingBomb defines gates g1..gn, each applying the one before twice:
// a program of a few hundred bytes that expands to 2^n gates.
func doublingBomb(n int) string {
	var b strings.Builder
	b.WriteString("OPENQASM 2.0;\ninclude \"qelib1.inc\";\ngate g0 a { h a; }\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "gate g%d a { g%d a; g%d a; }\n", i, i-1, i-1)
	}
	fmt.Fprintf(&b, "qreg q[1];\ng%d q[0];\n", n)
	return b.String()
}

// A flood of 50 concurrent creates of compile bombs keeps the heap within
// the documented bound: at most the compile slots' worth of programs are
// compiled at once, each within qasm's MaxBytes, and every one of them is
// refused (422) or turned away (503); nothing is stored.
func TestFloodOfExpensiveCreates(t *testing.T) {
	const slots = 2
	svc, u := quantumtest.NewService(t, quantum.WithConcurrentChecks(slots, time.Second))
	bombs := []struct{ format, src string }{
		{"qasm2", doublingBomb(30)},
		// loops whose bodies read their variables: the others are kept as
		// loops, small programs
		{"qasm3", "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit q;\nfor int i in [0:99999] { for int j in [0:99999] { rz(i + j) q; } }\n"},
		{"qasm3", "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[4] q;\nfor int i in [0:999999] { h q; cx q[0], q[1]; rz(0.1 * i) q[2]; }\n"},
	}
	runtime.GC()
	base := heapBytes()
	// GC may let the heap grow to twice what is live before it collects.
	bound := base + 2*slots*(qasm.DefaultMaxBytes+16<<20)

	stop := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var p uint64
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			p = max(p, heapBytes())
			select {
			case <-stop:
				peak <- p
				return
			case <-t.C:
			}
		}
	}()
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[string]int{}
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := bombs[i%len(bombs)]
			_, err := svc.CreateJob(ctx, u, request(flagship, b.format, b.src, 1))
			mu.Lock()
			defer mu.Unlock()
			codes[quantum.ErrorCode(err)]++
		}()
	}
	wg.Wait()
	close(stop)
	p := <-peak
	t.Logf("answers %v; heap %d MiB before, peak %d MiB, bound %d MiB", codes, base>>20, p>>20, bound>>20)
	if codes[quantum.EVALIDATION]+codes[quantum.EBUSY] != 50 {
		t.Fatalf("answers %v: want every bomb refused or turned away", codes)
	}
	if p > bound {
		t.Fatalf("the heap peaked at %d MiB, past the bound of %d MiB", p>>20, bound>>20)
	}
}

// heapBytes is the memory held by heap objects, live or not yet swept.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
