package devserver

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/cliflag"
	seedpkg "github.com/reseller/terraform-provider-reseller/backend/internal/seed"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore" // registers the "sqlite" driver too
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// A saved copy of dev's whole service (a checkpoint, the --state file) is one SQLite file: the
// database as VACUUM INTO copies it, still marked as a dev database, plus devStateTable, which
// holds what lives outside the database. The table is dev's own, written into the copy only, so
// the store's schema and migrations never see it.
const devStateTable = "resellerd_dev_state"

// devStateFormat is the version of devStateTable's rows; a file of another version is refused.
const devStateFormat = "1"

// stateIOTimeout bounds a save or a restore of the whole service (a copy of a dev database takes
// well under a second).
const stateIOTimeout = 2 * time.Minute

// machinesIOTimeout bounds the same under --machines sandbox, where the machines are stopped
// and booted again and their disks copied (sparsely: the blocks their files took).
const machinesIOTimeout = 10 * time.Minute

// savedState is what a copy of the service carries beside its database.
type savedState struct {
	// ClockOffset is how far the service clock ran ahead of real time: it is kept, so the
	// service's time goes on from where it was plus the real time passed since.
	ClockOffset time.Duration
	// Accounts are the seed (or the fresh account) POST /_dev/reset starts again from, keys
	// included: the first key is the one the export lines print, and the database holds only
	// the keys' hashes. The file is written with mode 0600, as the env file.
	Accounts []seedpkg.Account
	// ServiceTime and SavedAt are the service's and the wall clock's time of the save, for
	// whoever reads the file with sqlite3.
	ServiceTime, SavedAt time.Time
	// Version is the resellerd that saved it (Options.Version), for the same readers.
	Version string
}

// errNoDevState is readDevState's error for a SQLite file without devStateTable.
var errNoDevState = errors.New("no " + devStateTable + " table")

// writeDevState writes st into the SQLite file at path (a copy being prepared), replacing any
// rows an earlier save left in it.
func writeDevState(ctx context.Context, path string, st savedState) error {
	accounts, err := json.Marshal(st.Accounts)
	if err != nil {
		return err
	}
	rows := [][2]string{
		{"format", devStateFormat},
		{"clock_offset_ns", strconv.FormatInt(int64(st.ClockOffset), 10)},
		{"accounts", string(accounts)},
		{"service_time", st.ServiceTime.UTC().Format(time.RFC3339Nano)},
		{"saved_at", st.SavedAt.UTC().Format(time.RFC3339Nano)},
		{"resellerd_version", st.Version},
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS ` + devStateTable + ` (name TEXT PRIMARY KEY, value TEXT NOT NULL)`,
		`DELETE FROM ` + devStateTable,
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	for _, r := range rows {
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+devStateTable+` (name, value) VALUES (?, ?)`, r[0], r[1]); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return db.Close()
}

// readDevState reads what writeDevState wrote into the SQLite file at path, opening it read-only.
func readDevState(ctx context.Context, path string) (savedState, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return savedState{}, err
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, devStateTable).Scan(&n); err != nil {
		return savedState{}, err
	}
	if n == 0 {
		return savedState{}, errNoDevState
	}
	rows, err := db.QueryContext(ctx, `SELECT name, value FROM `+devStateTable)
	if err != nil {
		return savedState{}, err
	}
	defer rows.Close()
	values := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return savedState{}, err
		}
		values[k] = v
	}
	if err := rows.Err(); err != nil {
		return savedState{}, err
	}
	return parseDevState(values)
}

// parseDevState reads the rows of devStateTable.
func parseDevState(values map[string]string) (savedState, error) {
	if values["format"] != devStateFormat {
		return savedState{}, fmt.Errorf("%s: format %q, want %q", devStateTable, values["format"], devStateFormat)
	}
	var st savedState
	offset, err := strconv.ParseInt(values["clock_offset_ns"], 10, 64)
	if err != nil || offset < 0 {
		return savedState{}, fmt.Errorf("%s: clock_offset_ns %q is not an offset", devStateTable, values["clock_offset_ns"])
	}
	st.ClockOffset = time.Duration(offset)
	if err := json.Unmarshal([]byte(values["accounts"]), &st.Accounts); err != nil {
		return savedState{}, fmt.Errorf("%s: accounts: %w", devStateTable, err)
	}
	if len(st.Accounts) == 0 {
		return savedState{}, fmt.Errorf("%s: accounts: none", devStateTable)
	}
	st.ServiceTime, _ = time.Parse(time.RFC3339Nano, values["service_time"]) // for people only
	st.SavedAt, _ = time.Parse(time.RFC3339Nano, values["saved_at"])
	return st, nil
}

// replaceFileAtomic puts a new file at path, written by write into a temporary file of path's
// directory: the temporary file is flushed to disk, then renamed over path, and the directory
// flushed too. path is thus either its old file or the complete new one, whatever happens
// meanwhile (a failed write, a crash, a full disk); a failed write leaves no temporary file.
// The file gets mode 0600: a saved service holds its accounts' keys.
func replaceFileAtomic(path string, write func(tmp string) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".resellerd-state-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
			_ = os.Remove(tmp + "-journal") // SQLite's, should a write have stopped mid-transaction
		}
	}()
	if err := f.Close(); err != nil {
		return err
	}
	if err := write(tmp); err != nil {
		return err
	}
	if err := syncPath(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return syncPath(dir)
}

// syncPath flushes the file or directory at path to disk.
func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// checkMarked fails unless the SQLite file at path carries dev's marker (see ApplicationID).
func checkMarked(path string) error {
	id, err := sqlstore.SQLiteApplicationID(path)
	if err != nil {
		return err
	}
	if id != ApplicationID {
		return fmt.Errorf("%s: application_id %#x, want dev's %#x", path, id, ApplicationID)
	}
	return nil
}

// save writes the whole service to path atomically (replaceFileAtomic): a copy of its database
// and the clock's offset, and under --machines sandbox its machines' disks beside
// (devapi.MachinesDir). It holds the backend for writing, so no request runs meanwhile and the
// database and the clock are of one moment (a clock move holds the backend while it runs the
// workers). It returns the service's time saved.
func (b *backend) save(ctx context.Context, path string) (time.Time, error) {
	return b.saveThen(ctx, path, true)
}

// saveThen is save, which under --machines sandbox stops the backend for the copy (see
// machines.go) and, with resume, starts it again after; without, it leaves it closed (dev's
// exit). The database's copy and the disks' are then of one moment, no machine running.
func (b *backend) saveThen(ctx context.Context, path string, resume bool) (at time.Time, err error) {
	if b.machinesDir() != "" {
		// Once the backend is closed, a client hanging up must not leave the service without one.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), machinesIOTimeout)
		defer cancel()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.machinesDir() != "" {
		start, err := b.stopForCopy()
		if err != nil {
			return time.Time{}, err
		}
		if resume {
			defer func() { err = errors.Join(err, start(ctx)) }()
		}
	}
	live, _ := SQLitePath(b.cfg.DB) // dev's database is always SQLite (the command's parseDev)
	st := savedState{ClockOffset: b.clock.Offset(), Accounts: b.accounts, ServiceTime: b.clock.Now(), SavedAt: time.Now(),
		Version: b.version}
	if b.machinesDir() != "" {
		if err := b.saveDisks(ctx, path); err != nil {
			return time.Time{}, fmt.Errorf("dev: save the machines' disks: %w", err)
		}
	}
	err = replaceFileAtomic(path, func(tmp string) error {
		if err := sqlstore.CopySQLite(ctx, live, tmp); err != nil {
			return err
		}
		if err := writeDevState(ctx, tmp, st); err != nil {
			return fmt.Errorf("dev: write %s: %w", devStateTable, err)
		}
		return checkMarked(tmp)
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("dev: save: %w", err)
	}
	return st.ServiceTime, nil
}

// restore replaces the running service by the one save wrote to path (a checkpoint): the backend
// is closed, its database replaced by a copy of the file (and under --machines sandbox its
// machines by copies of the disks saved beside, so that machines made since are gone and those
// of the checkpoint boot from their saved disks in their saved power state), the clock's offset put back, and a new
// backend started, with the fail rate the copy holds. Like reset, it waits for the requests in
// flight and drops the work they started; every key of the copy keeps working. It changes
// nothing unless the copy is ready and marked, and it refuses (403, as reset does) to delete a
// database that is no longer marked as dev's. Should the new backend fail to start, the old one
// serves again (backend.replace).
func (b *backend) restore(ctx context.Context, path string) error {
	// Once the backend is closed, a client hanging up must not leave the service without one.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.ioTimeout())
	defer cancel()
	st, err := readDevState(ctx, path)
	if err != nil {
		return fmt.Errorf("dev: restore: %w", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	live, _ := SQLitePath(b.cfg.DB)
	if b.srv != nil { // down, the database may be gone
		if err := checkResettable(live); err != nil {
			return err
		}
	}
	staged, err := stageCopy(ctx, path, live)
	if err != nil {
		return fmt.Errorf("dev: restore: %w", err)
	}
	defer os.Remove(staged) // moved to live unless something failed first
	disks, err := b.stageDisks(ctx, path)
	if err != nil {
		return fmt.Errorf("dev: restore the machines' disks: %w", err)
	}
	defer dropStaged(disks) // moved to --machines-dir unless something failed first
	return b.replace(ctx, "restore", func(ctx context.Context) (*resellerd.Server, error) {
		if err := os.Rename(staged, live); err != nil {
			return nil, err
		}
		if err := b.moveDisks(disks, b.machinesDir()); err != nil {
			return nil, err
		}
		b.clock.SetOffset(st.ClockOffset)
		cfg := b.cfg
		cfg.KeepFailRate = true // the checkpoint's, as PUT /_dev/fail-rate left it then
		return b.start(ctx, cfg)
	})
}

// stageCopy copies the saved service at path into a new file beside live and checks its marker,
// so that the running backend stops only once its replacement is ready.
func stageCopy(ctx context.Context, path, live string) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(live), ".resellerd-restore-*")
	if err != nil {
		return "", err
	}
	staged := f.Name()
	_ = f.Close()
	if err := sqlstore.CopySQLite(ctx, path, staged); err != nil {
		_ = os.Remove(staged)
		return "", err
	}
	if err := checkMarked(staged); err != nil {
		_ = os.Remove(staged)
		return "", err
	}
	return staged, nil
}

// replaceDB puts the staged database at live, removing live's files (the closed store's WAL and
// shared memory included).
func replaceDB(staged, live string) error {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if err := os.Remove(live + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			_ = os.Remove(staged)
			return err
		}
	}
	return os.Rename(staged, live)
}

// openState starts the backend on a copy of the --state file at path, which stateAtStart read
// as st: the clock runs at the offset saved, and --fail-rate applies as on every start. Under
// --machines sandbox the machines' disks saved beside the file (devapi.MachinesDir) take the
// place of --machines-dir's first, so the backend boots the machines the file says are online.
func (b *backend) openState(ctx context.Context, path string, st savedState) error {
	live, _ := SQLitePath(b.cfg.DB)
	staged, err := stageCopy(ctx, path, live)
	if err != nil {
		return fmt.Errorf("dev: --state %s: %w", path, err)
	}
	if err := b.loadStateDisks(ctx, path); err != nil {
		_ = os.Remove(staged)
		return fmt.Errorf("dev: --state %s: the machines' disks: %w", path, err)
	}
	if err := replaceDB(staged, live); err != nil {
		return fmt.Errorf("dev: --state %s: %w", path, err)
	}
	b.clock.SetOffset(st.ClockOffset)
	srv, err := b.start(ctx, b.cfg)
	if err != nil {
		return err
	}
	b.srv = srv
	return nil
}

// stateAtStart reads the --state file dev starts from: nil when there is none yet (no file, or
// an empty one), which dev writes at exit. A file that is not a dev database is refused as `dev
// --db` refuses one, from its header only, before anything opens it; so is a dev database that
// is no state file (it has no keys to print). The file's directory must take a new file now, not
// only at exit.
func stateAtStart(ctx context.Context, path string) (*savedState, error) {
	if path == "" {
		return nil, nil
	}
	kind, err := devDBKind(path)
	if err != nil {
		return nil, fmt.Errorf("dev: --state: %w", err)
	}
	switch kind {
	case dbOther:
		return nil, fmt.Errorf("%w: dev: --state %s is not a state file resellerd dev wrote (it has no dev marker, "+
			"PRAGMA application_id %#x); dev loads and overwrites only its own: give a new path", cliflag.ErrUsage, path, ApplicationID)
	case dbNew:
		return nil, checkStateDir(path)
	}
	st, err := readDevState(ctx, path)
	if errors.Is(err, errNoDevState) {
		return nil, fmt.Errorf("%w: dev: --state %s is a dev database but no state file (it has no %s table, "+
			"so no keys to print); use it with --db, or give a new path", cliflag.ErrUsage, path, devStateTable)
	}
	if err != nil {
		return nil, fmt.Errorf("dev: --state %s: %w", path, err)
	}
	return &st, checkStateDir(path)
}

// checkStateDir makes sure the directory of the --state file exists and takes a new file, so a
// mistake shows at start rather than when the service is written back at exit.
func checkStateDir(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("dev: --state: %w", err)
	}
	f, err := os.CreateTemp(dir, ".resellerd-state-*")
	if err != nil {
		return fmt.Errorf("dev: --state: the directory cannot take the file: %w", err)
	}
	_ = f.Close()
	return os.Remove(f.Name())
}

// writeState writes the whole service back to the --state file at path on a clean exit. The
// listeners are closed by then; ctx has ended (that is how dev stops), so the write has its own
// bound.
func (b *backend) writeState(ctx context.Context, path string, logger *slog.Logger) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.ioTimeout())
	defer cancel()
	at, err := b.saveThen(ctx, path, false)
	if err != nil {
		return fmt.Errorf("dev: --state %s: %w", path, err)
	}
	logger.Info("dev: state written", slog.String("state", path), slog.Time("service_time", at))
	return nil
}
