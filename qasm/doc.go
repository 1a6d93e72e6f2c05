// Package qasm compiles OpenQASM 2.0 and OpenQASM 3 programs into the
// circuit IR of package sim.
//
// [Compile] parses a program, checks it and lowers it: gate definitions,
// gate modifiers (ctrl @, negctrl @, inv @, pow(k) @), subroutines and loops
// whose bounds are known at compile time are expanded, so the circuit sim
// receives is a flat list of gates, measurements, resets and barriers.
// Control flow that depends on measurement results becomes conditional
// operations and jumps that sim follows shot by shot.
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
// Every error is an [*Error] with a line and column. Nothing a program
// contains can make Compile panic or run without bound: nesting depth, loop
// iterations, qubit count and the number of emitted operations are capped
// (see [Options]).
package qasm
