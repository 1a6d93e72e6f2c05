//go:build race

package qasm_test

// raceEnabled: the race detector's instrumentation keeps the compiler from
// inlining, so more values escape to the heap than in a normal build, and
// allocation no longer matches the cost model.
const raceEnabled = true
