package sim

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
