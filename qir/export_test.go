package qir

import "testing"

// Exact is exact for the external tests: the reference distribution of a
// program's count keys.
func Exact(t *testing.T, p *Program) map[string]float64 { return exact(t, p) }

const CorpusDir = corpusDir
