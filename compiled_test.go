package quantum_test

import (
	"testing"

	"github.com/qjobs/quantum"
)

// The cache hands each program compiled at create to one run, and stays
// within its bounds: the oldest go first, large programs are not kept.
func TestCompiledCache(t *testing.T) {
	c := quantum.NewCompiledCacheForTest()
	c.Put(1, 10, 100)
	c.Put(1, 10, 101)
	c.Put(2, 10, 200)
	if got := c.Take(1); got != 101 && got != 100 {
		t.Fatalf("Take(1) = %d", got)
	}
	if got := c.Take(1); got != 101 && got != 100 {
		t.Fatalf("second Take(1) = %d", got)
	}
	if got := c.Take(1); got != -1 {
		t.Fatalf("a program was taken twice: %d", got)
	}
	if n, ops := c.Size(); n != 1 || ops != 10 {
		t.Fatalf("size %d programs, %d ops; want 1, 10", n, ops)
	}

	c.Put(3, quantum.CacheMaxOps+1, 300)
	if got := c.Take(3); got != -1 {
		t.Fatal("a program past CacheMaxOps was kept")
	}

	for i := range quantum.CacheEntries {
		c.Put(4, 1, i)
	}
	if n, _ := c.Size(); n != quantum.CacheEntries {
		t.Fatalf("%d programs kept, want the bound %d", n, quantum.CacheEntries)
	}
	if got := c.Take(2); got != -1 {
		t.Fatal("the oldest program outlived the entry bound")
	}

	big := quantum.NewCompiledCacheForTest()
	per := quantum.CacheMaxOps
	for i := range quantum.CacheOps/per + 5 {
		big.Put(byte(i%200), per, i)
	}
	if _, ops := big.Size(); ops > quantum.CacheOps {
		t.Fatalf("%d operations kept, past the bound %d", ops, quantum.CacheOps)
	}
}
