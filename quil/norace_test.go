//go:build !race

package quil_test

const raceEnabled = false
