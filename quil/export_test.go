package quil

import "context"

// CompileCharged is Compile, and the bytes it charged against MaxBytes.
func CompileCharged(ctx context.Context, src string, opts Options) (*Program, int64, error) {
	return compile(ctx, src, opts)
}

// CompileGeneral is Compile without its fast paths.
func CompileGeneral(ctx context.Context, src string, opts Options) (*Program, error) {
	p, _, err := compileWith(ctx, src, opts, true)
	return p, err
}

// SimGateOf and SimGateNames are the fast path's lookup and the map it
// stands for.
func SimGateOf(name string) bool { return simGateOf(name) != nil && simGateOf(name) == simGates[name] }

func SimGateNames() []string {
	var names []string
	for n := range simGates {
		names = append(names, n)
	}
	return names
}
