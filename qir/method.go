package qir

import (
	"fmt"
	"slices"

	"github.com/qjobs/quantum/sim"
)

// A program that reads its measurements is interpreted shot by shot on a
// state it drives (sim.ShotState), so it is judged by the gates it calls
// rather than by a circuit: Clifford when every gate function it calls is
// one of cliffordGates (rotations are not, whatever their angles).

// cliffordGates are the QIS gates, by sim's names, that are Clifford.
var cliffordGates = map[string]bool{
	"h": true, "x": true, "y": true, "z": true, "s": true, "sdg": true, "sx": true, "sxdg": true,
	"cx": true, "cy": true, "cz": true, "swap": true,
}

// NotClifford returns the first gate function (by name) the program
// calls that is not Clifford, "" when every one is.
func (p *Program) NotClifford() string {
	var names []string
	for f, in := range p.c.intrinsics {
		if in.kind == inGate && !cliffordGates[in.gate] {
			names = append(names, f.name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return slices.Min(names)
}

// Method returns the method Run uses with opts, and when opts.Method is
// auto why: a program with a circuit as sim.Circuit.Method says; one that
// reads its measurements on the stabilizer when every gate it calls is
// Clifford, else on the state vector when it fits the limits, else on the
// sparse method. The error wraps sim.ErrMethod: a method that cannot run
// it, saying why.
func (p *Program) Method(opts sim.Options) (sim.Method, string, error) {
	if p.Circuit != nil {
		opts.ResultBits = p.ResultBits
		return p.Circuit.Method(opts)
	}
	n := p.NumQubits
	switch opts.Method {
	case sim.MethodStateVector, sim.MethodSparse:
		return opts.Method, "", nil
	case sim.MethodStabilizer:
		if g := p.NotClifford(); g != "" {
			return 0, "", fmt.Errorf("%w: stabilizer runs Clifford gates only, and the program calls @%s", sim.ErrMethod, g)
		}
		return sim.MethodStabilizer, "", nil
	case sim.MethodAuto:
	default:
		return 0, "", fmt.Errorf("%w: a program that reads its measurements runs shot by shot, not as %s", sim.ErrMethod, opts.Method)
	}
	switch {
	case p.NotClifford() == "":
		return sim.MethodStabilizer, "all gates Clifford, shot by shot", nil
	case opts.Limits.CheckPrecision(n, opts.Precision) == nil:
		return sim.MethodStateVector, "a program that reads its measurements: shot by shot on the state vector", nil
	case n <= sim.MaxSparseQubits:
		return sim.MethodSparse, fmt.Sprintf("%d qubits: over what a state vector within the limits holds, so sparse, shot by shot", n), nil
	}
	return sim.MethodStateVector, "", nil // too wide for any method: Run says so
}
