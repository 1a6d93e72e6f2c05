package sim

import (
	"errors"
	"fmt"
)

// Errors that Run, Simulate and NewState wrap; test them with errors.Is.
var (
	// ErrTooManyQubits: the circuit has more qubits than Limits.MaxQubits.
	ErrTooManyQubits = errors.New("too many qubits")
	// ErrMemoryBudget: the state vector would not fit Limits.MemoryBudget.
	ErrMemoryBudget = errors.New("state vector exceeds the memory budget")
	// ErrInvalidCircuit: the circuit breaks a rule of the IR (an index out
	// of range, a matrix that is not unitary, a qubit used twice in a gate).
	ErrInvalidCircuit = errors.New("invalid circuit")
	// ErrStepLimit: one shot executed more than Options.MaxSteps
	// operations, as a while loop that never ends would.
	ErrStepLimit = errors.New("step limit exceeded")
	// ErrWorkLimit: the run would do more work than Options.MaxWork allows
	// (amplitudes touched; see DefaultMaxWork).
	ErrWorkLimit = errors.New("work limit exceeded")
	// ErrResultTooLarge: the counts would hold more distinct outcomes than
	// Options.MaxResultBytes allows for keys of their width.
	ErrResultTooLarge = errors.New("result too large")
)

const (
	// DefaultMaxQubits is the qubit limit when Limits.MaxQubits is 0.
	DefaultMaxQubits = 30
	// DefaultMemoryBudget (4 GiB, 28 qubits) is the budget when
	// Limits.MemoryBudget is 0.
	DefaultMemoryBudget int64 = 4 << 30
	// hardMaxQubits keeps 16·2^n within an int64 whatever the caller asks.
	hardMaxQubits = 58
	// MaxClbits is the most classical bits a circuit may declare (Validate
	// refuses more): every shot holds them, and they may all key the
	// counts. It is far above what front ends allow (OpenQASM's registers
	// here stop at 65,536 bits) and keeps what they cost linear and small.
	MaxClbits = 1 << 20
	// DefaultMaxResultBytes (64 MiB) bounds the counts when
	// Options.MaxResultBytes is 0: distinct outcomes × key width. It lets
	// every outcome of 20 qubits (2^20 keys of 20 bytes) or 16,384 distinct
	// outcomes of a 4,096-bit register through, and keeps a result the
	// service must store and send to tens of MB.
	DefaultMaxResultBytes int64 = 64 << 20
)

// Limits bound what a simulation may allocate. They are checked before any
// allocation.
type Limits struct {
	MaxQubits    int   // 0 means DefaultMaxQubits
	MemoryBudget int64 // bytes for the state vector; 0 means DefaultMemoryBudget
}

func (l Limits) maxQubits() int {
	if l.MaxQubits <= 0 {
		return DefaultMaxQubits
	}
	return min(l.MaxQubits, hardMaxQubits)
}

func (l Limits) budget() int64 {
	if l.MemoryBudget <= 0 {
		return DefaultMemoryBudget
	}
	return l.MemoryBudget
}

// StateBytes is the size of the state vector of n qubits: 16·2^n.
func StateBytes(n int) int64 {
	if n < 0 || n > hardMaxQubits {
		return -1
	}
	return 16 << n
}

// Check reports whether a double-precision state of n qubits is allowed.
func (l Limits) Check(n int) error { return l.CheckPrecision(n, Double) }

// CheckPrecision reports whether a state of n qubits in precision p is
// allowed.
func (l Limits) CheckPrecision(n int, p Precision) error {
	if p > Single {
		return fmt.Errorf("%w: unknown precision %d", ErrInvalidCircuit, p)
	}
	if n < 0 {
		return fmt.Errorf("%w: %d qubits", ErrInvalidCircuit, n)
	}
	if n > l.maxQubits() {
		return fmt.Errorf("%w: %d qubits requested, the limit is %d", ErrTooManyQubits, n, l.maxQubits())
	}
	if b := p.bytesPerAmplitude() << n; b > l.budget() {
		return fmt.Errorf("%w: %d qubits need %s, the budget is %s", ErrMemoryBudget, n, byteSize(b), byteSize(l.budget()))
	}
	return nil
}

func byteSize(b int64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := int64(unit), 0
	for n := b / unit; n >= unit; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.4g %ciB", float64(b)/float64(div), "KMGTPE"[exp])
}
