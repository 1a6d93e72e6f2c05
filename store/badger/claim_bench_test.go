package badger_test

import (
	"testing"

	"github.com/qjobs/quantum/store/badger"
	"github.com/qjobs/quantum/store/internal/storebench"
)

// The queue benchmarks run on the memory store too (store), with the
// same names, so that their figures compare.

func BenchmarkClaim100k(b *testing.B) {
	for _, tc := range []struct {
		name string
		dir  func(b *testing.B) string
		opts []badger.Option
	}{
		{"badger-inmemory", func(*testing.B) string { return "" }, []badger.Option{badger.WithInMemory()}},
		{"badger-disk-nosync", func(b *testing.B) string { return b.TempDir() }, []badger.Option{badger.WithSyncWrites(false)}},
	} {
		b.Run(tc.name, func(b *testing.B) { storebench.Claim100k(b, openBench(b, tc.dir(b), tc.opts...)) })
	}
}

func BenchmarkQueuePosition100k(b *testing.B) {
	b.Run("badger-inmemory", func(b *testing.B) { storebench.QueuePosition100k(b, openBench(b, "", badger.WithInMemory())) })
}

// openBench opens a store that closes when the benchmark ends.
func openBench(b *testing.B, dir string, opts ...badger.Option) *badger.Store {
	b.Helper()
	st, err := badger.Open(dir, opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}
