// Package qasm compiles OpenQASM 2.0 and OpenQASM 3 programs into the
// circuit IR of package sim.
//
// [Compile] parses a program, checks it and lowers it: gate definitions,
// gate modifiers (ctrl @, negctrl @, inv @, pow(k) @), subroutines and loops
// whose bounds are known at compile time are expanded, so the circuit sim
// receives is a flat list of gates, measurements, resets, barriers and
// noise channels. Control flow that depends on measurement results becomes
// conditional operations and jumps that sim follows shot by shot.
//
// Loops stay loops: a for loop whose iterations all lower to the same
// operations (its body does not read the loop's variable, writes no
// compile-time variable declared outside it, and holds no break,
// continue, return or end of its own) and that would unroll to more than
// 4,096 operations is lowered once and run as many times as it says,
// counted in classical bits of the compiler's with a jump back (see
// loops.go). Such a loop is not bounded by MaxLoopIterations; sim bounds
// the work it does when it runs. Other loops unroll.
//
// Classical values are evaluated at compile time wherever they can be.
// Bits (bit, bit[n], creg) live in the circuit's classical bits, and so
// do bool, int and uint variables once they hold a value that comes from
// a measurement: arithmetic, comparisons and bit operations on such values
// become sim's classical expressions (OpCompute), computed shot by shot.
// Float and angle variables, gate parameters, sizes and loop bounds must
// be known at compile time; a program that would need them to depend on a
// measurement is rejected with a message that names the construct.
//
// Classical bits are numbered in declaration order: the first register
// declared at the top level gets bits 0 upwards. Bits the compiler needs
// for itself (registers local to a loop body or a subroutine, bools that
// hold measured values) come after the program's own; [CompileProgram]
// reports where the program's bits end and its register layout.
//
// The dialects users send are accepted as they are written: OpenQASM 3
// knows the standard gates (and Amazon Braket's names for them, such as
// cnot) without an include; OpenQASM 2 needs include "qelib1.inc" as its
// specification says. No file is ever read: an include of anything but
// the two standard libraries is an error that names it.
//
// In an OpenQASM 3 program, the pragma that Amazon Braket's simulators
// read applies a noise channel of package sim where it stands:
//
//	#pragma braket noise depolarizing(0.1) q[0]
//	#pragma braket noise two_qubit_depolarizing(0.05) q[0], q[1]
//	#pragma braket noise kraus([[0.6, 0], [0, 0.6]], [[0, 0.8im], [-0.8im, 0]]) q
//
// The channels are bit_flip(p), phase_flip(p), pauli_channel(px, py, pz),
// depolarizing(p), two_qubit_depolarizing(p), two_qubit_dephasing(p),
// amplitude_damping(gamma), phase_damping(gamma),
// generalized_amplitude_damping(gamma, p) and kraus(K1, K2, ...), with the
// ranges of sim's constructors. A parameter is any real expression known
// at compile time (0.1, 0.1/2, pi/40, a constant, a loop's variable), where
// Braket takes only a literal. Kraus matrices are written as Braket writes
// them: rows of entries in brackets, 2×2 for one qubit or 4×4 for two, at
// most 4^k of them, summing to Σ K†K = I within [sim.KrausTolerance]. An
// entry is a literal: a number (0.5, -1, 1e-3), an imaginary one (0.5im,
// -0.2im) or both joined by + or − (0.3 + 0.4im, 0.3 - 0.4im). In a
// two-qubit kraus the first qubit named is the most significant bit of the
// matrices' row and column index, as in Braket.
//
// A pragma's operands name qubits as a gate's do ($0, q[1], a register, a
// slice). A one-qubit channel applies to each qubit they name, in order, so
// "#pragma braket noise bit_flip(0.1) q" applies it to every qubit of q; a
// two-qubit channel needs exactly two qubits. No qubit may be named twice.
// The pragma takes its whole line (a ";" may end it, a comment follow it),
// and applies each time its place is reached: once per iteration of a
// loop, once per call of a subroutine, under a measured condition only on
// the shots that take the branch. It may not stand in a gate definition,
// which is unitary. Other pragmas (#pragma braket verbatim, another tool's)
// are ignored, and so are noise pragmas in an OpenQASM 2 program: it gets
// noise only from a device's noise model.
//
// Every error is an [*Error] with a line and column, except that
// [CompileContext] returns the context's error when the caller gives up.
// Nothing a program contains can make Compile panic, overflow its stack,
// or run or allocate without bound. The limits, with their defaults:
//
//   - [Options].MaxQubits (64) qubits, physical ($n) and declared together;
//     $n itself at most $1048576.
//   - [Options].MaxLoopIterations (100,000) iterations of one loop unrolled
//     at compile time, for, while or over a set; a for loop kept as a loop
//     has any number up to 2^64−1.
//   - [Options].MaxOps (2,000,000) operations in the lowered circuit, as
//     stored: a loop kept as a loop counts its body once, and three
//     operations more.
//     A noise operation counts as one, and costs about 450 bytes of
//     MaxBytes (sim keeps its channel outside the operation), so the
//     default MaxBytes holds some 150,000 of them; each distinct channel
//     (a name with its parameters, or a kraus pragma) is built once and
//     shared, for a few KiB (a two-qubit kraus, up to 150 KiB).
//   - [Options].MaxBytes (64 MiB) of memory allocated while lowering: each
//     operation, gate matrix, expanded gate body, unrolled iteration, array,
//     classical bit and symbol is charged before it is allocated, and work
//     that allocates nothing a byte a step, so it bounds time as well.
//     Parsing allocates at most about 64 bytes per byte of source, and
//     holds no more than a thousand or so tokens at a time.
//   - 200 levels of nesting in the source: statements within statements,
//     parentheses, types within types, and the height of an expression,
//     where each operator of a chain such as a+b+c or a ++ b ++ c counts a
//     level; and 200 modifiers on one gate.
//   - 100 gate expansions and subroutine calls within one another, and 2000
//     levels of the compiler's own recursion in all (a recursive subroutine
//     stacks its body's nesting once per call).
//   - 65,536 classical bits, registers and the compiler's scratch bits
//     together; types of 1 to 65,536 bits; arrays of at most 65,536
//     elements in at most 16 dimensions.
//   - 64-bit integers: a literal of 2^64 or more is an error, and one past
//     math.MaxInt64 (read as the uint[64] with its bits) is refused as a
//     size, count, index or loop bound. Arithmetic wraps in two's
//     complement, as sim's does at run time; sizes, counts, indices and
//     loop lengths are checked, never wrapped.
//   - ctrl(n) and negctrl(n) take 1 to MaxQubits controls; pow(k) an
//     exponent of at most 2^24 in size, and a fractional one applies to
//     gates on at most 5 qubits; a gate that is not a rotation takes a
//     measured angle of at most 6 bits.
//   - bit string literals of at most 64 bits.
package qasm
