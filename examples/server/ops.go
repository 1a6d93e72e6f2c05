package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/qjobs/quantum/metrics"
)

// version is the module version and the VCS revision the binary was
// built from, as the Go toolchain recorded them.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "quantum server (no build information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	rev, at, modified := "unknown", "", ""
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = " " + s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = " (modified)"
			}
		}
	}
	return fmt.Sprintf("quantum server %s, revision %s%s%s, %s", v, rev, at, modified, bi.GoVersion)
}

// logFormat is the -log-format to use: as given, else console for a
// person at a terminal and JSON for everything else (a log collector).
func logFormat(given string, w io.Writer) string {
	if given != "" {
		return given
	}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			return "console"
		}
	}
	return "json"
}

// newLogger logs lines at level and above to w (nowhere when w is nil),
// as JSON or for the console; to a file or a pipe, in batches
// (logbatch.go): the logger's Sync writes what waits.
func newLogger(level, format string, w io.Writer) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("-log-level: %w", err)
	}
	if w == nil {
		w = io.Discard
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	encoder := zapcore.NewJSONEncoder(enc)
	if format == "console" {
		encoder = zapcore.NewConsoleEncoder(enc)
	}
	return zap.New(logCore(encoder, w, lvl, logDelay)), nil
}

// serveMetrics puts /metrics beside the API on the main listener (a route
// of the site's own mux: a mux in front of it would be one more match a
// request), or, with an address of its own, on a listener of its own
// (kept off the public network, say). It returns the main handler and
// what stops the metrics listener.
func serveMetrics(addr string, site *siteMux, m *metrics.Metrics, log *zap.Logger) (http.Handler, func(), error) {
	if addr == "" {
		site.Handle("GET /metrics", m.Handler())
		return site, func() {}, nil
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("-metrics-addr: %w", err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: time.Minute}
	go func() {
		if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			log.Error("metrics listener", zap.Error(err))
		}
	}()
	log.Info("metrics", zap.String("addr", "http://"+ln.Addr().String()+"/metrics"))
	return site, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}
