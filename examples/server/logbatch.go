package main

import (
	"errors"
	"io"
	"os"
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

// newBatchedLog gathers lines and writes them to w together, at most
// delay after the last batch, or once logBatch bytes wait: zap's own
// buffered writer, whose Sync writes what waits. w's own Sync (fsync) is
// hidden from it: a pipe refuses one, and a log line needs none.
func newBatchedLog(w io.Writer, delay time.Duration) *zapcore.BufferedWriteSyncer {
	return &zapcore.BufferedWriteSyncer{WS: zapcore.AddSync(struct{ io.Writer }{w}), Size: logBatch, FlushInterval: delay}
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
