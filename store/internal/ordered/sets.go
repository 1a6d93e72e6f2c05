package ordered

// InsertIn adds k to the set at sets[at], making that set (ordered by
// cmp) when there is none: the stores keep one set per queue or status
// and want no empty ones lying about.
func InsertIn[M ~map[I]*Set[K], I comparable, K any](sets M, at I, k K, cmp func(a, b K) int) {
	s := sets[at]
	if s == nil {
		s = New(cmp)
		sets[at] = s
	}
	s.Insert(k)
}

// DeleteIn removes k from the set at sets[at], and the set from sets
// when it becomes empty.
func DeleteIn[M ~map[I]*Set[K], I comparable, K any](sets M, at I, k K) {
	if s := sets[at]; s != nil {
		if s.Delete(k); s.Len() == 0 {
			delete(sets, at)
		}
	}
}
