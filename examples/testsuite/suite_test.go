// Package testsuite runs test_twin.py, a test suite in Python written as
// docs/testing.md shows, against examples/server: one node on the memory
// store, and three nodes sharing PostgreSQL (the control API called on
// the first, jobs sent to each in turn).
package testsuite

import (
	"bufio"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qjobs/quantum/internal/pgtest"
	"github.com/qjobs/quantum/internal/testenv"
)

const (
	controlKey = "suite-control-key-0123456789"
	apiKey     = "suite-api-key-0123456789"
)

// buildServer builds examples/server into the test's directory.
func buildServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "server")
	if out, err := exec.Command("go", "build", "-o", bin, "../server").CombinedOutput(); err != nil {
		t.Fatalf("build the server: %v\n%s", err, out)
	}
	return bin
}

// startServer runs the binary with args and the control key, and returns
// its URL once it listens.
func startServer(t *testing.T, bin string, args ...string) string {
	t.Helper()
	keyFile := filepath.Join(t.TempDir(), "control-key")
	if err := os.WriteFile(keyFile, []byte(controlKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0", "-workers", "2", "-log-level", "error",
		"-api-key", apiKey, "-control-key-file", keyFile}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	addr := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`)
	found := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			if m := addr.FindStringSubmatch(lines.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case u := <-found:
		return u
	case <-time.After(60 * time.Second):
		t.Fatal("the server did not start within 60 s")
		return ""
	}
}

// runSuite runs test_twin.py against the servers at urls.
func runSuite(t *testing.T, urls ...string) {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		testenv.Skip(t, "python3 is not installed (Debian and Ubuntu: apt-get install python3)")
	}
	cmd := exec.Command(python, "-m", "unittest", "-v", "test_twin")
	cmd.Env = append(os.Environ(), "QUANTUM_URLS="+strings.Join(urls, ","), "QUANTUM_CONTROL_KEY="+controlKey,
		"QUANTUM_API_KEY="+apiKey, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the Python suite failed: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

func TestPythonSuiteOnOneNode(t *testing.T) {
	runSuite(t, startServer(t, buildServer(t)))
}

func TestPythonSuiteOnThreeNodesSharingPostgreSQL(t *testing.T) {
	dsn := pgtest.DSN(t)
	bin := buildServer(t)
	var urls []string
	for _, node := range []string{"node-1", "node-2", "node-3"} {
		urls = append(urls, startServer(t, bin, "-store", "postgres", "-postgres-dsn", dsn, "-node", node))
	}
	runSuite(t, urls...)
}

// The Python suite docs/testing.md shows, as a new user would save and
// run it from the repository's root: it starts the server itself.
func TestTheSuiteOfTheDocs(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		testenv.Skip(t, "python3 is not installed (Debian and Ubuntu: apt-get install python3)")
	}
	doc, err := os.ReadFile("../../docs/testing.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```python\n")
	code, _, ok2 := strings.Cut(rest, "```\n")
	if !ok || !ok2 {
		t.Fatal("docs/testing.md has no python block")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "twin_test.py"), []byte(code), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(python, "-m", "unittest", "-v", "twin_test")
	cmd.Dir = "../.." // the repository's root, where the docs say to run it
	cmd.Env = append(os.Environ(), "PYTHONPATH="+dir, "QUANTUM_URL=http://"+addr, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OK") {
		t.Fatalf("the suite of docs/testing.md: %v\n%s", err, out)
	}
}
