package quil_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/qjobs/quantum/quil"
	"github.com/qjobs/quantum/sim"
)

// The corpus (testdata/corpus/quil, see its MANIFEST): quilc's test
// programs and standard gates, pyquil's, and the Quil specification's
// examples.
const corpus = "../testdata/corpus/quil"

func readCorpus(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpus, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func corpusFiles(t *testing.T, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpus, pattern))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files %s (%v)", pattern, err)
	}
	return files
}

// refusedGood are the programs quilc reads that this service refuses, and
// why: each a feature decisions.md leaves out, or a program that is not a
// valid gate program (quilc's tests only parse it).
var refusedGood = map[string]string{
	"good-basic-defgate.quil":                   "DEFGATE H0 is not unitary", // 0.707 for 1/√2
	"good-basic-extern.quil":                    "EXTERN is not supported",
	"good-multiple-externs.quil":                "EXTERN is not supported",
	"good-classical-in-defcircuit.quil":         "DEFCIRCUIT is not supported",
	"good-defcircuit-shadow.quil":               "DEFCIRCUIT is not supported",
	"good-euler-circuit.quil":                   "DEFCIRCUIT is not supported",
	"good-teleport.quil":                        "DEFCIRCUIT is not supported",
	"good-include.quil":                         "INCLUDE is not supported",
	"good-memory-tree.quil":                     "SHARING is not supported",
	"good-overlapping-declares.quil":            "SHARING is not supported",
	"good-classical-load-store.quil":            "LOAD with REAL memory",
	"good-classical-binaries.quil":              "division by zero", // DIV x[0] x[1], both 0
	"good-complex-complex-number.quil":          "must be real",
	"good-complex-params.quil":                  "must be real",
	"good-simple-params.quil":                   "must be real",
	"good-general-defgate.quil":                 "is not unitary",
	"good-defgate-with-param-arithmetic.quil":   "a standard gate of that name exists",
	"good-defgate-as-sequence-nested-defs.quil": "CZ takes 0 parameters", // CZ(%theta)
	"good-defgate-as-sequence-unused-arg.quil":  "CZ takes 0 parameters",
}

// Every program others wrote as valid compiles and runs, or is refused
// with the reason above; every one written as invalid is refused with
// an *Error at a line.
func TestCorpusCompiles(t *testing.T) {
	var files []string
	for _, p := range []string{"quilc/good/*.quil", "quilc/compiler-hook/*.quil", "pyquil/over-9000.quil"} {
		files = append(files, corpusFiles(t, p)...)
	}
	for _, f := range files {
		src := readCorpus(t, strings.TrimPrefix(f, corpus+"/"))
		p, err := quil.Compile(context.Background(), src, quil.Options{})
		if want, refused := refusedGood[filepath.Base(f)]; refused {
			var qe *quil.Error
			if !errors.As(err, &qe) || qe.Line == 0 || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: err %v, want an *Error at a line: …%s…", f, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		seed := uint64(3)
		if _, err := sim.Run(context.Background(), p.Circuit, sim.Options{Shots: 16, Seed: &seed, ResultBits: p.ResultBits}); err != nil {
			t.Errorf("%s: run: %v", f, err)
		}
	}
	bad := append(corpusFiles(t, "quilc/bad/*.quil"), filepath.Join(corpus, "pyquil/test1.quil"))
	for _, f := range bad {
		_, err := quil.Compile(context.Background(), readCorpus(t, strings.TrimPrefix(f, corpus+"/")), quil.Options{})
		var qe *quil.Error
		if !errors.As(err, &qe) || qe.Line == 0 {
			t.Errorf("%s: err %v, want an *Error at a line", f, err)
		}
	}
}

// The gate programs of the corpus give the state the reference computes,
// amplitude by amplitude: pyquil's 9,000-gate benchmark among them.
func TestCorpusAgainstReference(t *testing.T) {
	var files []string
	for _, p := range []string{"quilc/good/*.quil", "quilc/compiler-hook/*.quil", "pyquil/over-9000.quil"} {
		files = append(files, corpusFiles(t, p)...)
	}
	compared := 0
	for _, f := range files {
		src := readCorpus(t, strings.TrimPrefix(f, corpus+"/"))
		if _, refused := refusedGood[filepath.Base(f)]; refused {
			continue
		}
		p := compile(t, src)
		n := p.Circuit.NumQubits
		if n == 0 {
			continue // an empty program
		}
		want, ok := refRun(t, src, n)
		if !ok {
			continue // definitions or memory: TestCorpusCompiles runs it
		}
		s, err := sim.Simulate(context.Background(), p.Circuit, sim.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		got := s.Amplitudes()
		if len(got) != len(want) {
			t.Fatalf("%s: %d amplitudes, reference %d", f, len(got), len(want))
		}
		assertClose(t, f, got, want, false)
		compared++
	}
	t.Logf("compared %d programs", compared)
	if compared < 15 {
		t.Fatalf("compared %d programs with the reference; the corpus has more gate programs than that", compared)
	}
}

// quilc's stdgates.quil defines the standard gates by their matrices: each
// (renamed, since a program may not redefine one) is the standard gate of
// its name, for parameters drawn across their range.
func TestQuilcStandardGates(t *testing.T) {
	src := readCorpus(t, "quilc/stdgates.quil")
	defRe := regexp.MustCompile(`(?m)^DEFGATE ([A-Z0-9-]+)(\([^)]*\))?( [a-z ]+)?( AS [A-Z-]+)?:`)
	defs := defRe.FindAllStringSubmatch(src, -1)
	renamed := defRe.ReplaceAllString(src, "DEFGATE QUILC-$1$2$3$4:")
	checked := 0
	for _, d := range defs {
		name, params := d[1], d[2]
		nparams := 0
		if params != "" {
			nparams = strings.Count(params, ",") + 1
		}
		var qubits int
		for _, g := range standardGates {
			if strings.HasPrefix(g.src, name+"(") || g.src == name {
				qubits = g.qubits
			}
		}
		if qubits == 0 {
			continue // not one of the service's standard gates
		}
		args := ""
		if nparams > 0 {
			vals := []string{"0.37", "-1.21", "2.05", "0.66", "-0.4"}[:nparams]
			args = "(" + strings.Join(vals, ", ") + ")"
		}
		qs := joinInts(qubitOrders(qubits)[1])
		n := qubits + 1
		ours := unitaryOf(t, name+args+" "+qs+"\n", n)
		theirs := unitaryOf(t, renamed+"\nQUILC-"+name+args+" "+qs+"\n", n)
		assertClose(t, "quilc's "+name+" vs ours", ours, theirs, false)
		checked++
	}
	if checked < 20 {
		t.Fatalf("checked %d of quilc's standard gates", checked)
	}
}

// The specification's Pauli-sum examples (sec-gates): its RY is RY; its
// CPHASE is CPHASE(−θ) up to a phase (the example's signs are flipped
// against the exp(−iΣ) its text defines, as the Quil RFC's RY is); its
// CAN, with coefficients a quarter of the angles, is the exponential of
// that sum.
func TestSpecificationPauliSums(t *testing.T) {
	ry := strings.Replace(readCorpus(t, "quil-spec/pauli-sum-ry.quil"), "DEFGATE RY", "DEFGATE SPEC-RY", 1)
	assertClose(t, "spec RY", unitaryOf(t, ry+"SPEC-RY(0.9) 0\n", 1), unitaryOf(t, "RY(0.9) 0\n", 1), false)

	src := readCorpus(t, "quil-spec/pauli-sum-cphase-can.quil")
	src = strings.NewReplacer("DEFGATE CPHASE", "DEFGATE SPEC-CPHASE", "DEFGATE CAN", "DEFGATE SPEC-CAN").Replace(src)
	assertClose(t, "spec CPHASE", unitaryOf(t, src+"SPEC-CPHASE(0.8) 1 0\n", 2), unitaryOf(t, "CPHASE(-0.8) 1 0\n", 2), true)
	assertClose(t, "spec CAN", unitaryOf(t, src+"SPEC-CAN(0.3, 0.5, 0.7) 0 1\n", 2), lift(canByExp(0.15, 0.25, 0.35), []int{0, 1}, 2), false)
}

// The specification's loop over angles (sec-mem) gives RX an angle the
// loop changes: this service knows REAL memory only while the program
// compiles, and says so at the first instruction that reads it in the
// loop.
func TestSpecificationAngleLoopIsRefused(t *testing.T) {
	_, err := quil.Compile(context.Background(), readCorpus(t, "quil-spec/angle-loop.quil"), quil.Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "13:1:") || !strings.Contains(err.Error(), "known only as the program runs") {
		t.Fatalf("err %v, want 13:1 and why", err)
	}
}
