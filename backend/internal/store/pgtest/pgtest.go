// Package pgtest starts a throwaway PostgreSQL server for tests, from the initdb and pg_ctl of
// the machine, and hands out a fresh database per test. It is imported by test files only.
//
// One server serves a whole test binary: initdb and the start take a few seconds, while a new
// database takes milliseconds. A test package keeps one Shared in a package variable, calls
// Database (or TestDB, which RESELLER_TEST_STORE points at SQLite or PostgreSQL) in each test,
// and its TestMain is Shared.Main, which stops the server after the tests. When no server can
// be had (the binaries are missing, or the server does not start) Database skips the test with
// the reason.
//
// RESELLER_TEST_POSTGRES_URL points the tests at a running server instead (a URL of a role
// allowed to CREATE DATABASE); each test's database is then dropped when the test ends.
package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the variable that selects an existing server.
const EnvURL = "RESELLER_TEST_POSTGRES_URL"

// startTimeout bounds initdb plus the server's start.
const startTimeout = 5 * time.Minute

// stopTimeout bounds Stop: closing the admin connection and pg_ctl stop (on a loaded host,
// seconds turn into tens of seconds).
const stopTimeout = 2 * time.Minute

// serverOptions tune the throwaway server for tests: durability is worth nothing to a database
// that is deleted at the end (and minimal WAL lets CREATE DATABASE copy files without logging
// them, which halves its time), and every test opens a pool of its own.
func serverOptions() []string {
	return []string{
		"-c listen_addresses=127.0.0.1",
		"-c fsync=off",
		"-c synchronous_commit=off",
		"-c full_page_writes=off",
		"-c wal_level=minimal",
		"-c max_wal_senders=0",
		"-c max_connections=300",
	}
}

// Shared is the one server of a test binary, started on first use. The zero value is ready.
type Shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Database returns the URL of a new, empty database for t, or skips t when no server can be had
// (fails it under CI: see skipOrFail).
func (s *Shared) Database(t testing.TB) string {
	t.Helper()
	s.once.Do(func() { s.srv, s.err = Start(context.Background()) })
	if s.err != nil {
		skipOrFail(t, s.err)
	}
	dsn, err := s.srv.CreateDatabase(context.Background())
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	if s.srv.external {
		t.Cleanup(func() {
			if err := s.srv.dropDatabase(context.Background(), dsn); err != nil {
				t.Errorf("pgtest: %v", err)
			}
		})
	}
	return dsn
}

// Stop stops the server if one was started. Main calls it after m.Run.
func (s *Shared) Stop() error {
	if s.srv == nil {
		return nil
	}
	return s.srv.Stop()
}

// Server is a PostgreSQL server that tests may create databases on.
type Server struct {
	dir      string   // data directory, socket and log; "" for an external server
	runAs    []string // the command prefix that runs a binary as the server's owner
	admin    string   // URL of the maintenance database
	external bool

	mu       sync.Mutex
	conn     *pgx.Conn // to admin; CREATE DATABASE cannot run in a transaction, so not a pool
	next     int
	fileCopy bool // the server knows CREATE DATABASE ... STRATEGY FILE_COPY (PostgreSQL 15)
	durable  bool // run with PostgreSQL's own durability settings (benchmarks; see StartDurable)
}

// Start starts a throwaway server, or connects to the one EnvURL names.
func Start(ctx context.Context) (*Server, error) {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	if u := os.Getenv(EnvURL); u != "" {
		return connect(ctx, &Server{admin: u, external: true})
	}
	s, err := startLocal(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := connect(ctx, s); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// connect opens the admin connection of s.
func connect(ctx context.Context, s *Server) (*Server, error) {
	conn, err := pgx.Connect(ctx, s.admin)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", redact(s.admin), err)
	}
	var version int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		_ = conn.Close(ctx)
		return nil, fmt.Errorf("server version: %w", err)
	}
	s.conn, s.fileCopy = conn, version >= 150000
	return s, nil
}

// startLocal runs initdb and pg_ctl start in a new temporary directory. PostgreSQL refuses to
// run as root, so as root the directory is given to the postgres user and both binaries run
// as that user through runuser.
func startLocal(ctx context.Context) (*Server, error) {
	initdb, pgctl, err := binaries()
	if err != nil {
		return nil, err
	}
	reapOrphans(ctx)
	s, err := newLocal()
	if err != nil {
		return nil, err
	}
	if err := s.initAndStart(ctx, initdb, pgctl); err != nil {
		_ = stopDir(ctx, s.runAs, s.dir) // pg_ctl may have started it before giving up
		_ = os.RemoveAll(s.dir)
		return nil, err
	}
	return s, nil
}

// newLocal makes the server's directory and records this process as its owner, for
// reapOrphans.
func newLocal() (*Server, error) {
	prefix, err := runAs()
	if err != nil {
		return nil, err
	}
	dir, err := ownedTempDir()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("record owner: %w", err)
	}
	return &Server{dir: dir, runAs: prefix}, nil
}

// initAndStart creates the cluster (trust authentication, superuser postgres) and starts it on
// a free loopback port, its socket in the server's directory.
func (s *Server) initAndStart(ctx context.Context, initdb, pgctl string) error {
	data := filepath.Join(s.dir, "data")
	if err := s.run(ctx, initdb, "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync", "--no-instructions"); err != nil {
		return err
	}
	port, err := freePort(ctx)
	if err != nil {
		return err
	}
	if err := s.start(ctx, pgctl, port); err != nil {
		return err
	}
	s.admin = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	return nil
}

// start runs pg_ctl start on the cluster of s, listening on port.
func (s *Server) start(ctx context.Context, pgctl string, port int) error {
	opts := strings.Join(append([]string{"-p " + strconv.Itoa(port), "-k " + s.dir}, s.options()...), " ")
	logFile := filepath.Join(s.dir, "server.log")
	if err := s.run(ctx, pgctl, "-D", filepath.Join(s.dir, "data"), "-o", opts, "-l", logFile, "-w", "-t", "30", "start"); err != nil {
		log, _ := os.ReadFile(logFile)
		return fmt.Errorf("%w\nserver log:\n%s", err, log)
	}
	return nil
}

// binaries finds initdb and pg_ctl on PATH, or else in Debian's versioned directory.
func binaries() (initdb, pgctl string, err error) {
	initdb, err1 := exec.LookPath("initdb")
	pgctl, err2 := exec.LookPath("pg_ctl")
	if err1 == nil && err2 == nil {
		return initdb, pgctl, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	for i := len(dirs) - 1; i >= 0; i-- { // the newest version sorts last
		initdb, pgctl = filepath.Join(dirs[i], "initdb"), filepath.Join(dirs[i], "pg_ctl")
		if isFile(initdb) && isFile(pgctl) {
			return initdb, pgctl, nil
		}
	}
	return "", "", fmt.Errorf("initdb and pg_ctl not found on PATH (install PostgreSQL, or set %s)", EnvURL)
}

// skipOrFail skips t for want of a PostgreSQL server, except under CI (CI set), where a
// PostgreSQL test that does not run is a failure: .ci/run installs PostgreSQL where missing.
func skipOrFail(t testing.TB, err error) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("PostgreSQL tests must run under CI: %s", oneLine(err))
	}
	t.Skipf("PostgreSQL tests skipped: %s", oneLine(err))
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir()
}

// runAs is the prefix that runs the server binaries: nothing for an ordinary user, runuser to
// the postgres user for root.
func runAs() ([]string, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	runuser, err := exec.LookPath("runuser")
	if err != nil {
		return nil, errors.New("running as root and runuser is not on PATH; PostgreSQL refuses to run as root")
	}
	if _, err := user.Lookup("postgres"); err != nil {
		return nil, fmt.Errorf("running as root and there is no postgres user to run the server as: %w", err)
	}
	return []string{runuser, "-u", "postgres", "--"}, nil
}

// dirPrefix starts the name of every server directory, so reapOrphans can find them.
const dirPrefix = "resellerd-pgtest-"

// ownerFile holds the PID of the test process that started the server in the directory.
const ownerFile = "owner.pid"

// ownedTempDir makes the server's directory, owned by the postgres user when running as root.
func ownedTempDir() (string, error) {
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		return "", fmt.Errorf("temporary directory: %w", err)
	}
	if os.Geteuid() != 0 {
		return dir, nil
	}
	u, err := user.Lookup("postgres")
	if err == nil {
		err = chown(dir, u)
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("give %s to the postgres user: %w", dir, err)
	}
	return dir, nil
}

func chown(dir string, u *user.User) error {
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return fmt.Errorf("uid %q: %w", u.Uid, err)
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return fmt.Errorf("gid %q: %w", u.Gid, err)
	}
	return os.Chown(dir, uid, gid)
}

// freePort asks the kernel for a free loopback port. Another process could take it before the
// server binds it; the start then fails with the server's log, which says so.
func freePort(ctx context.Context) (int, error) {
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// run runs one server binary as the server's owner.
func (s *Server) run(ctx context.Context, bin string, args ...string) error {
	argv := append(append(append([]string(nil), s.runAs...), bin), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = s.dir // the postgres user may not be allowed into the caller's directory
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w\n%s", filepath.Base(bin), err, out.Bytes())
	}
	return nil
}

// CreateDatabase creates a new, empty database and returns its URL.
func (s *Server) CreateDatabase(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	name := fmt.Sprintf("resellerd_test_%d_%d", os.Getpid(), s.next)
	create := "CREATE DATABASE " + name
	if s.fileCopy {
		create += " STRATEGY FILE_COPY" // copies template1's files instead of logging each page
	}
	if _, err := s.conn.Exec(ctx, create); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	u, err := url.Parse(s.admin)
	if err != nil {
		return "", fmt.Errorf("admin URL: %w", err)
	}
	u.Path = "/" + name
	return u.String(), nil
}

// dropDatabase drops the database of dsn, closing what is still connected to it.
func (s *Server) dropDatabase(ctx context.Context, dsn string) error {
	u, err := url.Parse(dsn)
	if err != nil {
		return fmt.Errorf("database URL: %w", err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

// Stop closes the admin connection and, for a throwaway server, stops it at once (pg_ctl stop
// -m immediate; by its PID if pg_ctl fails) and removes its directory.
func (s *Server) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if s.conn != nil {
		_ = s.conn.Close(ctx)
	}
	if s.external {
		return nil
	}
	err := stopDir(ctx, s.runAs, s.dir)
	if rmErr := os.RemoveAll(s.dir); err == nil && rmErr != nil {
		err = fmt.Errorf("remove %s: %w", s.dir, rmErr)
	}
	return err
}

// stopDir stops the server of dir: pg_ctl stop -m immediate or, if pg_ctl cannot, SIGQUIT
// (PostgreSQL's immediate shutdown) to the PID in postmaster.pid, once /proc shows that PID is
// the postmaster of this very directory.
func stopDir(ctx context.Context, prefix []string, dir string) error {
	data := filepath.Join(dir, "data")
	_, pgctl, err := binaries()
	if err == nil {
		s := &Server{dir: dir, runAs: prefix}
		if err = s.run(ctx, pgctl, "-D", data, "-m", "immediate", "-w", "stop"); err == nil {
			return nil
		}
	}
	pid, ok := postmasterOf(data)
	if !ok {
		return nil // nothing runs on this directory
	}
	if kerr := syscall.Kill(pid, syscall.SIGQUIT); kerr != nil && !errors.Is(kerr, syscall.ESRCH) {
		return fmt.Errorf("stop server %d: %w (pg_ctl: %w)", pid, kerr, err)
	}
	return nil
}

// postmasterOf returns the PID in data's postmaster.pid when that process is running with data
// on its command line, so a stale file never leads to signalling an unrelated process.
func postmasterOf(data string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if err != nil {
		return 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		return 0, false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !bytes.Contains(cmdline, []byte(data)) {
		return 0, false
	}
	return pid, true
}

// reapOrphans stops the servers of earlier test processes that died without stopping them (a
// test binary killed by -timeout runs no cleanup), and removes their directories.
func reapOrphans(ctx context.Context) {
	prefix, err := runAs()
	if err != nil {
		return
	}
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, dir := range dirs {
		if ownerAlive(dir) {
			continue
		}
		if stopDir(ctx, prefix, dir) == nil {
			_ = os.RemoveAll(dir)
		}
	}
}

// ownerAlive reports whether the test process that made dir may still be running. A directory
// without a readable owner counts as alive (it may be being made right now), so it is left alone.
func ownerAlive(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		return true
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return true
	}
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// oneLine squeezes an error (pgx's and the server log's run over several lines) into one line
// of at most 300 characters, for a skip message that reads at a glance.
func oneLine(err error) string {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	return msg
}

// redact hides the password of a URL in messages.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "the server"
	}
	return u.Redacted()
}
