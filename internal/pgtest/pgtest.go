// Package pgtest gives tests a real PostgreSQL database: a throwaway
// server that it starts from the installed binaries, once per test
// process, or the server that QUANTUM_TEST_POSTGRES_DSN names. Tests of
// code on PostgreSQL run against the real thing, never a mock.
//
// Without PostgreSQL's server binaries a test that asks for a database is
// skipped with a message that says how to install them; under CI=true it
// fails instead, since a skipped database test there hides a broken
// setup.
package pgtest

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
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qjobs/quantum/internal/testenv"
)

// EnvDSN names an existing server to use instead of starting one. Its
// user must be allowed to create databases.
const EnvDSN = "QUANTUM_TEST_POSTGRES_DSN"

const installHint = "PostgreSQL's server binaries (initdb, postgres) are not installed: " +
	"install them (Debian/Ubuntu: apt-get install postgresql) or set " + EnvDSN + " to a server where the user may create databases"

var (
	once    sync.Once
	shared  *server
	initErr error
	noBins  bool // initErr is the absence of binaries, not a failure
)

// server is the PostgreSQL server the tests of this process use.
type server struct {
	admin   *url.URL // a DSN of its maintenance database
	dir     string   // the temp dir of a server started here ("" otherwise)
	proc    *os.Process
	exited  chan struct{}
	logFile string
}

// DSN returns the connection string (a postgres:// URL) of a new, empty
// database for this test. The database is dropped when the test ends.
func DSN(t testing.TB) string {
	t.Helper()
	once.Do(func() { shared, initErr = start() })
	if initErr != nil {
		if noBins {
			testenv.Skip(t, initErr.Error())
			return ""
		}
		t.Fatal(initErr)
	}
	name := "quantum_test_" + randomHex(8)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := adminExec(ctx, shared.admin, "CREATE DATABASE "+name+" TEMPLATE template0 ENCODING 'UTF8'"); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = adminExec(ctx, shared.admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	u := *shared.admin
	u.Path = "/" + name
	return u.String()
}

// Main runs the package's tests, then stops the server if it started one:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.stop()
	}
	os.Exit(code)
}

func adminExec(ctx context.Context, dsn *url.URL, sql string) error {
	conn, err := pgx.Connect(ctx, dsn.String())
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(context.Background()) }()
	_, err = conn.Exec(ctx, sql)
	return err
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// start finds the server to use: EnvDSN's, or one of its own.
func start() (*server, error) {
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		return external(dsn)
	}
	bin, err := binDir()
	if err != nil {
		noBins = true
		return nil, err
	}
	var last error
	for range 3 { // another process may take the free port first
		s, err := startLocal(bin)
		if err == nil {
			return s, nil
		}
		last = err
	}
	return nil, last
}

// external checks the server EnvDSN names and keeps its settings, with
// the maintenance database in place of any other.
func external(dsn string) (*server, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("pgtest: %s: %w", EnvDSN, err)
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
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := adminExec(ctx, u, "SELECT 1"); err != nil {
		return nil, fmt.Errorf("pgtest: %s: %w", EnvDSN, err)
	}
	return &server{admin: u}, nil
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
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("pgtest: " + installHint)
}

func version(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// startLocal makes a cluster in a temp dir and starts its server on a
// free loopback port, as a user other than root (PostgreSQL refuses to
// run as root).
func startLocal(bin string) (_ *server, err error) {
	dir, err := os.MkdirTemp("", "quantum-pgtest-")
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
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-locale", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &server{dir: dir, exited: make(chan struct{}), logFile: filepath.Join(dir, "server.log")}
	logf, err := os.Create(s.logFile)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port), "-k", dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=300", "-c", "shared_buffers=128MB")
	cmd.Stdout, cmd.Stderr = logf, logf
	// The server dies with this process, even when a test binary is
	// killed: nothing is left running.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	if err := startPinned(cmd, s.exited); err != nil {
		return nil, fmt.Errorf("pgtest: start postgres: %w", err)
	}
	s.proc = cmd.Process
	s.admin = &url.URL{Scheme: "postgres", User: url.User("postgres"), Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		Path: "/postgres", RawQuery: "sslmode=disable"}
	if err := s.waitReady(); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// startPinned starts cmd from a goroutine locked to its OS thread, which
// waits for the process for as long as it runs: Linux sends the parent-
// death signal when the thread that started a child ends, not the process,
// and the Go runtime may end idle threads.
func startPinned(cmd *exec.Cmd, exited chan<- struct{}) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		// Never unlocked: the thread ends with this goroutine, after the
		// server has exited.
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

// serverUser returns the credentials to run the server with: none when
// not root; the postgres user, or nobody, when root, after giving it the
// temp dir.
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
		return nil, fmt.Errorf("pgtest: running as root, and no postgres or nobody user to run the server as: %w", err)
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

// waitReady polls until the server accepts connections, up to a minute.
func (s *server) waitReady() error {
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := adminExec(ctx, s.admin, "SELECT 1")
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("pgtest: the server exited at start:\n%s", s.logTail())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pgtest: the server did not accept connections within a minute: %w\n%s", err, s.logTail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *server) logTail() string {
	b, _ := os.ReadFile(s.logFile)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}

// stop shuts a server started here down fast (SIGINT), kills it if that
// takes more than ten seconds, and removes its files.
func (s *server) stop() {
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
}
