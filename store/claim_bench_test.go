package store_test

import (
	"testing"

	"github.com/qjobs/quantum/store"
	"github.com/qjobs/quantum/store/internal/storebench"
)

// The queue benchmarks run on the badger store too (store/badger), with
// the same names, so that their figures compare.

func BenchmarkClaim100k(b *testing.B) {
	b.Run("memory", func(b *testing.B) { storebench.Claim100k(b, store.NewMemory()) })
}

func BenchmarkQueuePosition100k(b *testing.B) {
	b.Run("memory", func(b *testing.B) { storebench.QueuePosition100k(b, store.NewMemory()) })
}
