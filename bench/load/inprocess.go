package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/store"
)

// startServer serves a memory store's Service on 127.0.0.1 in this
// process, with key.
func startServer(key string) (string, func(), error) {
	svc, err := quantum.New(store.NewMemory())
	if err != nil {
		return "", nil, err
	}
	if _, err := svc.AddAPIKey(key, "load"); err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: httpadapter.New(svc)}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "server:", err)
		}
	}()
	return ln.Addr().String(), func() {
		_ = srv.Close()
		_ = svc.Close(context.Background())
	}, nil
}
