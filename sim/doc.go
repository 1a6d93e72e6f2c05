// Package sim is a state-vector quantum simulator.
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
// (mid-circuit measurement, reset, classical control) every shot runs the
// circuit with real collapse. [Simulate] returns the exact final state of a
// circuit's unitary part, for tests and for users who want amplitudes.
//
// Run takes circuits from clients and assumes nothing good of them: every
// phase (validation, fusion, gates, shots, sampling, counting) is
// near-linear in its input and checks the context every few milliseconds,
// within a gate too; the operations of a shot and the work of the whole
// run, in amplitudes touched, are bounded (Options.MaxSteps,
// Options.MaxWork) and so are the counts, while
// they are counted (Options.MaxResultBytes); and [MemoryNeed] says before
// a run what it will allocate, so that a service can reserve it first.
package sim
