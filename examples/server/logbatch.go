package main

import (
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"go.uber.org/zap/zapcore"
)

// A log that goes to a file or a pipe (a log collector) is written in
// batches: one write(2) a request line was a system call for every
// request, about a twentieth of the server's CPU under bench/load. A line
// waits at most logDelay; a line at warn or above, and everything before
// it, is written at once; a shutdown writes what is left. What a kill -9
// loses is at most the request lines of the last logDelay.
const (
	logDelay = 50 * time.Millisecond
	logBatch = 32 << 10
)

// logCore writes lines at lvl and above to w, in batches of at most
// delay where batches(w).
func logCore(enc zapcore.Encoder, w io.Writer, lvl zapcore.LevelEnabler, delay time.Duration) zapcore.Core {
	if batches(w) {
		return urgentCore{zapcore.NewCore(enc, newBatchedLog(w, delay), lvl)}
	}
	return zapcore.NewCore(enc, zapcore.Lock(zapcore.AddSync(w)), lvl)
}

// batches says whether the lines for w are batched: not on a terminal,
// where a person reads them as they come, nor for a writer that is not a
// file (a test's buffer).
func batches(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice == 0
}

// batchedLog gathers lines and writes them to w together, at most delay
// after the first of a batch, or once logBatch bytes wait.
type batchedLog struct {
	w     io.Writer
	delay time.Duration

	mu    sync.Mutex
	buf   []byte
	timer *time.Timer // runs while buf holds lines
	err   error       // of the last write the timer made, for the next Sync
}

func newBatchedLog(w io.Writer, delay time.Duration) *batchedLog {
	b := &batchedLog{w: w, delay: delay, buf: make([]byte, 0, logBatch)}
	b.timer = time.AfterFunc(time.Hour, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if err := b.flush(); err != nil {
			b.err = err
		}
	})
	b.timer.Stop()
	return b
}

// Write keeps p, a whole line (zap writes one a call), for the next batch.
func (b *batchedLog) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf)+len(p) > logBatch {
		if err := b.flush(); err != nil {
			return 0, err
		}
	}
	if len(p) > logBatch {
		return b.w.Write(p)
	}
	if len(b.buf) == 0 {
		b.timer.Reset(b.delay)
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// Sync writes the lines that wait.
func (b *batchedLog) Sync() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	err := b.flush()
	err, b.err = errors.Join(b.err, err), nil
	return err
}

func (b *batchedLog) flush() error {
	if len(b.buf) == 0 {
		return nil
	}
	b.timer.Stop()
	_, err := b.w.Write(b.buf)
	b.buf = b.buf[:0]
	return err
}

// urgentCore writes a line at warn or above at once, with the lines
// before it.
type urgentCore struct{ zapcore.Core }

func (c urgentCore) With(fields []zapcore.Field) zapcore.Core {
	return urgentCore{c.Core.With(fields)}
}

func (c urgentCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c urgentCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	err := c.Core.Write(e, fields)
	if e.Level >= zapcore.WarnLevel {
		err = errors.Join(err, c.Sync())
	}
	return err
}
