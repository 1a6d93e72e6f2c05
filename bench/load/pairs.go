//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// contender is a server binary measured in the pairs, and how it is
// started.
type contender struct {
	name string
	bin  string
	args []string
}

// measured is one contender's run in one pair.
type measured struct {
	cpuPerJob time.Duration
	jobsPerS  float64
	p50, p99  time.Duration
	requests  float64 // a job's
}

// pairs runs the floor and each server in turn, each a fresh process
// warmed up with warmup jobs and then measured over l, reps times; the
// order turns round every other pair so that neither always runs on a
// machine the other has just warmed or loaded. It prints each run, each
// pair's ratios to the floor, and their medians.
func pairs(ctx context.Context, floor contender, servers []contender, key string, l load, warmup, reps int) error {
	all := append([]contender{floor}, servers...)
	fmt.Printf("# %d pairs of whole processes run in turn: %d clients, %d jobs a run after %d to warm up, %d shots, poll %v\n",
		reps, l.clients, l.jobs, warmup, l.shots, l.poll)
	fmt.Printf("# load average at start: %s\n", loadAverage())
	results := make(map[string][]measured)
	var failed error
	for rep := range reps {
		order := slices.Clone(all)
		if rep%2 == 1 {
			slices.Reverse(order)
		}
		for _, c := range order {
			m, err := measure(ctx, c, key, l, warmup)
			if err != nil {
				return fmt.Errorf("pair %d, %s: %w", rep+1, c.name, err)
			}
			if m.failed != nil {
				failed = errors.Join(failed, fmt.Errorf("pair %d, %s: %w", rep+1, c.name, m.failed))
			}
			results[c.name] = append(results[c.name], m.measured)
			fmt.Printf("pair %d  %-8s  cpu %6.1f µs/job  %6.0f jobs/s  p50 %-9v p99 %-9v %.2f requests/job  load %s\n",
				rep+1, c.name, micros(m.cpuPerJob), m.jobsPerS, m.p50.Round(time.Microsecond), m.p99.Round(time.Microsecond), m.requests, loadAverage())
		}
		for _, s := range servers {
			f, o := results[floor.name][rep], results[s.name][rep]
			fmt.Printf("pair %d  %s ÷ %s: cpu/job %.2f  p99 %.2f\n", rep+1, s.name, floor.name,
				float64(o.cpuPerJob)/float64(f.cpuPerJob), float64(o.p99)/float64(f.p99))
		}
	}
	fmt.Printf("# load average at end: %s\n", loadAverage())
	fmt.Println("# medians (min–max) over the pairs")
	for _, c := range all {
		ms := results[c.name]
		fmt.Printf("%-8s  cpu %s µs/job  %s jobs/s  p50 %s ms  p99 %s ms\n", c.name,
			spread(ms, func(m measured) float64 { return micros(m.cpuPerJob) }, "%.1f"),
			spread(ms, func(m measured) float64 { return m.jobsPerS }, "%.0f"),
			spread(ms, func(m measured) float64 { return millis(m.p50) }, "%.2f"),
			spread(ms, func(m measured) float64 { return millis(m.p99) }, "%.2f"))
	}
	for _, s := range servers {
		var cpu, p99 []float64
		for i, f := range results[floor.name] {
			o := results[s.name][i]
			cpu = append(cpu, float64(o.cpuPerJob)/float64(f.cpuPerJob))
			p99 = append(p99, float64(o.p99)/float64(f.p99))
		}
		fmt.Printf("%s ÷ %s, pair by pair: cpu/job %s  p99 %s\n", s.name, floor.name, median(cpu, "%.2f"), median(p99, "%.2f"))
	}
	// Each later server against the first (after against before), from
	// the same pairs.
	for _, s := range servers[min(1, len(servers)):] {
		first := servers[0]
		var cpu, p99 []float64
		for i, f := range results[first.name] {
			o := results[s.name][i]
			cpu = append(cpu, float64(o.cpuPerJob)/float64(f.cpuPerJob))
			p99 = append(p99, float64(o.p99)/float64(f.p99))
		}
		fmt.Printf("%s ÷ %s, pair by pair: cpu/job %s  p99 %s\n", s.name, first.name, median(cpu, "%.2f"), median(p99, "%.2f"))
	}
	return failed
}

type trial struct {
	measured
	failed error
}

// measure starts c, warms it up, and runs l against it, reading the
// process's CPU time before and after l.
func measure(ctx context.Context, c contender, key string, l load, warmup int) (trial, error) {
	ch, err := startChild(ctx, c.bin, c.args)
	if err != nil {
		return trial{}, err
	}
	defer ch.stop()
	if warmup > 0 {
		w := l
		w.jobs = warmup
		if o := drive(ctx, ch.base, key, w); o.failed > 0 || len(o.latencies) == 0 {
			return trial{}, fmt.Errorf("warm-up: %d of %d jobs failed; the server's last words: %s", o.failed, warmup, ch.tail)
		}
	}
	before, err := ch.cpu()
	if err != nil {
		return trial{}, err
	}
	o := drive(ctx, ch.base, key, l)
	after, err := ch.cpu()
	if err != nil {
		return trial{}, err
	}
	if len(o.latencies) == 0 {
		return trial{}, fmt.Errorf("no job completed; the server's last words: %s", ch.tail)
	}
	r := trial{measured: measured{
		cpuPerJob: (after - before) / time.Duration(len(o.latencies)),
		jobsPerS:  o.jobsPerSecond(),
		p50:       o.pct(0.50),
		p99:       o.pct(0.99),
		requests:  float64(o.requests) / float64(len(o.latencies)),
	}}
	if o.failed > 0 || ctx.Err() != nil {
		r.failed = fmt.Errorf("%d jobs failed (%v)", o.failed, ctx.Err())
	}
	return r, nil
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func spread(ms []measured, f func(measured) float64, format string) string {
	v := make([]float64, len(ms))
	for i, m := range ms {
		v[i] = f(m)
	}
	return median(v, format)
}

// median writes the median of v and its range.
func median(v []float64, format string) string {
	if len(v) == 0 {
		return "-"
	}
	v = slices.Sorted(slices.Values(v))
	mid := v[len(v)/2]
	if len(v)%2 == 0 {
		mid = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return fmt.Sprintf(format+" ("+format+"–"+format+")", mid, v[0], v[len(v)-1])
}
