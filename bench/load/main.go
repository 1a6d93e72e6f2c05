// Command load drives the job service over HTTP on loopback: concurrent
// clients each create a 2-qubit job, poll it until it is COMPLETED and read
// its result, as a client of the public API would. It reports jobs per
// second and the p50/p99 latency of create → result.
//
//	cd bench && go run ./load                      # in-process server, memory store
//	cd bench && go run ./load -jobs 20000 -clients 64
//	cd bench && go run ./load -url http://127.0.0.1:8080 -key KEY
//
// With -floor and -server it measures servers as processes of their own
// against the floor (bench/floor: the least a server can do to answer the
// same requests), in pairs run in turn, and reports each server's own CPU
// time a job (from /proc/PID/stat, Linux only) beside jobs/s and latency:
//
//	go build -o /tmp/server ./examples/server
//	cd bench && go build -o /tmp/floor ./floor
//	go run ./load -floor /tmp/floor -server /tmp/server -reps 5
//
// The run is bounded by -jobs and -timeout and talks only to the address
// it is given (by default servers it starts itself on 127.0.0.1); the
// servers it starts end with it, whatever way it ends.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

// servers is -server, repeated: [NAME=]BIN.
type servers []contender

func (s *servers) String() string { return fmt.Sprint(len(*s), " servers") }

func (s *servers) Set(v string) error {
	name, bin, ok := strings.Cut(v, "=")
	if !ok {
		name, bin = "ours", v
		if len(*s) > 0 {
			name = fmt.Sprintf("ours%d", len(*s)+1)
		}
	}
	if name == "" || bin == "" || name == "floor" {
		return fmt.Errorf("want [NAME=]BIN, a NAME other than floor, got %q", v)
	}
	*s = append(*s, contender{name: name, bin: bin})
	return nil
}

func run() error {
	target := flag.String("url", "", "base URL of a running server (default: start one in-process on 127.0.0.1)")
	key := flag.String("key", "load-test-key", "API key")
	jobs := flag.Int("jobs", 10000, "jobs to run in all (with -floor: in each run)")
	clients := flag.Int("clients", 32, "concurrent clients")
	shots := flag.Int("shots", 1000, "shots per job")
	poll := flag.Duration("poll", time.Millisecond, "pause between polls of one job")
	timeout := flag.Duration("timeout", 10*time.Minute, "bound on the whole run")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of this process (with an in-process server: server and clients) to this file")
	memProfile := flag.String("memprofile", "", "write an allocation profile of this process to this file")
	floor := flag.String("floor", "", "the floor server's binary (bench/floor): measure -server against it, each in a process of its own")
	var against servers
	flag.Var(&against, "server", "a server binary to measure against -floor, as `[NAME=]BIN` (repeatable; started with -addr, -api-key and -store memory)")
	serverFlags := flag.String("server-flags", "", "more flags for each -server, separated by spaces (such as \"-cpuprofile /tmp/cpu.prof\")")
	reps := flag.Int("reps", 5, "with -floor: the pairs to run")
	warmup := flag.Int("warmup", 1000, "with -floor: jobs each server runs before it is measured")
	flag.Parse()
	l := load{jobs: *jobs, clients: *clients, shots: *shots, poll: *poll}
	if l.jobs < 1 || l.clients < 1 || l.shots < 1 || *reps < 1 || *warmup < 0 {
		return errors.New("-jobs, -clients, -shots and -reps must be at least 1, -warmup at least 0")
	}
	if (*floor == "") != (len(against) == 0) {
		return errors.New("-floor and -server go together")
	}
	if *floor != "" && *target != "" {
		return errors.New("-url measures a running server; -floor and -server start their own")
	}
	if *cpuProfile != "" || *memProfile != "" {
		stop, err := profile(*cpuProfile, *memProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	// A signal ends the run as the timeout does, through the deferred
	// stops: no server this started outlives it.
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, *timeout)
	defer cancelTimeout()

	if *floor != "" {
		args := []string{"-addr", "127.0.0.1:0", "-api-key", *key}
		for i := range against {
			against[i].args = append(append(slices.Clone(args), "-store", "memory"), strings.Fields(*serverFlags)...)
		}
		return pairs(ctx, contender{name: "floor", bin: *floor, args: args}, against, *key, l, *warmup, *reps)
	}

	base := *target
	if base == "" {
		addr, stop, err := startServer(*key)
		if err != nil {
			return err
		}
		defer stop()
		base = "http://" + addr
	} else if u, err := url.Parse(base); err != nil || !isLoopback(u.Hostname()) {
		return errors.New("-url must be a loopback address (127.0.0.0/8, localhost or ::1)")
	}

	o := drive(ctx, base, *key, l)
	if len(o.latencies) == 0 {
		return errors.New("no job completed")
	}
	fmt.Printf("# %s, %d CPUs, %s\n", runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format(time.DateOnly))
	fmt.Printf("jobs %d  failed %d  clients %d  shots %d  elapsed %.2fs\n", len(o.latencies), o.failed, l.clients, l.shots, o.elapsed.Seconds())
	fmt.Printf("throughput %.0f jobs/s  (create → poll → result)\n", o.jobsPerSecond())
	fmt.Printf("latency p50 %v  p99 %v  max %v\n", o.pct(0.50).Round(time.Microsecond), o.pct(0.99).Round(time.Microsecond), o.latencies[len(o.latencies)-1].Round(time.Microsecond))
	fmt.Printf("requests %.2f a job (a create, the polls, a result)\n", float64(o.requests)/float64(len(o.latencies)))
	if o.failed > 0 || ctx.Err() != nil {
		return fmt.Errorf("%d jobs failed (%v)", o.failed, ctx.Err())
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
