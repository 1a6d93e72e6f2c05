package quil

import "context"

// CompileCharged is Compile, and the bytes it charged against MaxBytes.
func CompileCharged(ctx context.Context, src string, opts Options) (*Program, int64, error) {
	return compile(ctx, src, opts)
}
