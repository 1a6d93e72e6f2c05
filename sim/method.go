package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
)

// Method is how Run simulates a circuit: the names of the service's
// runtimeOptions.method (decisions.md, "Simulation methods").
type Method uint8

const (
	// MethodAuto lets Run choose (see Circuit.Method): the stabilizer for
	// Clifford gates and Pauli channels (but for small circuits whose
	// loops no measurement steers, which run once on the state vector),
	// the density matrix for another small noisy circuit it can run, the
	// state vector otherwise.
	MethodAuto Method = iota
	// MethodStateVector holds the 2^n amplitudes of the state. A circuit
	// with noise channels runs as quantum trajectories, once per shot:
	// each channel draws one of its Kraus branches with its probability
	// on the shot's state.
	MethodStateVector
	// MethodDensityMatrix holds ρ, 4^n amplitudes, and applies gates and
	// channels to it exactly. It runs circuits without classical control
	// whose measurements are all terminal (resets are channels and may
	// stand anywhere before them); others need MethodStateVector.
	MethodDensityMatrix
	// MethodStabilizer holds the state as a stabilizer tableau, O(n²)
	// bits (stabilizer.go): it runs circuits whose gates are all Clifford
	// and whose channels are all Pauli channels, on up to
	// MaxStabilizerQubits qubits, and samples shots without classical
	// control as Pauli frames, 64 to a word.
	MethodStabilizer
	// MethodSparse keeps only the nonzero amplitudes (sparse.go), for
	// up to MaxSparseQubits qubits whose state stays sparse; MethodAuto
	// takes it when the state vector does not fit the limits.
	MethodSparse
)

var methodNames = [...]string{"auto", "statevector", "densitymatrix", "stabilizer", "sparse"}

func (m Method) String() string {
	if int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", uint8(m))
}

// ErrMethod is wrapped by the errors of a method that cannot run a circuit
// (why is in the message), of one not implemented, and of an unknown name.
var ErrMethod = errors.New("simulation method")

// ParseMethod returns the method of a runtimeOptions.method name; an
// unknown name is an error that lists them.
func ParseMethod(name string) (Method, error) {
	for i, n := range methodNames {
		if n == name {
			return Method(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown method %q; the methods are %s", ErrMethod, name, strings.Join(methodNames[:], ", "))
}

// AutoDensityMaxQubits is the most qubits for which MethodAuto runs a
// noisy circuit on the density matrix: 4^12 amplitudes are 256 MiB, and
// past it trajectories cost less for any usual number of shots.
const AutoDensityMaxQubits = 12

// densityShotFactor: the density matrix of n qubits costs about what
// densityShotFactor·2^n trajectories cost. ρ's passes stream 4^n
// amplitudes from memory where a trajectory's 2^n stay in cache; on noisy
// H+CX layers the two broke even at 1.4·2^n shots on 8 and 10 qubits and
// 4.1·2^n on 12 (bench/README.md). At 3 the worse choice costs at most
// about twice the better, and where it matters most (12 qubits,
// seconds) 1.4 times.
const densityShotFactor = 3

// trajectoryShots is how many trajectories shots cost: one a shot, or,
// when shots are grouped by their errors (patterns.go), about one for
// each shot that draws an error: shots·(1 − e^−λ), λ the errors a shot
// draws on average (fewer when shots draw the same errors).
func trajectoryShots(c *Circuit, sh shape, shots int) int {
	ok, _ := groupable(c, sh, shots)
	if !ok {
		return shots
	}
	return int(float64(shots) * -math.Expm1(-meanErrors(c)))
}

// Method returns the method Run(ctx, c, opts) uses, and when opts.Method
// is MethodAuto, why in a few words (for metadata.methodReason). MethodAuto
// runs a circuit whose gates are all Clifford and whose channels are all
// Pauli channels on the stabilizer ("all gates Clifford"), as decisions.md
// says, whatever its size, but for one whose control flow no measurement
// steers (loops: stream.go) and whose state vector fits opts.Limits and
// costs, a pass over it per gate run once, no more than the stabilizer's
// opFloor a gate for every shot: that one runs once on the state vector;
// another whose state vector does not fit
// opts.Limits on the sparse method; another without noise channels on the
// state vector as it always has; a noisy one on the density matrix when
// the density-matrix method can run it, it has at most
// AutoDensityMaxQubits qubits, ρ fits opts.Limits and there are at least
// 3·2^n trajectories to run (fewer cost less than ρ): a trajectory a shot,
// or when shots are grouped by the errors they draw (Pauli channels,
// terminal measurements) about one for each shot that draws any; by
// trajectories on the state vector otherwise.
//
// The error wraps ErrMethod: a method not implemented, or the density
// matrix or the stabilizer asked for a circuit it cannot run (saying why:
// "gate t at 7:1 is not a Clifford gate"). Limits are Run's to check.
func (c *Circuit) Method(opts Options) (m Method, reason string, err error) {
	c, noisyEnd, err := withNoise(context.Background(), c, opts) // never cancelled
	if err != nil {
		return 0, "", err
	}
	sh, _ := analyse(context.Background(), c)
	sh.noise = sh.noise || noisyEnd
	if err := sh.judge(context.Background(), c, opts, &cliffordJudge{}); err != nil {
		return 0, "", err
	}
	return chooseMethod(c, sh, opts)
}

// check fails for a method Run does not know or cannot run at all.
func (m Method) check() error {
	switch m {
	case MethodAuto, MethodStateVector, MethodDensityMatrix, MethodStabilizer, MethodSparse:
		return nil
	}
	return fmt.Errorf("%w: unknown method %d", ErrMethod, uint8(m))
}

// checkMethod checks n qubits against the limits of method m.
func (o Options) checkMethod(m Method, n int) error {
	switch m {
	case MethodStabilizer:
		if o.Precision > Single {
			return fmt.Errorf("%w: unknown precision %d", ErrInvalidCircuit, o.Precision)
		}
		return o.Limits.checkStabilizer(n)
	case MethodDensityMatrix:
		return o.Limits.checkDensity(n, o.Precision)
	case MethodSparse:
		return o.Limits.checkSparse(n, o.Precision)
	}
	return o.Limits.CheckPrecision(n, o.Precision)
}

// checkAnyMethod checks n qubits against the limits of the method
// o.Method names, or for auto those of the state vector or, past them,
// the stabilizer's or the sparse method's: the widest it may choose. checkMethod checks the
// method chosen.
func (o Options) checkAnyMethod(n int) error {
	err := o.checkMethod(o.Method, n)
	if err != nil && o.Method == MethodAuto && (n <= o.Limits.stabilizerMaxQubits() && o.Precision <= Single || o.Limits.checkSparse(n, o.Precision) == nil) {
		return nil
	}
	return err
}

func chooseMethod(c *Circuit, sh shape, opts Options) (Method, string, error) {
	n := c.NumQubits
	switch opts.Method {
	case MethodStateVector:
		return MethodStateVector, "", nil
	case MethodDensityMatrix:
		if sh.densityBlock != "" {
			return 0, "", fmt.Errorf("%w: densitymatrix runs circuits whose measurements are all terminal, without classical control: %s; statevector runs it (with quantum trajectories for its noise)", ErrMethod, sh.densityBlock)
		}
		return MethodDensityMatrix, "", nil
	case MethodSparse:
		return MethodSparse, "", nil
	case MethodStabilizer:
		if !sh.judged {
			return 0, "", fmt.Errorf("%w: the circuit was not judged for the stabilizer method", ErrMethod)
		}
		if sh.stabilizerBlock != "" {
			return 0, "", fmt.Errorf("%w: stabilizer runs Clifford gates and Pauli channels only: %s", ErrMethod, sh.stabilizerBlock)
		}
		return MethodStabilizer, "", nil
	case MethodAuto:
	default:
		if err := opts.Method.check(); err != nil {
			return 0, "", err
		}
	}
	switch {
	case sh.judged && sh.stabilizerBlock == "" && sh.streams() && opts.Limits.CheckPrecision(n, opts.Precision) == nil &&
		addWork(passWork(n, 1), streamStepWork) <= mulSat(opFloor, int64(max(opts.Shots, 1))):
		// The stabilizer would run every shot through the loops; the
		// state vector runs them once, a gate costing a pass over a small
		// state where the stabilizer pays at least opFloor a shot.
		return MethodStateVector, "all gates Clifford, but the control flow is the same on every shot: run once on the state vector", nil
	case sh.judged && sh.stabilizerBlock == "":
		return MethodStabilizer, "all gates Clifford", nil
	case opts.Limits.CheckPrecision(n, opts.Precision) != nil && opts.Limits.checkSparse(n, opts.Precision) == nil:
		return MethodSparse, fmt.Sprintf("%d qubits: over what a state vector within the limits holds, so sparse", n), nil
	case !sh.noise:
		return MethodStateVector, "no noise: the state vector", nil
	case sh.densityBlock != "":
		return MethodStateVector, "noise with mid-circuit measurement or classical control: quantum trajectories", nil
	case n > AutoDensityMaxQubits:
		return MethodStateVector, fmt.Sprintf("noise on %d qubits, over %d for a density matrix: quantum trajectories", n, AutoDensityMaxQubits), nil
	case trajectoryShots(c, sh, opts.Shots) < densityShotFactor<<n:
		return MethodStateVector, fmt.Sprintf("noise on %d qubits, %d shots: quantum trajectories cost less than a density matrix", n, opts.Shots), nil
	case opts.Limits.checkDensity(n, opts.Precision) != nil:
		return MethodStateVector, fmt.Sprintf("noise on %d qubits, whose density matrix exceeds the limits: quantum trajectories", n), nil
	}
	return MethodDensityMatrix, fmt.Sprintf("noise on %d qubits: the density matrix fits the memory budget", n), nil
}
