// Package quil compiles Quil programs, as pyquil's Program.out() writes
// them, to sim's circuit IR (decisions.md, "Every program format the
// public client sends": the subset, the counts and the errors).
//
// What it reads: DECLARE (BIT, OCTET, INTEGER, REAL; memory starts at
// zero), pyquil's standard gates and the specification's others, DEFGATE
// as a matrix, AS PERMUTATION, AS PAULI-SUM (the exponential of its sum)
// and AS SEQUENCE, the modifiers DAGGER, CONTROLLED and FORKED, MEASURE,
// RESET, HALT, NOP, WAIT, LABEL, JUMP, JUMP-WHEN, JUMP-UNLESS, the
// classical instructions, and PRAGMA (ignored). Quil-T, INCLUDE,
// EXTERN/CALL, DEFCIRCUIT and memory SHARING are refused, naming the line.
//
// Conventions: qubit 0 is the lowest bit of the state's index; in a gate
// on several qubits the first listed is the most significant bit of its
// matrix (CNOT 0 1: 0 controls); CONTROLLED takes its control first. The
// counts are the bits of the region ro (ro[0] is bit 0, rightmost), or,
// without ro, of every BIT region in declaration order; a program that
// measures nothing is measured on every qubit at its end, as in every
// format the service runs.
//
// Classical memory lives in the circuit's classical bits: a BIT one bit,
// an OCTET eight, an INTEGER sixty-four (two's complement), and the
// classical instructions on them run shot by shot as sim's classical
// operations. REAL memory is known while the program compiles: a gate
// parameter may read it where its value does not depend on how the
// program ran (a program whose jumps could change it is refused there),
// and comparisons and arithmetic on it are worked out here too. An
// immediate operand may be a constant expression (MOVE theta -pi/2).
//
// Every error is an *Error with the line and column it is about, but the
// context's own when the caller gives up. What a compile allocates is
// bounded by Options.MaxBytes and MaxOps, charged before it is spent.
package quil
