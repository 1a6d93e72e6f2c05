package qasm_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjobs/quantum/qasm"
	"github.com/qjobs/quantum/sim"
)

// corpusDir holds programs others wrote, kept in the repository with
// their licenses (see its README).
const corpusDir = "../testdata/corpus"

// corpusFailures lists the corpus files that must not compile, with a
// piece of the message each must fail with and why.
var corpusFailures = map[string]string{
	// The specification's examples show syntax, and several are not
	// meant to run as they stand.
	"openqasm-examples/arrays.qasm":       "index 4 out of range for size 4", // my_defined_uints[a - 1] with a = 5
	"openqasm-examples/cphase.qasm":       `undefined qubit register "q"`,    // a fragment: q is never declared
	"openqasm-examples/dd.qasm":           `gate "u" expects 3 parameter(s), got 0`,
	"openqasm-examples/gateteleport.qasm": `extern function "vote" cannot be called`,
	"openqasm-examples/msd.qasm":          "index 3 out of range for size 3",
	"openqasm-examples/scqec.qasm":        `extern function "zfirst" cannot be called`,
	"openqasm-examples/t1.qasm":           `extern function "tabulate" cannot be called`,
	"openqasm-examples/vqe.qasm":          `extern function "get_npaulis" cannot be called`,

	// pyqasm's tests: invalid on purpose, or including files that a
	// program sent as one string cannot bring along.
	"pyqasm/cli_resources_invalid1.qasm":                                      "index 2 out of range for size 1",
	"pyqasm/cli_resources_valid1.qasm":                                        `argument "q" of "create_bell_state" takes 2 qubit(s), got 3`, // q[0:2] is 3 qubits
	"pyqasm/qasm3_resources_qasm_custom_gate_complex.qasm":                    `gate "custom3" expects 2 qubit(s), got 1`,                    // one 2-qubit register for two qubit arguments
	"pyqasm/qasm3_resources_qasm_custom_include_circular_import.qasm":         `cannot include "circular_import.qasm"`,
	"pyqasm/qasm3_resources_qasm_custom_include_inc_not_found.qasm":           `cannot include "nonexistent.inc"`,
	"pyqasm/qasm3_resources_qasm_custom_include_include_circular_import.qasm": `cannot include "circular_import.qasm"`,
	"pyqasm/qasm3_resources_qasm_custom_include_include_custom_gates.qasm":    `cannot include "custom_gates.inc"`,
	"pyqasm/qasm3_resources_qasm_custom_include_include_nested.qasm":          `cannot include "nested.qasm"`,
	"pyqasm/qasm3_resources_qasm_custom_include_include_qasm2.qasm":           `cannot include "custom_qasm2.qasm"`,
	"pyqasm/qasm3_resources_qasm_custom_include_include_qasm2_backward.qasm":  `cannot include "custom_qasm2.qasm"`,
	"pyqasm/qasm3_resources_qasm_custom_include_include_sandwiched.qasm":      `cannot include "custom_gate_def.qasm"`,
	"pyqasm/qasm3_resources_qasm_custom_include_include_sub.qasm":             `cannot include "sub.qasm"`,
	"pyqasm/qasm3_resources_qasm_custom_include_include_vars.qasm":            `cannot include "vars.inc"`,
	"pyqasm/qasm3_resources_qasm_custom_include_malformed_include.qasm":       "expected a quoted file name after include",
	"pyqasm/qasm3_resources_qasm_custom_include_multi_include.qasm":           `cannot include "vars.inc"`,
	"pyqasm/qasm3_resources_qasm_custom_include_nested.qasm":                  `cannot include "nested.inc"`,

	// QASMBench files that measure registers they never declare.
	"qasmbench-small/vqe_uccsd_n4.qasm":            `undefined qubit register "q"`,
	"qasmbench-small/vqe_uccsd_n4_transpiled.qasm": `undefined qubit register "q"`,
	"qasmbench-small/vqe_uccsd_n6.qasm":            `undefined qubit register "q"`,
	"qasmbench-small/vqe_uccsd_n6_transpiled.qasm": `undefined qubit register "q"`,
	"qasmbench-small/vqe_uccsd_n8.qasm":            `undefined qubit register "q"`,
	"qasmbench-small/vqe_uccsd_n8_transpiled.qasm": `undefined qubit register "q"`,
}

func corpusPaths() ([]string, error) {
	var files []string
	err := filepath.WalkDir(corpusDir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".qasm") {
			files = append(files, path)
		}
		return nil
	})
	return files, err
}

func corpusFiles(tb testing.TB) []string {
	tb.Helper()
	files, err := corpusPaths()
	if err != nil {
		tb.Fatal(err)
	}
	if len(files) == 0 {
		tb.Fatalf("no .qasm file in %s", corpusDir)
	}
	return files
}

func TestCorpus(t *testing.T) {
	for _, path := range corpusFiles(t) {
		rel, _ := filepath.Rel(corpusDir, path)
		rel = filepath.ToSlash(rel)
		t.Run(rel, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			circ, err := qasm.Compile(string(src), qasm.Options{})
			want, shouldFail := corpusFailures[rel]
			switch {
			case shouldFail && err == nil:
				t.Fatalf("compiled, want an error containing %q", want)
			case shouldFail && !strings.Contains(err.Error(), want):
				t.Fatalf("error %q, want one containing %q", err, want)
			case !shouldFail && err != nil:
				t.Fatalf("error: %v", err)
			case !shouldFail:
				if err := circ.Validate(); err != nil {
					t.Fatalf("invalid circuit: %v", err)
				}
				if circ.NumQubits > 12 || testing.Short() {
					return
				}
				// Small programs also run, to catch a lowering that sim
				// cannot execute.
				seed := uint64(7)
				if _, err := sim.Run(context.Background(), circ, sim.Options{Shots: 8, Seed: &seed}); err != nil {
					t.Fatalf("run: %v", err)
				}
			}
		})
	}
}
