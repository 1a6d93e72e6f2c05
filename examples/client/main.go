// Command client submits a quantum program from a file to a running
// quantum job service, waits for the job (following its event stream),
// and prints the measurement counts as a text histogram.
//
//	go run ./examples/client -key $KEY examples/programs/bell.qasm
//	go run ./examples/client -key $KEY examples/programs/bell.ll
//	go run ./examples/client -key $KEY examples/programs/bell.quil
//
// The file's extension gives the program's format: .ll is QIR text, .bc
// QIR bitcode (sent as base64), .qasm OpenQASM 2 or 3 as its version line
// says, .quil Quil, .analog.json an analog program, .pulser.json a Pulser
// sequence, .problem.json an annealing problem, any other .json an IonQ
// JSON circuit (-format overrides it). The device is -device, by default
// one that takes the format: the QVM for Quil, the IonQ Simulator for
// IonQ JSON, Aquila, Pasqal's emulator, the annealer, the QIR Simulator
// else. The server is -url (default $QUANTUM_URL,
// else http://127.0.0.1:8080), with or without /api/v1; the API key is
// -key (default $QUANTUM_API_KEY). The exit code is 0 when the job
// completed, 1 when it did not or something failed, 2 for a wrong
// command line.
package main

import (
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/client"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// maxProgram bounds the program file read: the server refuses bodies
// over 4 MiB by default.
const maxProgram = 4 << 20

// defaultDevice runs OpenQASM and QIR; deviceFor picks one for the
// other formats.
const defaultDevice = "qbraid:qbraid:sim:qir-sv"

func deviceFor(format string) string {
	switch format {
	case "quil":
		return "azure:rigetti:sim:qvm"
	case "ionq.circuit.v0":
		return "ionq:ionq:sim:simulator"
	case "analog":
		return "aws:quera:qpu:aquila"
	case "pulser.sequence":
		return "azure:pasqal:sim:emu-tn"
	case "problem":
		return "qbraid:nec:sim:vector-annealer"
	}
	return defaultDevice
}

// defaultURL is where examples/server listens unless told otherwise.
const defaultURL = "http://127.0.0.1:8080"

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	fs.SetOutput(stderr)
	// The environment's values are applied after parsing, not as the
	// flags' defaults: the usage message prints defaults, and the key is
	// a secret.
	url := fs.String("url", "", "the server's `URL`, such as http://127.0.0.1:8080 or http://127.0.0.1:8080/api/v1 (default $QUANTUM_URL, else "+defaultURL+")")
	key := fs.String("key", "", "the API `KEY` (default $QUANTUM_API_KEY)")
	device := fs.String("device", "", "the device `QRN` (default: one that takes the format, "+defaultDevice+" for OpenQASM and QIR)")
	shots := fs.Int("shots", 1000, "how many shots")
	format := fs.String("format", "", "the program's `format`: qasm2, qasm3, qir.ll, qir.bc, quil or ionq.circuit.v0 (default: from the file's extension, and for .qasm its version line)")
	timeout := fs.Duration("timeout", 5*time.Minute, "how long to wait for the job")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: client [flags] PROGRAM-FILE")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *url == "" {
		*url = envOr("QUANTUM_URL", defaultURL)
	}
	if *key == "" {
		*key = os.Getenv("QUANTUM_API_KEY")
	}
	if fs.NArg() != 1 || *key == "" {
		fs.Usage()
		if *key == "" {
			fmt.Fprintln(stderr, "an API key is required: -key or $QUANTUM_API_KEY")
		}
		return 2
	}
	src, err := readProgram(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if *format == "" {
		*format = formatOf(fs.Arg(0), src)
	}
	if *format == "qir.bc" || *format == "pyqir" {
		// Bitcode travels as base64, as the public SDK sends it.
		src = base64.StdEncoding.EncodeToString([]byte(src))
	}
	if *device == "" {
		*device = deviceFor(*format)
	}
	api, err := client.New(*url, *key)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	job, err := api.CreateJob(ctx, quantum.JobRequest{
		DeviceQRN: *device, Shots: *shots, Name: filepath.Base(fs.Arg(0)),
		Program: &quantum.Program{Format: *format, Data: src},
	})
	if err != nil {
		fmt.Fprintln(stderr, "create:", describe(err))
		return 1
	}
	fmt.Fprintln(stdout, "job", job.JobQRN)
	if job, err = api.Wait(ctx, job.JobQRN); err != nil {
		fmt.Fprintln(stderr, "wait:", describe(err))
		return 1
	}
	if job.Status != quantum.StatusCompleted {
		msg := ""
		if job.StatusMsg != nil {
			msg = ": " + *job.StatusMsg
		}
		fmt.Fprintf(stderr, "the job ended %s%s\n", job.Status, msg)
		return 1
	}
	res, err := api.GetJobResult(ctx, job.JobQRN)
	if err != nil {
		fmt.Fprintln(stderr, "result:", describe(err))
		return 1
	}
	fmt.Fprintf(stdout, "%s in %d ms, cost %g credits\n", job.Status, res.TimeStamps.ExecutionDuration, res.Cost)
	histogram(stdout, res.ResultData.MeasurementCounts)
	return 0
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func readProgram(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxProgram+1))
	if err != nil {
		return "", err
	}
	if len(data) > maxProgram {
		return "", fmt.Errorf("%s is larger than %d bytes", path, maxProgram)
	}
	return string(data), nil
}

// formatOf is the format of a program file: .ll is QIR text, .bc QIR
// bitcode, .quil Quil, .json an IonQ circuit, a .qasm2 or .qasm3
// extension says it; else its version line
// tells OpenQASM 2 from 3, and a file that has none (OpenQASM 3 makes it
// optional) is QASM 3.
func formatOf(path, src string) string {
	switch ext := filepath.Ext(path); ext {
	case ".ll":
		return "qir.ll"
	case ".bc":
		return "qir.bc"
	case ".quil":
		return "quil"
	case ".json":
		switch {
		case strings.HasSuffix(path, ".analog.json"):
			return "analog"
		case strings.HasSuffix(path, ".pulser.json"):
			return "pulser.sequence"
		case strings.HasSuffix(path, ".problem.json"):
			return "problem"
		}
		return "ionq.circuit.v0"
	case ".qasm2", ".qasm3":
		return ext[1:]
	}
	if strings.HasPrefix(versionLine(src), "OPENQASM 2") {
		return "qasm2"
	}
	return "qasm3"
}

// versionLine is the program's first line that is not blank or a
// comment: where OpenQASM puts its version. Comments before it are
// usual (a licence, a title).
func versionLine(src string) string {
	inBlock := false
	for line := range strings.Lines(src) {
		line = strings.TrimSpace(line)
		for line != "" {
			if inBlock {
				end := strings.Index(line, "*/")
				if end < 0 {
					line = ""
					break
				}
				inBlock, line = false, strings.TrimSpace(line[end+2:])
				continue
			}
			if strings.HasPrefix(line, "//") {
				line = ""
			} else if rest, ok := strings.CutPrefix(line, "/*"); ok {
				inBlock, line = true, rest
			} else {
				return line
			}
		}
	}
	return ""
}

// describe is an error for people: the service's message and the fields
// at fault.
func describe(err error) string {
	var qe *quantum.Error
	if !errors.As(err, &qe) {
		return err.Error()
	}
	s := qe.Code + ": " + qe.Message
	if qe.RetryAfter > 0 {
		s += fmt.Sprintf(" (retry after %v)", qe.RetryAfter)
	}
	return s
}

// histogram prints one bar per outcome, in bit-string order, scaled to
// the most frequent.
func histogram(w io.Writer, counts map[string]int) {
	const width = 50
	total, most := 0, 0
	for _, n := range counts {
		total += n
		most = max(most, n)
	}
	if most == 0 {
		return // nothing measured: no bar to scale
	}
	keys := slices.Sorted(maps.Keys(counts))
	pad := 0
	for _, k := range keys {
		pad = max(pad, len(k))
	}
	for _, k := range keys {
		n := counts[k]
		bar := strings.Repeat("#", (n*width+most-1)/most)
		fmt.Fprintf(w, "%*s %-*s %6d %5.1f%%\n", pad, k, width, bar, n, 100*float64(n)/float64(total))
	}
}
