package main

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// result is one run of a shape.
type result struct {
	jobs    int
	elapsed time.Duration // first create → last completion seen
	created time.Duration // first create → last create returned
	cpu     usage         // over elapsed
}

// rate is the run's jobs/s.
func (r result) rate() float64 { return float64(r.jobs) / r.elapsed.Seconds() }

// runResult is a result with the pair it belongs to.
type runResult struct {
	rep   int
	shape string
	res   result
}

// summarize prints the median, min and max jobs/s of each shape, and ours
// ÷ River pair by pair with its median.
func summarize(w io.Writer, runs []runResult) {
	rates := map[string][]float64{}
	byPair := map[int]map[string]float64{}
	for _, r := range runs {
		rates[r.shape] = append(rates[r.shape], r.res.rate())
		if byPair[r.rep] == nil {
			byPair[r.rep] = map[string]float64{}
		}
		byPair[r.rep][r.shape] = r.res.rate()
	}
	fmt.Fprintf(w, "\n%-6s %5s %9s %9s %9s\n", "shape", "runs", "median", "min", "max")
	for _, name := range []string{riverShape.name, oursShape.name} {
		rs := rates[name]
		if len(rs) == 0 {
			continue
		}
		fmt.Fprintf(w, "%-6s %5d %9.0f %9.0f %9.0f\n", name, len(rs), median(rs), slices.Min(rs), slices.Max(rs))
	}
	var ratios []float64
	for rep := 1; byPair[rep] != nil; rep++ {
		p := byPair[rep]
		r, okR := p[riverShape.name]
		o, okO := p[oursShape.name]
		if okR && okO {
			ratios = append(ratios, o/r)
		}
	}
	if len(ratios) == 0 {
		return
	}
	fmt.Fprint(w, "ours ÷ River, pair by pair:")
	for _, q := range ratios {
		fmt.Fprintf(w, " %.2f", q)
	}
	fmt.Fprintf(w, "; median %.2f\n", median(ratios))
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
