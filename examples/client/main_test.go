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

func TestRunPrintsAHistogram(t *testing.T) {
	svc, _ := quantumtest.NewService(t)
	srv := quantumtest.NewServer(t, svc)
	dir := t.TempDir()
	bell := filepath.Join(dir, "bell.qasm")
	if err := os.WriteFile(bell, []byte("OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.qasm")
	if err := os.WriteFile(broken, []byte("OPENQASM 3.0;\nqubit q;\nh q\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		out, err string
	}{
		{"bell", []string{"-url", srv.URL, "-key", quantumtest.APIKey, "-shots", "200", bell}, 0, "00 ####", ""},
		{"parse error", []string{"-url", srv.URL, "-key", quantumtest.APIKey, broken}, 1, "", "VALIDATION_ERROR"},
		{"wrong key", []string{"-url", srv.URL, "-key", "nope", bell}, 1, "", "INVALID_API_KEY"},
		{"no key", []string{"-url", srv.URL, bell}, 2, "", "API key is required"},
		{"no file", []string{"-url", srv.URL, "-key", "k", filepath.Join(dir, "missing.qasm")}, 1, "", "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("QUANTUM_API_KEY", "")
			var out, errs bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errs)
			if code != tc.code || !strings.Contains(out.String(), tc.out) || !strings.Contains(errs.String(), tc.err) {
				t.Fatalf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, tc.code, out.String(), errs.String())
			}
			if tc.code == 0 && (!strings.Contains(out.String(), "COMPLETED") || !strings.Contains(out.String(), "11 ####")) {
				t.Fatalf("no histogram:\n%s", out.String())
			}
		})
	}
}
