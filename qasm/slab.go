package qasm

// slab hands out pointers into chunks of values, so that the parser's
// many small nodes (identifiers, integers, index expressions) cost one
// allocation per chunk instead of one each. Nodes live as long as the
// syntax tree does, so nothing is kept alive that would not be anyway.
type slab[T any] struct {
	buf []T
	// keep is how many nodes at the start of buf are kept when the rest
	// is reused (streaming: those of the definitions parsed so far)
	keep int
}

// Chunks grow from slabFirst nodes to slabChunk, doubling: a program of a
// few gates (a batch holds thousands of them, each compiled on its own)
// allocates a few hundred bytes, not a full chunk of every node kind.
const (
	slabFirst = 8
	slabChunk = 256
)

// grow starts a new chunk of room for at least n nodes.
func (s *slab[T]) grow(n int) {
	s.buf = make([]T, 0, max(n, min(slabChunk, max(slabFirst, 2*cap(s.buf)))))
	s.keep = 0
}

func (s *slab[T]) new() *T {
	if len(s.buf) == cap(s.buf) {
		s.grow(1)
	}
	s.buf = s.buf[:len(s.buf)+1]
	return &s.buf[len(s.buf)-1]
}

// one returns a slice of length 1 holding x, with no room to grow in
// place: an append to it copies, and never writes into its neighbours.
func (s *slab[T]) one(x T) []T {
	p := s.new()
	*p = x
	i := len(s.buf) - 1
	return s.buf[i : i+1 : i+1]
}

// many returns a slice holding xs, in a chunk when they fit one, with no
// room to grow in place (see one).
func (s *slab[T]) many(xs []T) []T {
	n := len(xs)
	if n > slabChunk/4 {
		return append([]T(nil), xs...)
	}
	if len(s.buf)+n > cap(s.buf) {
		s.grow(n)
	}
	i := len(s.buf)
	s.buf = append(s.buf, xs...)
	return s.buf[i : i+n : i+n]
}

// reuse hands the chunk out again past the nodes it keeps: the caller
// knows that nothing points to the others any more.
func (s *slab[T]) reuse() {
	// no pointers kept alive from the old nodes; a statement's few are
	// zeroed faster one by one than by clear, a call into the runtime
	var zero T
	for i := s.keep; i < len(s.buf); i++ {
		s.buf[i] = zero
	}
	s.buf = s.buf[:s.keep]
}

// retain keeps the nodes handed out so far.
func (s *slab[T]) retain() { s.keep = len(s.buf) }
