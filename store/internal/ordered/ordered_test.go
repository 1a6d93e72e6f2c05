package ordered

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// check verifies the tree's invariants: sizes, fill, order and
// separators.
func (t *Set[K]) check(tb testing.TB) {
	tb.Helper()
	type item struct {
		n    *onode[K]
		root bool
		lo   *K // every key under n is ≥ lo
		hi   *K // and < hi
	}
	stack := []item{{t.root, true, nil, nil}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := it.n
		if !it.root && n.width() < n.capacity()/2 {
			tb.Fatalf("node under half full: %d of %d", n.width(), n.capacity())
		}
		if n.width() > n.capacity() {
			tb.Fatalf("node over full: %d of %d", n.width(), n.capacity())
		}
		if n.leaf() {
			if n.size != len(n.keys) {
				tb.Fatalf("leaf size %d, %d keys", n.size, len(n.keys))
			}
			for i, k := range n.keys {
				if i > 0 && t.cmp(n.keys[i-1], k) >= 0 {
					tb.Fatal("leaf keys out of order")
				}
				if it.lo != nil && t.cmp(k, *it.lo) < 0 || it.hi != nil && t.cmp(k, *it.hi) >= 0 {
					tb.Fatal("key outside its separators")
				}
			}
			continue
		}
		if len(n.keys) != len(n.kids) {
			tb.Fatalf("%d separators for %d children", len(n.keys), len(n.kids))
		}
		if it.root && len(n.kids) < 2 {
			tb.Fatal("inner root with one child")
		}
		size := 0
		for i, c := range n.kids {
			size += c.size
			lo, hi := it.lo, it.hi
			if i > 0 {
				lo = &n.keys[i]
			}
			if i+1 < len(n.kids) {
				hi = &n.keys[i+1]
			}
			stack = append(stack, item{c, false, lo, hi})
		}
		if size != n.size {
			tb.Fatalf("inner size %d, children hold %d", n.size, size)
		}
	}
}

func TestOrderedAgainstSlice(t *testing.T) {
	for _, span := range []int{50, 2000, 100_000} {
		rng := rand.New(rand.NewPCG(uint64(span), 1))
		tr := New(cmp.Compare[int])
		var ref []int
		ops := 40_000
		for op := range ops {
			k := rng.IntN(span)
			i, found := slices.BinarySearch(ref, k)
			// Phases: grow, churn, shrink; and FIFO-like runs.
			insert := rng.IntN(100) < []int{80, 50, 20}[op*3/ops]
			if op%1000 < 100 { // a queue: add at the end, take from the front
				if op%2 == 0 {
					k = span + op
					i, found = len(ref), false
					insert = true
				} else if len(ref) > 0 {
					k, i, found, insert = ref[0], 0, true, false
				}
			}
			if insert {
				if tr.Insert(k) == found {
					t.Fatalf("Insert(%d) disagrees on presence", k)
				}
				if !found {
					ref = slices.Insert(ref, i, k)
				}
			} else {
				if tr.Delete(k) != found {
					t.Fatalf("Delete(%d) disagrees on presence", k)
				}
				if found {
					ref = slices.Delete(ref, i, i+1)
				}
			}
			if tr.Len() != len(ref) {
				t.Fatalf("Len %d, want %d", tr.Len(), len(ref))
			}
			if op%997 == 0 {
				tr.check(t)
				var all []int
				for c := tr.First(); c.Valid(); c.Next() {
					all = append(all, c.Key())
				}
				if !slices.Equal(all, ref) {
					t.Fatalf("walk gives %d keys, want %d", len(all), len(ref))
				}
			}
			q := rng.IntN(span + ops)
			r, has := tr.Rank(q)
			wr, wf := slices.BinarySearch(ref, q)
			if r != wr || has != wf {
				t.Fatalf("Rank(%d) = %d, %v; want %d, %v", q, r, has, wr, wf)
			}
			c := tr.Seek(q)
			if c.Valid() != (wr < len(ref)) || c.Valid() && c.Key() != ref[wr] {
				t.Fatalf("Seek(%d) wrong", q)
			}
			if len(ref) > 0 {
				at := rng.IntN(len(ref))
				c := tr.At(at)
				if !c.Valid() || c.Key() != ref[at] {
					t.Fatalf("At(%d) wrong", at)
				}
				c.Next()
				if c.Valid() != (at+1 < len(ref)) || c.Valid() && c.Key() != ref[at+1] {
					t.Fatalf("Next after At(%d) wrong", at)
				}
			}
		}
		if c := tr.At(len(ref)); c.Valid() {
			t.Fatal("At(Len) is valid")
		}
		for len(ref) > 0 { // empty it
			i := rng.IntN(len(ref))
			if !tr.Delete(ref[i]) {
				t.Fatal("Delete of a present key failed")
			}
			ref = slices.Delete(ref, i, i+1)
		}
		tr.check(t)
		if c := tr.First(); tr.Len() != 0 || c.Valid() || !tr.root.leaf() {
			t.Fatal("emptied tree is not empty")
		}
	}
}

func BenchmarkOrderedQueue100k(b *testing.B) {
	tr := New(cmp.Compare[int])
	for i := range 100_000 {
		tr.Insert(i)
	}
	next := 100_000
	b.ReportAllocs()
	for b.Loop() {
		c := tr.First()
		k := c.Key()
		tr.Rank(k + 50_000)
		tr.Delete(k)
		tr.Insert(next)
		next++
	}
}
