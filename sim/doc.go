// Package sim is a quantum simulator: a state vector, and for noise a
// density matrix or quantum trajectories.
//
// A program reaches sim as a [Circuit]: a flat list of [Op] values on qubit
// and classical-bit indices. Front ends (package qasm, later QIR) build
// circuits and never see the kernels that apply them.
//
// The state of n qubits is a []complex128 of length 2^n in little-endian
// order: qubit 0 is the lowest bit of an amplitude's index. Before a state is
// allocated its size, 16·2^n bytes, is checked against a memory budget
// ([Limits]), so a large request is an error rather than an out-of-memory
// crash.
//
// [Run] executes a circuit for a number of shots and returns measurement
// counts. When every measurement is terminal the circuit is simulated once
// and all shots are sampled from the final distribution; otherwise
// (mid-circuit measurement, reset, classical control on measured bits)
// every shot runs the circuit with real collapse. Classical control that
// no measurement steers (a loop counted in classical bits, a condition on
// bits set by the program) takes the same path on every shot: the state
// vector runs such a circuit once, following its jumps, and samples the
// shots (stream.go). [Simulate] returns the exact final state of a
// circuit's unitary part, for tests and for users who want amplitudes.
//
// Noise: a [Channel] (Braket's channels: [BitFlip], [PhaseFlip],
// [PauliChannel], [Depolarizing], [TwoQubitDepolarizing],
// [TwoQubitDephasing], [AmplitudeDamping], [PhaseDamping],
// [GeneralizedAmplitudeDamping], or any [Kraus] channel on one or two
// qubits) is an operation of the circuit ([NoiseOp]), and no gate is fused
// or cancelled across it. Options.Method says how a noisy circuit runs:
//
//   - [MethodDensityMatrix] holds ρ, 4^n amplitudes, as a state vector of
//     2n qubits, and applies every gate and channel to it exactly; its
//     measurements must be terminal (no classical control), and shots are
//     sampled from ρ's diagonal. [SimulateDensityMatrix] returns ρ.
//   - [MethodStateVector] runs a noisy circuit once per shot, a quantum
//     trajectory: each channel draws one of its Kraus branches with its
//     probability on the shot's state (a Pauli channel with fixed
//     probabilities, without reading the state). It runs everything,
//     mid-circuit measurement and classical control included.
//   - [MethodStabilizer] holds a stabilizer tableau, O(n²) bits, and runs
//     circuits whose gates are all Clifford (judged by their matrices, one
//     at a time as written) and whose channels are all Pauli channels, on
//     up to [MaxStabilizerQubits] qubits. Without classical control it
//     runs the tableau once for a reference sample and samples the shots
//     as Pauli frames, 64 to a word; with it, the tableau once per shot.
//   - [MethodAuto], the default, takes the stabilizer for a circuit of
//     Clifford gates and Pauli channels (decisions.md), else the density
//     matrix for a noisy circuit it can run, small enough and with enough
//     shots to pay for it (see [Circuit.Method]), trajectories for other
//     noisy circuits, and the state vector for circuits without noise.
//
// Either way every shot is an independent sample of the density matrix's
// distribution, reproducible with Options.Seed. A channel that is a Pauli
// channel says so with its probabilities ([Channel.PauliProbabilities]):
// the stabilizer draws a Pauli from them for each shot.
//
// Run takes circuits from clients and assumes nothing good of them: every
// phase (validation, fusion, gates, channels, shots, sampling, counting) is
// near-linear in its input and checks the context every few milliseconds,
// within a gate too; the operations of a shot and the work of the whole
// run, in amplitudes touched, are bounded (Options.MaxSteps,
// Options.MaxWork) and so are the counts, while
// they are counted (Options.MaxResultBytes); and [MemoryNeed] says before
// a run what it will allocate, with the method it will use, so that a
// service can reserve it first.
package sim
