// Package rydberg simulates neutral atoms driven between their ground
// state g and a Rydberg state r, the model of analog neutral-atom devices
// (QuEra's Aquila through Amazon Braket, Pasqal's devices through Pulser):
//
//	H(t) = Σ_k [ (c_k(t)/2) |r_k⟩⟨g_k| + (c_k(t)*/2) |g_k⟩⟨r_k| − δ_k(t) n_k ]
//	       + Σ_{j<k} C6/d_jk⁶ n_j n_k
//
// where c_k = Ω·e^{iφ} is the complex Rabi frequency driving atom k, δ_k its
// detuning (a global one plus weighted local ones), n_k = |r_k⟩⟨r_k|, and
// d_jk the distance between atoms j and k. Every atom starts in g.
//
// Units are those of Pulser: positions in µm, times in µs, frequencies in
// rad/µs, C6 in rad·µm⁶/µs (Braket's SI values convert by 1e6: 5.42e-24
// rad·m⁶/s is 5.42e6 rad·µm⁶/µs).
//
// The drives and detunings are piecewise linear in time (a phase that is
// held piecewise constant is a drive whose complex value jumps where the
// phase does). The simulation steps from one breakpoint of any field to
// the next and never across one, so every kink is followed exactly.
//
// Within a stretch between breakpoints the Hamiltonian is H(t0+s) = A + sB,
// and the state's Taylor series in s follows from the equation itself:
// y₀ = ψ(t0), y_{k+1} = −i (A y_k + B y_{k−1})/(k+1). The series is that
// of the exact solution, so no splitting or freezing of H in time enters
// the error; each step stops adding terms once a bound on what the rest of
// the series can still add, which follows from ‖A‖ and ‖B‖, is below the
// step's share of the tolerance (Options.Tolerance, by default 1e-8 in the
// 2-norm of the final state, so every amplitude is within it). Each term
// is one pass over the sparse Hamiltonian: the interactions and detunings
// are a diagonal, the drive flips one atom at a time. No dense matrix is
// made.
//
// The configurations simulated are all 2^N of the atoms by default, or,
// with Options.BlockadeRadius, only those in which no two atoms within that
// radius are both in r (the Hamiltonian projected on them, as Braket's local
// simulator does). What a run holds is counted before anything is
// allocated (Estimate), and a run past Options.MemoryBudget or
// Options.MaxWork is refused or stopped.
package rydberg
