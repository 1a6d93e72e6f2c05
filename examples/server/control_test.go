package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The control key's sources and rules: from a private file or the
// environment, at least 16 characters, never an API key, on a loopback
// address unless -control-public; never printed or logged.
func TestControlKeyRules(t *testing.T) {
	good := writeKeys(t, "  control-key-0123456789abcdef \n", 0o600)
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"readable by others", nil, []string{"-control-key-file", writeKeys(t, "control-key-0123456789abcdef", 0o644)}, "permissions"},
		{"empty file", nil, []string{"-control-key-file", writeKeys(t, " \n", 0o600)}, "is empty"},
		{"no such file", nil, []string{"-control-key-file", "/nonexistent/key"}, "-control-key-file"},
		{"short", map[string]string{"QUANTUM_CONTROL_KEY": "short-key"}, nil, "at least 16"},
		{"an API key", map[string]string{"QUANTUM_CONTROL_KEY": "same-key-0123456789abcdef"}, []string{"-api-key", "same-key-0123456789abcdef"}, "also the API key"},
		{"public address", nil, []string{"-control-key-file", good, "-addr", "0.0.0.0:0"}, "not a loopback address"},
		{"public without a key", nil, []string{"-control-public"}, "needs a control key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run(context.Background(), append([]string{"-addr", "127.0.0.1:0", "-log-level", "error"}, tc.args...),
				system{out: io.Discard, getenv: func(k string) string { return tc.env[k] }})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want …%s…", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "0123456789abcdef") {
				t.Fatalf("the error quotes the key: %v", err)
			}
		})
	}
	out, logs := serve(t, nil, "-control-key-file", good)
	if !strings.Contains(out, "/control/v1") {
		t.Errorf("the server does not say it serves the control API:\n%s", out)
	}
	if strings.Contains(out+logs, "control-key-0123456789abcdef") {
		t.Error("the control key was printed or logged")
	}
	if out, _ := serve(t, map[string]string{"QUANTUM_CONTROL_KEY": "env-control-key-0123456789"}, "-control-public", "-addr", "0.0.0.0:0"); !strings.Contains(out, "/control/v1") {
		t.Errorf("-control-public on every interface:\n%s", out)
	}
}

// With a control key the server serves /control/v1 beside the API; without
// one every path under it is a 404.
func TestControlAPIServed(t *testing.T) {
	key := "control-key-0123456789abcdef"
	base, _ := startServer(t, "-control-key-file", writeKeys(t, key, 0o600))
	reset := func(base, key string) int {
		req, _ := http.NewRequest("POST", base+"/control/v1/reset", nil)
		req.Header.Set("X-CONTROL-KEY", key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := reset(base, key); got != http.StatusOK {
		t.Fatalf("reset with the key: %d", got)
	}
	if got := reset(base, "wrong-key-0123456789abcdef"); got != http.StatusUnauthorized {
		t.Fatalf("reset with a wrong key: %d", got)
	}
	plain, _ := startServer(t)
	if got := reset(plain, key); got != http.StatusNotFound {
		t.Fatalf("reset on a server without a control key: %d", got)
	}
}
