// Package qir runs QIR programs: LLVM modules that call the QIR runtime
// and quantum instruction set, as pyqir, Q#/QDK, qir-runner and MQT write
// them. It imports only package sim.
//
// [Compile] reads a module from LLVM IR text (our own parser for the
// subset QIR producers emit, with typed or opaque pointers) or from LLVM
// bitcode (our own reader of LLVM 10 to 20), checks it, and runs it once
// without a state vector. A program whose quantum operations do not
// depend on its measurements (every base-profile program, and adaptive
// ones that never read a result) becomes a sim circuit then, with
// recorded result i in classical bit i, and its shots are sampled like an
// OpenQASM program's. The others are interpreted shot by shot on one
// state vector: branches, phi, switch, select, integer and float
// arithmetic, memory (alloca, load, store, getelementptr), calls to the
// module's own functions and loops, within step limits.
//
// Both readers produce one representation of the module, so every rule
// after reading is written once. Nothing a program holds can make the
// package recurse in proportion to its size, allocate past fixed bounds,
// or run without a step limit; what it refuses it names, at a line and
// column for text and in a function for bitcode.
package qir
