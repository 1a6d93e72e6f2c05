package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qjobs/quantum/internal/pgserver"
)

// server is the one PostgreSQL server of a whole run: started here with
// the settings of the tests' servers (internal/pgserver: fsync,
// synchronous commit and full-page writes off, 128 MB shared buffers), or
// the server that -dsn names. Each run of a shape gets a fresh database
// on it.
type server struct {
	*pgserver.Server
	version string // server_version
}

// useServer checks the server dsn names; its user must be allowed to
// create databases.
func useServer(ctx context.Context, dsn string) (*server, error) {
	s, err := pgserver.Use(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("-dsn: %w", err)
	}
	return withVersion(ctx, &server{Server: s})
}

// startServer starts a throwaway server, which dies with this process
// even if it is killed; Stop removes it and its files.
func startServer(ctx context.Context) (*server, error) {
	s, err := pgserver.Start(ctx)
	if errors.Is(err, pgserver.ErrNoBinaries) {
		return nil, fmt.Errorf("%w; or pass -dsn of a server where the user may create databases", err)
	}
	if err != nil {
		return nil, err
	}
	return withVersion(ctx, &server{Server: s})
}

func withVersion(ctx context.Context, s *server) (*server, error) {
	conn, err := pgx.Connect(ctx, s.AdminDSN())
	if err == nil {
		defer func() { _ = conn.Close(context.Background()) }()
		err = conn.QueryRow(ctx, "SHOW server_version").Scan(&s.version)
	}
	if err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// dropDB drops a database made by CreateDB. It has a context of its own:
// it runs after a timeout or an interrupt too.
func (s *server) dropDB(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.DropDB(ctx, name); err != nil {
		fmt.Fprintf(os.Stderr, "drop database %s: %v\n", name, err)
	}
}
