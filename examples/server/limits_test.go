package main

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// paddedBell is a Bell program of at least size bytes: a comment makes up
// the rest.
func paddedBell(size int) string {
	const bell = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n"
	return bell + "// " + strings.Repeat("x", max(size-len(bell), 0)) + "\n"
}

// -max-body sets the largest body a request may have: past it a 413
// PAYLOAD_TOO_LARGE in the error envelope naming the limit, under it the
// job is taken.
func TestMaxBody(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		program int // bytes
		want    int
		limit   int // named in the 413's message
	}{
		{"the default refuses more than 4 MiB", nil, 4<<20 + 1, http.StatusRequestEntityTooLarge, 4 << 20},
		{"the default takes a program of 3 MiB", nil, 3 << 20, http.StatusCreated, 0},
		{"a raised limit takes 5 MiB", []string{"-max-body", "8MiB"}, 5 << 20, http.StatusCreated, 0},
		{"a raised limit refuses more", []string{"-max-body", "8MiB"}, 8<<20 + 1, http.StatusRequestEntityTooLarge, 8 << 20},
		{"a lowered limit refuses 2 KiB", []string{"-max-body", "1KiB"}, 2 << 10, http.StatusRequestEntityTooLarge, 1 << 10},
		{"a lowered limit takes a small body", []string{"-max-body", "1KiB"}, 200, http.StatusCreated, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, _ := startServer(t, append([]string{"-api-key", "alice"}, tc.args...)...)
			alice := &client{t: t, base: base, key: "alice"}
			status, out := alice.callNoFail("POST", "/api/v1/jobs", map[string]any{
				"program":   map[string]any{"format": "qasm2", "data": paddedBell(tc.program)},
				"shots":     10,
				"deviceQrn": "qbraid:qbraid:sim:qir-sv",
			})
			if status != tc.want {
				t.Fatalf("a program of %d bytes: %d %.300v, want %d", tc.program, status, out, tc.want)
			}
			if tc.want != http.StatusRequestEntityTooLarge {
				return
			}
			e, _ := out["error"].(map[string]any)
			if out["success"] != false || e["code"] != "PAYLOAD_TOO_LARGE" || e["message"] != out["message"] ||
				!strings.Contains(out["message"].(string), strconv.Itoa(tc.limit)) {
				t.Fatalf("413 answered %v, want PAYLOAD_TOO_LARGE naming %d", out, tc.limit)
			}
		})
	}
}
