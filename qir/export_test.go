package qir

import "testing"

// Exact is exact for the external tests: the reference distribution of a
// program's count keys.
func Exact(t *testing.T, p *Program) map[string]float64 { return exact(t, p) }

const CorpusDir = corpusDir

// FromFinalState is exact for a sampled program's circuit: the
// distribution its terminal measurements sample from its final state.
func FromFinalState(t *testing.T, p *Program) map[string]float64 { return fromFinalState(t, p) }
