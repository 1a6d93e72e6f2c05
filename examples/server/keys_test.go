package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func writeKeys(t *testing.T, text string, perm os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(path, []byte(text), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil { // past the umask
		t.Fatal(err)
	}
	return path
}

func TestAPIKeySources(t *testing.T) {
	good := writeKeys(t, "# team keys\nkey-a alice\n\n  key-b   bob  \n", 0o600)
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == "QUANTUM_API_KEYS" {
				return v
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name    string
		cfg     config
		env     string
		want    []apiKey
		wantErr string
	}{
		{"flags", config{keys: keyList{"k1", "k2"}}, "", []apiKey{{key: "k1", user: "user1"}, {key: "k2", user: "user2"}}, ""},
		{"file", config{keysFile: good}, "", []apiKey{{key: "key-a", user: "alice"}, {key: "key-b", user: "bob"}}, ""},
		{"environment", config{}, "key-c carol,key-d dan\nkey-e erin", []apiKey{{key: "key-c", user: "carol"}, {key: "key-d", user: "dan"}, {key: "key-e", user: "erin"}}, ""},
		{"all three", config{keys: keyList{"k1"}, keysFile: good}, "key-c carol", []apiKey{{key: "k1", user: "user1"}, {key: "key-a", user: "alice"}, {key: "key-b", user: "bob"}, {key: "key-c", user: "carol"}}, ""},
		{"malformed line", config{keysFile: writeKeys(t, "key-a alice\nkey-b\n", 0o600)}, "", nil, "line 2: want `key user` or `key user credits`"},
		{"credits", config{keys: keyList{"k1"}, credits: 5, keysFile: writeKeys(t, "key-a alice 2.5\nkey-b bob\nkey-c carol 0\n", 0o600)}, "key-d dan 1",
			[]apiKey{{"k1", "user1", 5, true}, {"key-a", "alice", 2.5, true}, {key: "key-b", user: "bob"}, {"key-c", "carol", 0, true}, {"key-d", "dan", 1, true}}, ""},
		{"negative credits", config{keysFile: writeKeys(t, "key-a alice -3\n", 0o600)}, "", nil, `line 1: credits must be a number of credits from 0 to 1000000000, got "-3"`},
		{"credits that are not a number", config{}, "key-a alice lots", nil, `QUANTUM_API_KEYS entry 1: credits must be a number of credits from 0 to 1000000000, got "lots"`},
		{"too many words", config{keysFile: writeKeys(t, "key-a alice 1 2\n", 0o600)}, "", nil, "line 1: want `key user` or `key user credits`, got 4 words"},
		{"malformed entry", config{}, "key-a alice,key-b bob extra", nil, "QUANTUM_API_KEYS entry 2"},
		{"readable by others", config{keysFile: writeKeys(t, "key-a alice\n", 0o644)}, "", nil, "chmod 600"},
		{"writable by group", config{keysFile: writeKeys(t, "key-a alice\n", 0o620)}, "", nil, "permissions 0620"},
		{"missing file", config{keysFile: filepath.Join(t.TempDir(), "none")}, "", nil, "no such file"},
		{"duplicate", config{keys: keyList{"key-a"}, keysFile: good}, "", nil, `users "user1" and "alice" have the same key`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := apiKeys(tc.cfg, env(tc.env))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "key-a") || strings.Contains(err.Error(), "key-b ") {
					t.Fatalf("the error quotes a key: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// serve runs the server with args until it is listening, then stops it,
// and returns what it printed and logged.
func serve(t *testing.T, env map[string]string, args ...string) (out, logs string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var o, l bytes.Buffer
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, append([]string{"-addr", "127.0.0.1:0", "-log-level", "debug"}, args...), system{
			out: &o, log: &l, getenv: func(k string) string { return env[k] }, ready: func(string) { cancel() }})
	}()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("run: %v\n%s", err, l.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not stop within 30s")
	}
	return o.String(), l.String()
}

func TestGivenKeysAreNeverPrinted(t *testing.T) {
	file := writeKeys(t, "secret-file-key alice\n", 0o600)
	out, logs := serve(t, map[string]string{"QUANTUM_API_KEYS": "secret-env-key bob"},
		"-api-key", "secret-flag-key", "-api-keys-file", file)
	for _, k := range []string{"secret-flag-key", "secret-file-key", "secret-env-key"} {
		if strings.Contains(out, k) || strings.Contains(logs, k) {
			t.Errorf("%s was printed:\n%s\n%s", k, out, logs)
		}
	}
	if !strings.Contains(out, "3 API keys loaded") {
		t.Errorf("output does not say the keys were loaded:\n%s", out)
	}
}

func TestDemoKeyIsPrinted(t *testing.T) {
	out, _ := serve(t, nil)
	if !strings.Contains(out, "demo API key") || !strings.Contains(out, "X-API-KEY: demo-") {
		t.Fatalf("no demo key in:\n%s", out)
	}
	// The client's command, with a program the repository has.
	if !strings.Contains(out, "go run ./examples/client -url http://127.0.0.1:") || !strings.Contains(out, " -key demo-") ||
		!strings.Contains(out, "examples/programs/bell.qasm\n") {
		t.Fatalf("no client command in:\n%s", out)
	}
	if _, err := os.Stat("../programs/bell.qasm"); err != nil {
		t.Fatalf("the printed command sends a file that is not there: %v", err)
	}
}

// When the address is taken, run fails and leaves no worker running.
func TestListenFailureClosesTheService(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	err = run(context.Background(), []string{"-addr", ln.Addr().String(), "-log-level", "error"}, system{})
	if err == nil {
		t.Fatal("run listened on an address in use")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		if !strings.Contains(stacks, "quantum.(*runner)") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Service's goroutines still run after run returned:\n%s", stacks)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
