package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// lockedBuffer is a writer that counts its writes.
type lockedBuffer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.writes++
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestBatchedLogKeepsEveryLine logs from many goroutines through a
// batched log: after Sync every line is there, whole, and in fewer writes
// than lines.
func TestBatchedLogKeepsEveryLine(t *testing.T) {
	var out lockedBuffer
	b := newBatchedLog(&out, time.Hour) // only Sync and full batches write
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				if _, err := fmt.Fprintf(b, "{\"g\":%d,\"i\":%d,\"pad\":%q}\n", g, i, strings.Repeat("x", i%200)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 8*500 {
		t.Fatalf("%d lines, want %d", len(lines), 8*500)
	}
	seen := map[string]bool{}
	for _, l := range lines {
		var g, i int
		if _, err := fmt.Sscanf(l, "{\"g\":%d,\"i\":%d,", &g, &i); err != nil || !strings.HasSuffix(l, "\"}") {
			t.Fatalf("a broken line: %q", l)
		}
		seen[fmt.Sprint(g, i)] = true
	}
	if len(seen) != 8*500 {
		t.Errorf("%d distinct lines, want %d", len(seen), 8*500)
	}
	if out.writes >= len(lines) {
		t.Errorf("%d writes for %d lines: not batched", out.writes, len(lines))
	}
}

// TestBatchedLogWritesWhatWaits: a line is written without a Sync, once
// its batch's delay has passed.
func TestBatchedLogWritesWhatWaits(t *testing.T) {
	var out lockedBuffer
	b := newBatchedLog(&out, logDelay)
	fmt.Fprintln(b, "first")
	deadline := time.Now().Add(10 * time.Second)
	for out.String() != "first\n" {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s the log holds %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	fmt.Fprintln(b, "second")
	for out.String() != "first\nsecond\n" {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s the log holds %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestWarningsAreWrittenAtOnce: through a batched core whose batches
// would wait an hour, a request line waits, and a warning goes out at
// once with the lines before it.
func TestWarningsAreWrittenAtOnce(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if !batches(w) {
		t.Fatal("a pipe's log is not batched")
	}
	if batches(&bytes.Buffer{}) {
		t.Error("a buffer's log is batched")
	}
	if _, ok := logCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), w, zapcore.InfoLevel, logDelay).(urgentCore); !ok {
		t.Error("the server's core for a pipe is not batched")
	}
	log := zap.New(logCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), w, zapcore.InfoLevel, time.Hour))
	log.Info("request", zap.String("route", "GET /api/v1/jobs/{job_qrn}"))
	log.Debug("dropped")
	log.Warn("not ready")
	// Both lines were written by the time Warn returned (the deadline
	// only keeps a failure from hanging the test).
	if err := r.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	var got []byte
	for bytes.Count(got, []byte("\n")) < 2 {
		n, err := r.Read(buf)
		if err != nil {
			t.Fatalf("%v after %q", err, got)
		}
		got = append(got, buf[:n]...)
	}
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"msg":"request"`) || !strings.Contains(lines[1], `"msg":"not ready"`) {
		t.Errorf("the log holds %q", got)
	}
	// A line at info waits for its batch, or for Sync.
	log.Info("request")
	if err := log.Sync(); err != nil {
		t.Fatal(err)
	}
	n, err := r.Read(buf)
	if err != nil || !strings.Contains(string(buf[:n]), `"msg":"request"`) {
		t.Errorf("after Sync: %q, %v", buf[:n], err)
	}
}
