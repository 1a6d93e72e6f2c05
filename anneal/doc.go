// Package anneal solves QUBO and Ising problems: simulated annealing with
// the defaults of dwave-samplers' SimulatedAnnealingSampler (1,000 sweeps of
// single-variable Metropolis moves, a geometric β schedule whose range comes
// from the biases), and an exact solver that enumerates every assignment of
// up to MaxExactVariables variables in Gray-code order and returns the true
// ground states.
//
// A Problem holds its variables by name and its terms merged: (u, v) and
// (v, u) are one coupling, a QUBO's diagonal is linear (x·x = x). Decode
// reads one from the JSON the public client sends as the format "problem"
// ({"problem_type", "linear", "quadratic"}), and names the JSON path of
// anything it refuses.
//
// Both solvers say what they will hold and do before allocating anything
// (Need), refuse to pass the caller's memory budget and work bound, stop
// between sweeps when their context ends, and repeat exactly for a seed,
// whatever the number of workers.
//
// The package imports nothing of the service: it is a solver that a device
// backend (package devices) drives.
package anneal
