// Package ordered is the sorted set that the memory and badger stores
// keep their queues (and the memory store its lists) in.
package ordered

import "slices"

// Set is a sorted set of distinct keys that also knows ranks: how many
// keys come before a key, and which key has a given rank. Insert,
// delete, rank, select and seek take O(log n); stepping from a key to the
// next takes O(1) amortised.
//
// It is a B+tree whose inner nodes count the keys under each child. Every
// node but the root holds between half and all of its capacity, so the
// tree is never deeper than about log₃₂ n. Every walk is a loop over an
// explicit path: nothing recurses, however large the set.
//
// A Set is not safe for concurrent use; the stores guard theirs with
// their locks.
type Set[K any] struct {
	cmp  func(a, b K) int
	root *onode[K]
}

type onode[K any] struct {
	// keys are, in a leaf, the node's keys in order. In an inner node
	// keys[i] is a lower bound of every key under kids[i] and greater
	// than every key under kids[:i]; keys[0] of a node that is its
	// parent's first child is never read.
	keys []K
	kids []*onode[K] // nil in a leaf
	size int         // how many keys are under the node
}

// Node capacities: a leaf holds up to maxLeaf keys, an inner node up to
// maxKids children; a node other than the root never holds fewer than
// half of that.
const (
	maxLeaf = 128
	maxKids = 64
	// maxDepth bounds the height: with at least maxKids/2 children per
	// inner node, 14 levels hold more keys than an int counts.
	maxDepth = 14
)

// New returns an empty set whose keys cmp orders.
func New[K any](cmp func(a, b K) int) *Set[K] {
	return &Set[K]{cmp: cmp, root: &onode[K]{}}
}

// Len is how many keys the set holds.
func (t *Set[K]) Len() int { return t.root.size }

func (n *onode[K]) leaf() bool { return n.kids == nil }

// width is how many entries the node holds: keys in a leaf, children in
// an inner node.
func (n *onode[K]) width() int {
	if n.leaf() {
		return len(n.keys)
	}
	return len(n.kids)
}

func (n *onode[K]) capacity() int {
	if n.leaf() {
		return maxLeaf
	}
	return maxKids
}

// route is the index of the child of inner node n under which k belongs.
func (t *Set[K]) route(n *onode[K], k K) int {
	lo, hi := 1, len(n.keys) // the first separator > k, among keys[1:]
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.cmp(n.keys[m], k) <= 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// step is one inner node on a path from the root and the child taken.
type step[K any] struct {
	n *onode[K]
	i int
}

// descend walks from the root to the leaf where k belongs, filling path.
func (t *Set[K]) descend(k K, path *[maxDepth]step[K]) (*onode[K], int) {
	n, d := t.root, 0
	for !n.leaf() {
		i := t.route(n, k)
		path[d] = step[K]{n, i}
		d++
		n = n.kids[i]
	}
	return n, d
}

// Insert adds k; false if it was there already.
func (t *Set[K]) Insert(k K) bool {
	var path [maxDepth]step[K]
	leaf, depth := t.descend(k, &path)
	i, found := slices.BinarySearchFunc(leaf.keys, k, t.cmp)
	if found {
		return false
	}
	leaf.keys = slices.Insert(leaf.keys, i, k)
	leaf.size++
	for d := range depth {
		path[d].n.size++
	}
	// Split full nodes, from the leaf up.
	n := leaf
	for d := depth - 1; n.width() > n.capacity(); d-- {
		right, sep := n.split()
		if d < 0 { // n is the root
			t.root = &onode[K]{keys: []K{n.keys[0], sep}, kids: []*onode[K]{n, right}, size: n.size + right.size}
			break
		}
		p, at := path[d].n, path[d].i
		p.keys = slices.Insert(p.keys, at+1, sep)
		p.kids = slices.Insert(p.kids, at+1, right)
		n = p
	}
	return true
}

// split moves the upper half of n into a new right sibling and returns
// it with its separator.
func (n *onode[K]) split() (*onode[K], K) {
	mid := n.width() / 2
	right := &onode[K]{keys: slices.Clone(n.keys[mid:])}
	clear(n.keys[mid:])
	n.keys = n.keys[:mid:mid]
	if n.leaf() {
		right.size = len(right.keys)
	} else {
		right.kids = slices.Clone(n.kids[mid:])
		clear(n.kids[mid:])
		n.kids = n.kids[:mid:mid]
		for _, c := range right.kids {
			right.size += c.size
		}
	}
	n.size -= right.size
	return right, right.keys[0]
}

// Delete removes k; false if it was not there.
func (t *Set[K]) Delete(k K) bool {
	var path [maxDepth]step[K]
	leaf, depth := t.descend(k, &path)
	i, found := slices.BinarySearchFunc(leaf.keys, k, t.cmp)
	if !found {
		return false
	}
	leaf.keys = slices.Delete(leaf.keys, i, i+1)
	leaf.size--
	for d := range depth {
		path[d].n.size--
	}
	// Refill nodes that fell below half, from the leaf up.
	n := leaf
	for d := depth - 1; d >= 0 && n.width() < n.capacity()/2; d-- {
		p, at := path[d].n, path[d].i
		t.refill(p, at)
		n = p
	}
	for !t.root.leaf() && len(t.root.kids) == 1 {
		t.root = t.root.kids[0]
	}
	return true
}

// refill brings p.kids[at], one entry short of half full, back to at
// least half: it takes an entry from a sibling that can spare one, or
// merges with the sibling.
func (t *Set[K]) refill(p *onode[K], at int) {
	li := at - 1 // the left one of the pair
	if at == 0 {
		li = 0
	}
	l, r := p.kids[li], p.kids[li+1]
	if l.width()+r.width() <= l.capacity() {
		// Merge r into l.
		if l.leaf() {
			l.keys = append(l.keys, r.keys...)
		} else {
			rk := slices.Clone(r.keys)
			rk[0] = p.keys[li+1]
			l.keys = append(l.keys, rk...)
			l.kids = append(l.kids, r.kids...)
		}
		l.size += r.size
		p.keys = slices.Delete(p.keys, li+1, li+2)
		p.kids = slices.Delete(p.kids, li+1, li+2)
		return
	}
	if at == li+1 { // the short one is r: take l's last entry
		last := len(l.keys) - 1
		if l.leaf() {
			r.keys = slices.Insert(r.keys, 0, l.keys[last])
			r.size++
			l.size--
		} else {
			c := l.kids[last]
			r.keys = slices.Insert(r.keys, 0, l.keys[last])
			r.kids = slices.Insert(r.kids, 0, c)
			l.kids[last] = nil
			l.kids = l.kids[:last]
			r.size += c.size
			l.size -= c.size
		}
		var zero K
		l.keys[last] = zero
		l.keys = l.keys[:last]
		p.keys[li+1] = r.keys[0]
		return
	}
	// The short one is l: take r's first entry.
	if l.leaf() {
		l.keys = append(l.keys, r.keys[0])
		l.size++
		r.size--
	} else {
		c := r.kids[0]
		l.keys = append(l.keys, p.keys[li+1])
		l.kids = append(l.kids, c)
		r.kids = slices.Delete(r.kids, 0, 1)
		l.size += c.size
		r.size -= c.size
	}
	r.keys = slices.Delete(r.keys, 0, 1)
	p.keys[li+1] = r.keys[0]
}

// Rank returns how many keys are less than k, and whether k is in the set.
func (t *Set[K]) Rank(k K) (int, bool) {
	n, r := t.root, 0
	for !n.leaf() {
		i := t.route(n, k)
		for _, c := range n.kids[:i] {
			r += c.size
		}
		n = n.kids[i]
	}
	i, found := slices.BinarySearchFunc(n.keys, k, t.cmp)
	return r + i, found
}

// Has reports whether k is in the set.
func (t *Set[K]) Has(k K) bool {
	_, found := t.Rank(k)
	return found
}

// Cursor walks the keys in order from where Seek or At put it. It is
// valid only while the set does not change.
type Cursor[K any] struct {
	path  [maxDepth]step[K]
	depth int
	leaf  *onode[K]
	i     int
}

// Seek returns a cursor at the first key ≥ k.
func (t *Set[K]) Seek(k K) Cursor[K] {
	var c Cursor[K]
	c.leaf, c.depth = t.descend(k, &c.path)
	c.i, _ = slices.BinarySearchFunc(c.leaf.keys, k, t.cmp)
	c.settle()
	return c
}

// At returns a cursor at the key of rank r (0 is the smallest); past the
// end when r ≥ Len.
func (t *Set[K]) At(r int) Cursor[K] {
	var c Cursor[K]
	n := t.root
	if r >= n.size || r < 0 {
		r = n.size
	}
	for !n.leaf() {
		i := 0
		for i < len(n.kids)-1 && r >= n.kids[i].size {
			r -= n.kids[i].size
			i++
		}
		c.path[c.depth] = step[K]{n, i}
		c.depth++
		n = n.kids[i]
	}
	c.leaf, c.i = n, r
	c.settle()
	return c
}

// First returns a cursor at the smallest key.
func (t *Set[K]) First() Cursor[K] { return t.At(0) }

// Valid reports whether the cursor is at a key.
func (c *Cursor[K]) Valid() bool { return c.leaf != nil }

// Key is the key at the cursor.
func (c *Cursor[K]) Key() K { return c.leaf.keys[c.i] }

// Next moves the cursor to the next key.
func (c *Cursor[K]) Next() {
	c.i++
	c.settle()
}

// settle moves a cursor that is past the end of its leaf to the start of
// the next leaf, or makes it invalid at the end of the set.
func (c *Cursor[K]) settle() {
	for c.leaf != nil && c.i >= len(c.leaf.keys) {
		d := c.depth - 1
		for d >= 0 && c.path[d].i+1 >= len(c.path[d].n.kids) {
			d--
		}
		if d < 0 {
			c.leaf = nil
			return
		}
		c.path[d].i++
		n := c.path[d].n.kids[c.path[d].i]
		for d++; !n.leaf(); d++ {
			c.path[d] = step[K]{n, 0}
			n = n.kids[0]
		}
		c.depth, c.leaf, c.i = d, n, 0
	}
}
