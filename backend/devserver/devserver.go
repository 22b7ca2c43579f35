// Package devserver is the machinery of `resellerd dev`: a backend for tests and demos on a
// database of its own (temporary, or a file marked as dev's), seeded with its accounts, behind
// the test-control API under /_dev/ (backend/internal/devapi) with its request journal and fault
// rules; POST /_dev/reset starts it again from the seed, checkpoints and the --state file save
// and restore the whole service, under --machines sandbox its machines' disks included
// (machines.go). A --db file keeps the accounts' keys (devdb.go), so dev started again on it
// serves the same accounts. The command (backend/cmd/resellerd) parses the flags and serves what
// Run builds. It sits beside backend/resellerd, not under backend/internal, because it builds a
// server (resellerd.New): nothing under backend/internal imports backend/resellerd (backend/layering/imports_test.go).
package devserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/devapi"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	seedpkg "github.com/reseller/terraform-provider-reseller/backend/internal/seed"
	"github.com/reseller/terraform-provider-reseller/backend/internal/seedfile"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// DefaultAccount is the account dev creates when no seed file is given.
var DefaultAccount = service.NewAccount{Balance: money.USD(1000), ServerLimit: 50, OrderLimit: 10, Language: "en"}

// TemporaryDB is the Config.DB that asks Run for a temporary database, removed at exit.
const TemporaryDB = "-"

// Options is what `resellerd dev` runs.
type Options struct {
	Config  resellerd.Config // serve's configuration; DB a SQLite path or TemporaryDB
	EnvFile string           // written with the two export lines once the API listens
	Seed    string           // YAML seed file; empty: one fresh account (DefaultAccount)
	State   string           // file the service is loaded from at start when it exists and written back to at exit
	// JournalSize is how many requests and webhook deliveries the journal keeps (0: off).
	JournalSize int
	// MaxCheckpoints and MaxCheckpointBytes bound the checkpoints kept at once, in number and
	// in bytes on disk: a looping script would otherwise fill the disk.
	MaxCheckpoints     int
	MaxCheckpointBytes int64
	// CheckMachines refuses what the host lacks for Config.Machines, once Run has given it its
	// directory (dev's temporary one unless --machines-dir); nil checks nothing.
	CheckMachines func(resellerd.Config) error
	// Guard is what /_dev/ accepts (its Logger is set to Run's when nil).
	Guard devapi.GuardConfig
	// Scheme is how clients reach the listeners: "http", or "https" with TLS.
	Scheme string
	// Version is resellerd's, recorded in every checkpoint and --state file.
	Version string
}

// ServeFunc serves h (and metrics on their own listener, when configured) until ctx ends,
// calling ready with the listeners' addresses once they accept connections: the command's
// serve loop (listeners, TLS, pprof, graceful stop).
type ServeFunc func(ctx context.Context, h, metrics http.Handler, ready func([]net.Addr)) error

// Run runs `resellerd dev`: a backend for tests and demos on a fresh database, with the
// test-control API under /_dev/, served by serve until ctx ends; the temporary database is
// removed then, and with --state the whole service is written back.
func Run(ctx context.Context, o Options, stdout io.Writer, logger *slog.Logger, serve ServeFunc) error {
	if path, ok := SQLitePath(o.Config.DB); ok && o.Config.DB != TemporaryDB {
		if err := checkDevDB(path); err != nil {
			return err // before anything opens the file
		}
	}
	state, err := stateAtStart(ctx, o.State)
	if err != nil {
		return err
	}
	if state == nil {
		// A --db file dev served before keeps its accounts, as --state does (devdb.go).
		if state, err = keptAccounts(ctx, o.Config.DB); err != nil {
			return err
		}
	}
	accounts, seed, err := startAccounts(o.Seed, state, logger)
	if err != nil {
		return err
	}
	// The process's own directory: the temporary database, the checkpoints.
	dir, err := os.MkdirTemp("", "resellerd-dev-")
	if err != nil {
		return fmt.Errorf("dev: %w", err)
	}
	defer os.RemoveAll(dir)
	keepDB := o.Config.DB != TemporaryDB // a --db file, which keeps its accounts and clock (keepClock)
	if !keepDB {
		o.Config.DB = filepath.Join(dir, "reseller.db")
	}
	if o.Config.Machines.Dir == "" {
		o.Config.Machines.Dir = defaultMachinesDir(o.Config.DB, keepDB, dir)
	}
	if o.CheckMachines != nil {
		if err := o.CheckMachines(o.Config); err != nil {
			return err
		}
	}
	clock := &devapi.OffsetClock{}
	o.Config.Clock, o.Config.Logger = clock, logger
	o.Config.DevSecrets = true // without --secrets-key-file, dev encrypts with its built-in key (secrets.Dev)
	b := &backend{accounts: accounts, clock: clock, version: o.Version}
	controls := newDevControls(o.JournalSize, &o.Config, b)
	b.cfg = o.Config
	switch {
	case state != nil && o.State != "":
		err = b.openState(ctx, o.State, *state)
	case state != nil:
		err = b.reopen(ctx, *state)
	default:
		if err = b.open(ctx); err != nil && seed != nil {
			err = seed.Explain(err)
		}
	}
	if err != nil {
		return err
	}
	defer b.close()
	mux := http.NewServeMux()
	mux.Handle(devapi.Prefix, devapi.New(devapi.Config{Do: b.do, Reset: b.reset, Clock: clock, Logger: logger,
		CheckpointDir: filepath.Join(dir, "checkpoints"), Save: b.save, Load: b.restore,
		MaxCheckpoints: o.MaxCheckpoints, MaxCheckpointBytes: o.MaxCheckpointBytes,
		Journal: controls.journal, Faults: controls.faults}))
	mux.Handle("/", controls.wrap(b))
	if o.Guard.Logger == nil {
		o.Guard.Logger = logger
	}
	// Guard covers every path under /_dev/, whichever handler of mux serves it.
	err = serve(ctx, devapi.Guard(o.Guard, mux), http.HandlerFunc(b.serveMetrics), func(addrs []net.Addr) {
		b.usePublicURL(o.Scheme+"://"+clientHost(addrs[0]), logger)
		b.announce(stdout, logger, o.EnvFile, o.Scheme, addrs[0])
	})
	if err == nil && o.State != "" {
		err = b.writeState(ctx, o.State, logger)
	}
	if err == nil && o.State == "" && keepDB {
		err = b.keepClock(ctx)
	}
	return err
}

// startAccounts are the accounts dev starts with: those of the --state file or of the --db file
// dev served before, when there is one (it wins over --seed, which is then not read), else the
// seed's or one fresh account (devAccounts).
func startAccounts(seedPath string, state *savedState, logger *slog.Logger) ([]seedpkg.Account, *seedfile.File, error) {
	if state == nil {
		return devAccounts(seedPath)
	}
	if seedPath != "" {
		logger.Info("dev: --seed not applied: the service comes from --state or from the --db file dev served before", slog.String("seed", seedPath))
	}
	return state.Accounts, nil, nil
}

// devAccounts are the accounts dev starts with: the seed file's, or one fresh account with a
// random key. Either way their keys stay the same across POST /_dev/reset.
func devAccounts(path string) ([]seedpkg.Account, *seedfile.File, error) {
	if path != "" {
		f, err := seedfile.Read(path)
		if err != nil {
			return nil, nil, err
		}
		return f.Accounts, f, nil
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, nil, fmt.Errorf("dev: %w", err)
	}
	a := DefaultAccount
	a.APIKey = hex.EncodeToString(b)
	return []seedpkg.Account{{NewAccount: a}}, nil, nil
}

// backend is the backend dev serves; POST /_dev/reset replaces it with a fresh one.
type backend struct {
	cfg      resellerd.Config
	accounts []seedpkg.Account
	clock    *devapi.OffsetClock // the service's clock, saved and put back with the database
	mu       sync.RWMutex        // held for reading while a request uses srv, for writing by reset, save and restore
	// srv is the backend now serving. It is never a closed one: nil only when a replacement
	// failed and so did starting the old database again (down says why), which every request
	// answers 503 until a reset succeeds.
	srv     *resellerd.Server
	down    error
	version string // resellerd's, recorded in what save writes
	// newServer starts a backend on a configuration: resellerd.New, which tests replace to make
	// a start fail.
	newServer func(ctx context.Context, cfg resellerd.Config) (*resellerd.Server, error)
	// closeServer closes a backend: its Close, which tests replace to make a close fail.
	closeServer func(srv *resellerd.Server) error
}

// stop closes the backend serving, which is then not used again whatever its Close answers
// (srv nil). An error means part of it may still run: under --machines sandbox a machine whose
// processes outlived their kill, on the disks that a reset, restore or save would move or copy
// next. Dev is then down (errDown, until a reset succeeds) and the caller touches nothing: a
// reset that answered 200 with a machine still running was CI's TestDevMachinesReset failure.
// Called with mu held for writing.
func (b *backend) stop(op string) error {
	if b.srv == nil {
		return nil
	}
	srv := b.srv
	b.srv = nil
	closeServer := (*resellerd.Server).Close
	if b.closeServer != nil {
		closeServer = b.closeServer
	}
	if err := closeServer(srv); err != nil {
		b.down = fmt.Errorf("dev: %s: stopping the service: %w", op, err)
		return b.errDown()
	}
	return nil
}

// start starts a backend on cfg (newServer, resellerd.New when unset).
func (b *backend) start(ctx context.Context, cfg resellerd.Config) (*resellerd.Server, error) {
	if b.newServer != nil {
		return b.newServer(ctx, cfg)
	}
	return resellerd.New(ctx, cfg)
}

// open creates the database, marked as dev's, unless it is there already, seeds it and starts
// the backend on it.
func (b *backend) open(ctx context.Context) error {
	srv, err := b.openFresh(ctx)
	if err != nil {
		return err
	}
	b.srv = srv
	return nil
}

// openFresh creates the database, marked as dev's, unless it is there already, seeds it and
// returns a backend started on it.
func (b *backend) openFresh(ctx context.Context) (*resellerd.Server, error) {
	if path, ok := SQLitePath(b.cfg.DB); ok {
		if err := CreateDevDB(ctx, path); err != nil {
			return nil, err
		}
	}
	cfg := b.cfg
	cfg.KeepFailRate, cfg.FailRate = false, 0 // seeded builds must all finish; New then sets --fail-rate
	if err := resellerd.Seed(ctx, cfg, b.accounts); err != nil {
		return nil, fmt.Errorf("dev: seed: %w", err)
	}
	if path, ok := SQLitePath(b.cfg.DB); ok {
		// The keys, which the database holds only as hashes, so that a dev started again on
		// this --db file prints the same key and keeps its accounts (keptAccounts).
		st := savedState{ClockOffset: b.clock.Offset(), Accounts: b.accounts, ServiceTime: b.clock.Now(), SavedAt: time.Now(), Version: b.version}
		if err := ownerOnly(path); err != nil {
			return nil, fmt.Errorf("dev: %w", err)
		}
		if err := writeDevState(ctx, path, st); err != nil {
			return nil, fmt.Errorf("dev: write %s: %w", devStateTable, err)
		}
	}
	return b.start(ctx, b.cfg)
}

func (b *backend) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	_ = b.stop("exit") // dev's exit: nothing follows that could touch what is left
}

// errDown is the answer of every request while there is no backend (see backend.srv).
func (b *backend) errDown() error {
	return service.Unavailable("dev has no backend: " + b.down.Error() + "; POST /_dev/reset to start again from the seed")
}

func (b *backend) do(fn func(devapi.Backend) error) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.srv == nil {
		return b.errDown()
	}
	return fn(b.srv)
}

// ServeHTTP serves the API of the backend now running.
func (b *backend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.srv == nil {
		api.NewResponder(b.cfg.Logger).Fail(w, r, b.errDown())
		return
	}
	b.srv.Handler().ServeHTTP(w, r)
}

// serveMetrics serves the metrics of the backend now running (each reset starts a new one).
func (b *backend) serveMetrics(w http.ResponseWriter, r *http.Request) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.srv == nil {
		http.Error(w, b.errDown().Error(), http.StatusServiceUnavailable)
		return
	}
	b.srv.MetricsHandler().ServeHTTP(w, r)
}

// reset closes the backend, removes its SQLite database (and under --machines sandbox every
// machine: their processes, network links and cgroups at the close, their disks and snapshots
// after) and starts again from the seed, so every key stays valid and everything else is gone;
// it answers once that is done. It refuses, changing nothing, a database
// that is not marked as dev's (checkResettable). It runs to its end whatever the client does
// (a client hanging up must not stop it half-way), and on a failure the old backend serves
// again (replace).
func (b *backend) reset(ctx context.Context) error {
	path, ok := SQLitePath(b.cfg.DB)
	if !ok {
		return errors.New("dev: reset needs a SQLite database; drop and recreate a PostgreSQL one yourself")
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.ioTimeout())
	defer cancel()
	b.mu.Lock()
	defer b.mu.Unlock()
	if kind, _ := devDBKind(path); b.srv != nil || kind != dbNew { // down, the database may be gone
		if err := checkResettable(path); err != nil {
			return err
		}
	}
	return b.replace(ctx, "reset", b.openFresh)
}

// replace stops the backend and starts the one install makes on --db, in place of it. The old
// database, and under --machines sandbox the disk set of its stopped machines, are first moved
// aside (moveDB, moveDisks), so that on any failure of install they are put back and started
// again, with the clock as it was: a failed reset or restore answers 5xx and leaves the
// old service serving, never a closed backend. Should that start fail too, the backend is down
// (every request answers 503) until a reset succeeds. Called with mu held for writing.
func (b *backend) replace(ctx context.Context, op string, install func(ctx context.Context) (*resellerd.Server, error)) error {
	live, _ := SQLitePath(b.cfg.DB)
	aside := live + ".before-" + op
	offset := b.clock.Offset()
	if err := b.stop(op); err != nil {
		return err
	}
	err := moveDB(live, aside)
	if err == nil {
		err = b.moveDisks(b.machinesDir(), b.disksAside(op))
	}
	if err == nil {
		var srv *resellerd.Server
		if srv, err = install(ctx); err == nil {
			b.srv, b.down = srv, nil
			_ = removeDB(aside)
			b.dropDisks(b.disksAside(op))
			return nil
		}
	}
	err = fmt.Errorf("dev: %s: %w", op, err)
	b.clock.SetOffset(offset)
	back := removeDB(live)
	if back == nil {
		back = moveDB(aside, live)
	}
	if back == nil {
		back = b.moveDisks(b.disksAside(op), b.machinesDir())
	}
	if back == nil {
		cfg := b.cfg
		cfg.KeepFailRate = true // the old service's, as PUT /_dev/fail-rate left it
		b.srv, back = b.start(ctx, cfg)
	}
	if back != nil {
		b.down = errors.Join(err, fmt.Errorf("dev: starting the service as it was: %w", back))
		return b.errDown()
	}
	return fmt.Errorf("%w; the service is back as it was before", err)
}

// dbFiles are the suffixes of a SQLite database's files: the database, its WAL and rollback
// journal, whose content belongs to it, and its shared memory, which SQLite rebuilds.
var dbFiles = []string{"", "-wal", "-journal"}

// moveDB renames the SQLite database at from (with its WAL and journal) to to, removing its
// shared memory; a file that is not there is not moved.
func moveDB(from, to string) error {
	if err := removeDB(to); err != nil {
		return err
	}
	for _, suffix := range dbFiles {
		if err := os.Rename(from+suffix, to+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := os.Remove(from + "-shm"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// removeDB removes the files of the SQLite database at path.
func removeDB(path string) error {
	for _, suffix := range append(dbFiles, "-shm") {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// SQLitePath is the file of a SQLite --db (a path or sqlite:PATH), read as resellerd.ParseDB
// reads every --db.
func SQLitePath(db string) (string, bool) {
	kind, path, err := resellerd.ParseDB(db)
	return path, err == nil && kind == resellerd.DBSQLite
}

// announce prints the two export lines first on stdout and writes them to envFile, once the API
// listens on addr. The console page's address goes to the log (stderr), just before, so stdout
// stays the two lines a shell evals.
func (b *backend) announce(stdout io.Writer, logger *slog.Logger, envFile, scheme string, addr net.Addr) {
	logger.Info("dev console", slog.String("url", scheme+"://"+clientHost(addr)+devapi.ConsolePath))
	lines := exportLines(scheme, addr, b.accounts[0].APIKey)
	fmt.Fprint(stdout, lines)
	if envFile == "" {
		return
	}
	if err := writeFileAtomic(envFile, []byte(lines)); err != nil {
		logger.Error("dev: env file", slog.Any("error", err))
	}
}

// usePublicURL makes u, the listener's own URL, where consoles point, unless --public-url
// set one: for the backend serving now and for those a reset or a restore starts later.
func (b *backend) usePublicURL(u string, logger *slog.Logger) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cfg.PublicURL != "" {
		return
	}
	b.cfg.PublicURL = u
	if b.srv == nil {
		return
	}
	if err := b.srv.SetPublicURL(u); err != nil {
		logger.Error("dev: public URL", slog.Any("error", err))
	}
}

// exportLines are the shell lines naming the endpoint and the first account's key.
func exportLines(scheme string, addr net.Addr, key string) string {
	return fmt.Sprintf("export RESELLER_ENDPOINT=%s://%s/api/v1\nexport RESELLER_API_KEY=%s\n", scheme, clientHost(addr), key)
}

// clientHost is how a client on this machine reaches addr: an unspecified listen address
// (0.0.0.0, [::]) is named as loopback, which reaches it.
func clientHost(addr net.Addr) string {
	if ta, ok := addr.(*net.TCPAddr); ok && ta.IP.IsUnspecified() {
		return net.JoinHostPort("127.0.0.1", fmt.Sprint(ta.Port))
	}
	return addr.String()
}

// writeFileAtomic writes data to path through a temporary file renamed over it, so a job
// waiting for path never reads half of it; the file holds a key, so only its owner reads it.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".resellerd-env-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
