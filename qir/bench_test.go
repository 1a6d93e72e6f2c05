package qir_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjobs/quantum/internal/testenv"
	"github.com/qjobs/quantum/qir"
	"github.com/qjobs/quantum/sim"
)

// benchModule is a base-profile module of n gates on 20 qubits, in the
// typed-pointer style of pyqir before LLVM 15: single-qubit gates,
// rotations and CNOTs in turn, then every qubit measured and recorded.
// testdata/bench10k.bc is benchModule(10000) assembled by llvm-as 14 (see
// bench/README.md).
func benchModule(n int) string {
	const qubits = 20
	var b strings.Builder
	q := func(i int) string {
		if i == 0 {
			return "%Qubit* null"
		}
		return fmt.Sprintf("%%Qubit* inttoptr (i64 %d to %%Qubit*)", i)
	}
	b.WriteString("%Qubit = type opaque\n%Result = type opaque\n\ndefine void @main() #0 {\nentry:\n")
	for k := range n {
		i := k % qubits
		switch k % 5 {
		case 0:
			fmt.Fprintf(&b, "  call void @__quantum__qis__h__body(%s)\n", q(i))
		case 1:
			fmt.Fprintf(&b, "  call void @__quantum__qis__cnot__body(%s, %s)\n", q(i), q((i+1)%qubits))
		case 2:
			fmt.Fprintf(&b, "  call void @__quantum__qis__rz__body(double %v, %s)\n", 0.001*float64(k+1), q(i))
		case 3:
			fmt.Fprintf(&b, "  call void @__quantum__qis__t__body(%s)\n", q(i))
		case 4:
			fmt.Fprintf(&b, "  call void @__quantum__qis__ry__body(double %v, %s)\n", 0.5+0.0001*float64(k), q(i))
		}
	}
	for i := range qubits {
		r := "%Result* null"
		if i > 0 {
			r = fmt.Sprintf("%%Result* inttoptr (i64 %d to %%Result*)", i)
		}
		fmt.Fprintf(&b, "  call void @__quantum__qis__mz__body(%s, %s)\n", q(i), r)
		fmt.Fprintf(&b, "  call void @__quantum__rt__result_record_output(%s, i8* null)\n", r)
	}
	b.WriteString("  ret void\n}\n\n")
	for _, d := range []string{"h__body(%Qubit*)", "cnot__body(%Qubit*, %Qubit*)", "rz__body(double, %Qubit*)",
		"t__body(%Qubit*)", "ry__body(double, %Qubit*)", "mz__body(%Qubit*, %Result*)"} {
		fmt.Fprintf(&b, "declare void @__quantum__qis__%s\n", d)
	}
	b.WriteString("declare void @__quantum__rt__result_record_output(%Result*, i8*)\n\n")
	b.WriteString("attributes #0 = { \"entry_point\" \"qir_profiles\"=\"base_profile\" \"required_num_qubits\"=\"20\" \"required_num_results\"=\"20\" }\n")
	return b.String()
}

// TestWriteBenchModule writes benchModule(10000) to the file named by
// QIR_BENCH_LL, for llvm-as to assemble into testdata/bench10k.bc.
func TestWriteBenchModule(t *testing.T) {
	path := os.Getenv("QIR_BENCH_LL")
	if path == "" {
		testenv.Optional(t, "writes the benchmark module only when QIR_BENCH_LL names a file")
	}
	if err := os.WriteFile(path, []byte(benchModule(10000)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func benchCompile(b *testing.B, format, data string) {
	b.Helper()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := qir.Compile(context.Background(), format, data, qir.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if p.Circuit == nil || len(p.Circuit.Ops) != 10020 {
			b.Fatalf("a circuit of %d operations", len(p.Circuit.Ops))
		}
	}
}

// BenchmarkCompileText parses, checks and lowers a 10,000-gate module
// from LLVM text to a sim circuit.
func BenchmarkCompileText(b *testing.B) { benchCompile(b, "qir.ll", benchModule(10000)) }

// BenchmarkCompileBitcode does the same from the module's bitcode.
func BenchmarkCompileBitcode(b *testing.B) {
	raw, err := os.ReadFile("testdata/bench10k.bc")
	if err != nil {
		b.Fatal(err)
	}
	benchCompile(b, "qir.bc", base64.StdEncoding.EncodeToString(raw))
}

// BenchmarkRunAdaptive runs 1,000 shots of the QIR specification's
// adaptive teleport chain (6 qubits, branches on measured results), each
// interpreted on the state vector.
func BenchmarkRunAdaptive(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(qir.CorpusDir, "qirspec_adaptive_teleportchain_opaque.ll"))
	if err != nil {
		b.Fatal(err)
	}
	p, err := qir.Compile(context.Background(), "qir.ll", string(src), qir.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if p.Circuit != nil {
		b.Fatal("the teleport chain became a circuit")
	}
	seed := uint64(1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Run(context.Background(), sim.Options{Shots: 1000, Seed: &seed}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileTextGates compiles straight-line modules of 200,000 and
// 1,000,000 gates from LLVM text into sim circuits (the circuit path:
// the trace of one run), reporting gates/s and the circuit's bytes a gate.
func BenchmarkCompileTextGates(b *testing.B) {
	for _, n := range []int{200_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			src := benchModule(n)
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			var p *qir.Program
			for b.Loop() {
				var err error
				if p, err = qir.Compile(context.Background(), "qir.ll", src, qir.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			if p.Circuit == nil || len(p.Circuit.Ops) != n+20 {
				b.Fatalf("no circuit of %d operations: it would run shot by shot", n+20)
			}
			var bytes int64
			for _, op := range p.Circuit.Ops {
				bytes += op.Bytes()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "gates/s")
			b.ReportMetric(float64(bytes)/float64(len(p.Circuit.Ops)), "circuit-B/op")
		})
	}
}
