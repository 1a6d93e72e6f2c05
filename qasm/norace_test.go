//go:build !race

package qasm_test

const raceEnabled = false
