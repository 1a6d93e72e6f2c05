//go:build race

package sim

// raceEnabled: under the race detector sync.Pool drops a share of what it
// is given, so recycled jobs are allocated again.
const raceEnabled = true
