package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/qjobs/quantum/qir"
	"github.com/qjobs/quantum/quantumtest"
)

func TestRun(t *testing.T) {
	svc, _ := quantumtest.NewService(t)
	if err := svc.RegisterDevice(quantumtest.Device("qbraid:qbraid:sim:broken"), &quantumtest.FakeBackend{Fail: "the backend broke"}); err != nil {
		t.Fatal(err)
	}
	srv := quantumtest.NewServer(t, svc)
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	bell2 := write("bell.qasm", "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n")
	bell3 := write("bell3.qasm", "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[2] q;\nbit[2] c;\nh q[0];\ncx q[0], q[1];\nc = measure q;\n")
	broken := write("broken.qasm", "OPENQASM 3.0;\nqubit q;\nh q\n")
	key := []string{"-url", srv.URL, "-key", quantumtest.APIKey}
	for _, tc := range []struct {
		name     string
		env      map[string]string
		args     []string
		code     int
		out, err []string // each must appear
		notErr   []string // none may appear
	}{
		{name: "QASM 2", args: append(key, "-shots", "200", bell2), out: []string{"job qbraid:qbraid:sim:qir-sv-", "COMPLETED", "00 ####", "11 ####"}},
		{name: "QASM 3, URL and key from the environment", env: map[string]string{"QUANTUM_URL": srv.URL, "QUANTUM_API_KEY": quantumtest.APIKey},
			args: []string{bell3}, out: []string{"COMPLETED", "00 ####", "11 ####"}},
		{name: "a URL that ends in /api/v1", args: []string{"-url", srv.URL + "/api/v1", "-key", quantumtest.APIKey, bell2}, out: []string{"COMPLETED", "00 ####"}},
		{name: "flags before the environment", env: map[string]string{"QUANTUM_URL": "http://127.0.0.1:1", "QUANTUM_API_KEY": "nope"},
			args: append(key, bell2), out: []string{"COMPLETED"}},
		{name: "help", args: []string{"-h"}, err: []string{"usage:", "QUANTUM_URL", "QUANTUM_API_KEY"}},
		{name: "help keeps the key of the environment secret", env: map[string]string{"QUANTUM_API_KEY": "s3cret-key"},
			args: []string{"-h"}, err: []string{"usage:"}, notErr: []string{"s3cret-key"}},
		{name: "the wrong format", args: append(key, "-format", "qasm2", bell3), code: 1, err: []string{"VALIDATION_ERROR", "program.format"}},
		{name: "a parse error", args: append(key, broken), code: 1, err: []string{"VALIDATION_ERROR", "program.data"}},
		{name: "a job that fails", args: append(key, "-device", "qbraid:qbraid:sim:broken", bell2), code: 1,
			out: []string{"job qbraid:qbraid:sim:broken-"}, err: []string{"the job ended FAILED: the backend broke"}},
		{name: "a wrong key", args: []string{"-url", srv.URL, "-key", "nope", bell2}, code: 1, err: []string{"INVALID_API_KEY"}},
		{name: "no key", args: []string{"-url", srv.URL, bell2}, code: 2, err: []string{"API key is required"}},
		{name: "no file", args: key, code: 2, err: []string{"usage:"}},
		{name: "a missing file", args: append(key, filepath.Join(dir, "missing.qasm")), code: 1, err: []string{"no such file"}},
		{name: "a bad URL", args: []string{"-url", "ftp://x", "-key", "k", bell2}, code: 2, err: []string{"base URL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("QUANTUM_URL", tc.env["QUANTUM_URL"])
			t.Setenv("QUANTUM_API_KEY", tc.env["QUANTUM_API_KEY"])
			var out, errs bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errs)
			ok := code == tc.code
			for _, s := range tc.out {
				ok = ok && strings.Contains(out.String(), s)
			}
			for _, s := range tc.err {
				ok = ok && strings.Contains(errs.String(), s)
			}
			for _, s := range tc.notErr {
				ok = ok && !strings.Contains(errs.String(), s)
			}
			if !ok {
				t.Fatalf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, tc.code, out.String(), errs.String())
			}
		})
	}
}

func TestFormatOf(t *testing.T) {
	for _, tc := range []struct{ path, src, want string }{
		{"a.qasm", "OPENQASM 3.0;", "qasm3"},
		{"a.qasm", "\n  OPENQASM 2.0;", "qasm2"},
		{"a.qasm", "qubit q;", "qasm3"},
		{"a.qasm", "// Bell\n\n// two qubits\nOPENQASM 2.0;\n", "qasm2"},
		{"a.qasm", "/* a\nlicence */ OPENQASM 2.0;", "qasm2"},
		{"a.qasm", "/* OPENQASM 2.0; */\nOPENQASM 3.0;", "qasm3"},
		{"a.qasm", "// OPENQASM 2.0;\nqubit q;", "qasm3"},
		{"a.qasm", "", "qasm3"},
		{"a.qasm2", "// no version line", "qasm2"},
		{"a.qasm3", "OPENQASM 2.0;", "qasm3"},
		{"a.txt", "OPENQASM 2.0;", "qasm2"},
		{"bell.ll", "define void @main() #0 {", "qir.ll"},
		{"bell.bc", "BC\xc0\xde", "qir.bc"},
		{"bell.quil", "DECLARE ro BIT[2]", "quil"},
		{"bell.ionq.json", "{}", "ionq.circuit.v0"},
		{"chain.analog.json", "{}", "analog"},
		{"square.pulser.json", "{}", "pulser.sequence"},
		{"maxcut.problem.json", "{}", "problem"},
	} {
		if got := formatOf(tc.path, tc.src); got != tc.want {
			t.Errorf("formatOf(%q, %q) = %s, want %s", tc.path, tc.src, got, tc.want)
		}
	}
}

func TestHistogram(t *testing.T) {
	var b bytes.Buffer
	histogram(&b, map[string]int{"10": 100, "01": 25, "00": 0})
	want := "00 " + strings.Repeat(" ", 50) + "      0   0.0%\n" +
		"01 " + strings.Repeat("#", 13) + strings.Repeat(" ", 37) + "     25  20.0%\n" +
		"10 " + strings.Repeat("#", 50) + "    100  80.0%\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// The programs under examples/programs, which the README sends, run as
// their extensions say and measure a Bell pair.
func TestExamplePrograms(t *testing.T) {
	svc, _ := quantumtest.NewService(t)
	srv := quantumtest.NewServer(t, svc)
	files, err := filepath.Glob("../programs/*")
	if err != nil || len(files) < 6 {
		t.Fatalf("example programs %v (%v), want bell.qasm, bell3.qasm, bell.ll, bell.bc, bell.quil and bell.ionq.json", files, err)
	}
	for _, path := range files {
		if _, analog := analogExamples[filepath.Base(path)]; analog {
			continue // TestAnalogExamplePrograms
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			var out, errs bytes.Buffer
			code := run(context.Background(), []string{"-url", srv.URL, "-key", quantumtest.APIKey, "-shots", "100", path}, &out, &errs)
			if code != 0 || !strings.Contains(out.String(), "COMPLETED") {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errs.String())
			}
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n")[2:] {
				if !strings.HasPrefix(line, "00 ") && !strings.HasPrefix(line, "11 ") {
					t.Errorf("outcome %q: a Bell pair measures 00 or 11", line)
				}
			}
		})
	}
}

// analogExamples are the analog programs of examples/programs, with the
// flags the README sends them with: none, their extensions say.
var analogExamples = map[string][]string{
	"chain.analog.json":  {},
	"square.pulser.json": {},
}

// The analog programs run on their devices: counts of a letter a site
// (e, r, g) on Aquila, of a digit an atom on Pasqal's emulator.
func TestAnalogExamplePrograms(t *testing.T) {
	svc, _ := quantumtest.NewService(t)
	srv := quantumtest.NewServer(t, svc)
	for name, flags := range analogExamples {
		t.Run(name, func(t *testing.T) {
			var out, errs bytes.Buffer
			args := append([]string{"-url", srv.URL, "-key", quantumtest.APIKey, "-shots", "100"}, flags...)
			code := run(context.Background(), append(args, "../programs/"+name), &out, &errs)
			if code != 0 || !strings.Contains(out.String(), "COMPLETED") {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errs.String())
			}
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n")[2:] {
				key, _, _ := strings.Cut(line, " ")
				if strings.Trim(key, "gre01") != "" || len(key) != 6 && len(key) != 4 {
					t.Errorf("outcome %q", line)
				}
			}
		})
	}
}

// bell.bc is bell.ll assembled: the two compile to one circuit.
func TestBitcodeIsTheText(t *testing.T) {
	ctx := context.Background()
	ll, err := os.ReadFile("../programs/bell.ll")
	if err != nil {
		t.Fatal(err)
	}
	bc, err := os.ReadFile("../programs/bell.bc")
	if err != nil {
		t.Fatal(err)
	}
	text, err := qir.Compile(ctx, "qir.ll", string(ll), qir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bits, err := qir.Compile(ctx, "qir.bc", base64.StdEncoding.EncodeToString(bc), qir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if text.EntryPoint != bits.EntryPoint || text.Circuit == nil || !reflect.DeepEqual(text.Circuit, bits.Circuit) {
		t.Fatalf("bell.ll and bell.bc differ:\n%+v\n%+v", text.Circuit, bits.Circuit)
	}
}
