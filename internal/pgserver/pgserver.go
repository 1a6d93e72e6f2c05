// Package pgserver starts a throwaway PostgreSQL server from the
// installed binaries, or uses one that a DSN names, and makes and drops
// databases on it: what the tests (internal/pgtest) and the benchmarks on
// PostgreSQL (bench/river) share.
//
// A server started here runs in a temp dir with settings for speed over
// durability (fsync, synchronous commit and full-page writes off, 128 MB
// of shared buffers, 300 connections), on a free loopback port, as a user
// other than root (PostgreSQL refuses to run as root); it dies with the
// process that started it, even one that is killed, and Stop removes its
// files.
package pgserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrNoBinaries is Start's answer when initdb and postgres are nowhere to
// be found.
var ErrNoBinaries = errors.New("PostgreSQL's server binaries (initdb, postgres) are not installed " +
	"(Debian/Ubuntu: apt-get install postgresql)")

// Server is a PostgreSQL server: one started here, or one a DSN names.
type Server struct {
	admin   *url.URL // a DSN of its maintenance database
	dir     string   // the temp dir of a server started here ("" otherwise)
	proc    *os.Process
	exited  chan struct{}
	logFile string
}

// Use checks the server dsn names and keeps its settings, with the
// maintenance database in place of any other. Its user must be allowed to
// create databases.
func Use(ctx context.Context, dsn string) (*Server, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	u := &url.URL{Scheme: "postgres", Host: net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), Path: "/postgres"}
	if cfg.Password != "" {
		u.User = url.UserPassword(cfg.User, cfg.Password)
	} else {
		u.User = url.User(cfg.User)
	}
	if cfg.TLSConfig == nil {
		u.RawQuery = "sslmode=disable"
	} else {
		u.RawQuery = "sslmode=require"
	}
	s := &Server{admin: u}
	if err := s.Exec(ctx, "SELECT 1"); err != nil {
		return nil, err
	}
	return s, nil
}

// Start makes a cluster in a temp dir and starts its server, trying three
// times (another process may take the free port first).
func Start(ctx context.Context) (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	var last error
	for range 3 {
		s, err := start(ctx, bin)
		if err == nil {
			return s, nil
		}
		last = err
	}
	return nil, last
}

func start(ctx context.Context, bin string) (_ *Server, err error) {
	dir, err := os.MkdirTemp("", "quantum-postgres-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir)
		}
	}()
	cred, err := serverUser(dir)
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres",
		"-E", "UTF8", "--no-locale", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pgserver: initdb: %w\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, exited: make(chan struct{}), logFile: filepath.Join(dir, "server.log")}
	logf, err := os.Create(s.logFile)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port), "-k", dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=300", "-c", "shared_buffers=128MB")
	cmd.Stdout, cmd.Stderr = logf, logf
	// The server dies with this process, even one that is killed: nothing
	// is left running.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	if err := startPinned(cmd, s.exited); err != nil {
		return nil, fmt.Errorf("pgserver: start postgres: %w", err)
	}
	s.proc = cmd.Process
	s.admin = &url.URL{Scheme: "postgres", User: url.User("postgres"), Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		Path: "/postgres", RawQuery: "sslmode=disable"}
	if err := s.waitReady(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// CreateDB makes a new, empty database named prefix_ and random hex, and
// returns its name and DSN.
func (s *Server) CreateDB(ctx context.Context, prefix string) (name, dsn string, err error) {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	name = prefix + "_" + hex.EncodeToString(b)
	if err := s.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0 ENCODING 'UTF8'"); err != nil {
		return "", "", fmt.Errorf("pgserver: create database: %w", err)
	}
	u := *s.admin
	u.Path = "/" + name
	return name, u.String(), nil
}

// DropDB drops a database made by CreateDB, closing what is still
// connected to it.
func (s *Server) DropDB(ctx context.Context, name string) error {
	return s.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
}

// Exec runs sql on the maintenance database, on a connection of its own.
func (s *Server) Exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, s.admin.String())
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(context.Background()) }()
	_, err = conn.Exec(ctx, sql)
	return err
}

// AdminDSN is the DSN of the server's maintenance database.
func (s *Server) AdminDSN() string { return s.admin.String() }

// PID is the postmaster's process id, 0 for a server not started here.
func (s *Server) PID() int {
	if s.proc == nil {
		return 0
	}
	return s.proc.Pid
}

// Stop shuts a server started here down fast (SIGINT), kills it if that
// takes more than ten seconds, and removes its files. A server named by a
// DSN is left alone.
func (s *Server) Stop() {
	if s.proc == nil {
		return
	}
	_ = s.proc.Signal(syscall.SIGINT)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		_ = s.proc.Kill()
		<-s.exited
	}
	_ = os.RemoveAll(s.dir)
	s.proc = nil
}

// waitReady polls until the server accepts connections, up to a minute.
func (s *Server) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(time.Minute)
	for {
		c, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := s.Exec(c, "SELECT 1")
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("pgserver: the server exited at start:\n%s", s.logTail())
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pgserver: the server did not accept connections within a minute: %w\n%s", err, s.logTail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *Server) logTail() string {
	b, _ := os.ReadFile(s.logFile)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}

// startPinned starts cmd from a goroutine locked to its OS thread, which
// waits for the process for as long as it runs: Linux sends the parent-
// death signal when the thread that started a child ends, not the process,
// and the Go runtime may end idle threads.
func startPinned(cmd *exec.Cmd, exited chan<- struct{}) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the server
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait()
		close(exited)
	}()
	return <-started
}

// binDir finds initdb and postgres: on PATH, or in the newest
// /usr/lib/postgresql/<version>/bin (Debian keeps them off PATH).
func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		dir := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(dir, "postgres")); err == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	version := func(d string) int { v, _ := strconv.Atoi(filepath.Base(filepath.Dir(d))); return v }
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", ErrNoBinaries
}

// serverUser returns the credentials to run the server with: none when
// not root; the postgres user, or nobody, when root, after giving it dir.
func serverUser(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	var u *user.User
	var err error
	for _, name := range []string{"postgres", "nobody"} {
		if u, err = user.Lookup(name); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("pgserver: running as root, and no postgres or nobody user to run the server as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
