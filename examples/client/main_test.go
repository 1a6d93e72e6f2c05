package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	}{
		{name: "QASM 2", args: append(key, "-shots", "200", bell2), out: []string{"job qbraid:qbraid:sim:qir-sv-", "COMPLETED", "00 ####", "11 ####"}},
		{name: "QASM 3, URL and key from the environment", env: map[string]string{"QUANTUM_URL": srv.URL, "QUANTUM_API_KEY": quantumtest.APIKey},
			args: []string{bell3}, out: []string{"COMPLETED", "00 ####", "11 ####"}},
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
		{"a.qasm2", "// no version line", "qasm2"},
		{"a.qasm3", "OPENQASM 2.0;", "qasm3"},
		{"a.txt", "OPENQASM 2.0;", "qasm2"},
		{"bell.ll", "define void @main() #0 {", "qir.ll"},
		{"bell.bc", "BC\xc0\xde", "qir.bc"},
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
