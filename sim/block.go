package sim

import "sync"

// Cache blocking: a run of gates that all act on qubits below blockBits is
// applied one block of 2^blockBits amplitudes at a time, every gate of the
// run on a block while it is in cache, instead of one pass over the whole
// state per gate. 2^14 amplitudes are 256 KiB, within a core's L2.
const blockBits = 14

// highest is the highest qubit the kernel touches, −1 for a global phase.
func (k *kernel) highest() int {
	if len(k.fixed) == 0 {
		return -1
	}
	return k.fixed[len(k.fixed)-1]
}

// lowRun returns how many kernels from the start of ks act only below
// blockBits.
func lowRun(ks []*kernel) int {
	n := 0
	for n < len(ks) && ks[n].highest() < blockBits {
		n++
	}
	return n
}

// applyBlocked applies every kernel of ks (all below blockBits) block by
// block, the blocks shared out among the workers.
func (s *State) applyBlocked(ks []*kernel) {
	blocks := 1 << (s.n - blockBits)
	size := 1 << blockBits
	maxDim := 0
	for _, k := range ks {
		maxDim = max(maxDim, len(k.off))
	}
	workers := min(s.workers, blocks)
	var wg sync.WaitGroup
	chunk := (blocks + workers - 1) / workers
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, blocks)
		if lo >= hi {
			break
		}
		buf := s.scratch(w, maxDim)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := lo; b < hi; b++ {
				sub := s.amp[b*size : (b+1)*size]
				for _, k := range ks {
					k.apply(sub, 0, k.groups(blockBits), buf)
				}
			}
		}()
	}
	wg.Wait()
}
