package devserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/cliflag"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
)

// ApplicationID marks a SQLite database `resellerd dev` created: its PRAGMA application_id,
// "RSDV" in ASCII. It lives in the file's header, so it is read without opening the database
// (a file dev refuses is left exactly as it was) and needs no table or migration; a copy of the
// file keeps it. backend/docs/for-your-tests.md says why it is not a row.
const ApplicationID uint32 = 0x52534456

// dbKind is what a --db file is to dev.
type dbKind int

const (
	dbNew   dbKind = iota // no file, or an empty one: dev creates its database there
	dbDev                 // a SQLite database dev created
	dbOther               // anything else: serve's database, another program's file
)

// devDBKind reads what the file at path is from its header only, so the file keeps its bytes
// and its modification time whatever the answer.
func devDBKind(path string) (dbKind, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return dbNew, nil
	}
	if err != nil {
		return 0, err
	}
	if fi.Size() == 0 && !fileExists(path+"-wal") {
		return dbNew, nil // nothing in it to lose (as `mktemp` leaves it)
	}
	id, err := sqlstore.SQLiteApplicationID(path)
	switch {
	case errors.Is(err, sqlstore.ErrNotSQLite):
		return dbOther, nil
	case err != nil:
		return 0, err
	case id == ApplicationID:
		return dbDev, nil
	}
	return dbOther, nil
}

// IsDevDB reports whether the file at path is a SQLite database dev created, from its header
// only.
func IsDevDB(path string) bool {
	kind, err := devDBKind(path)
	return err == nil && kind == dbDev
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// checkDevDB refuses a --db that dev did not create, before anything opens it: POST /_dev/reset
// deletes dev's database, so dev opens only its own (or a new file).
func checkDevDB(path string) error {
	kind, err := devDBKind(path)
	if err != nil {
		return fmt.Errorf("dev: --db: %w", err)
	}
	if kind == dbOther {
		return fmt.Errorf("%w: dev: --db %s is not a database resellerd dev created (it has no dev marker, "+
			"PRAGMA application_id %#x); dev opens only its own databases, as POST /_dev/reset deletes them: "+
			"give a new path, or run serve on this one", cliflag.ErrUsage, path, ApplicationID)
	}
	return nil
}

// CreateDevDB creates dev's database at path, marked, unless it is already there.
func CreateDevDB(ctx context.Context, path string) error {
	kind, err := devDBKind(path)
	if err != nil || kind != dbNew {
		return err
	}
	if err := sqlstore.CreateSQLite(ctx, path, ApplicationID); err != nil {
		return fmt.Errorf("dev: %w", err)
	}
	return nil
}

// checkResettable refuses a reset of path unless it is a dev database: the file at --db may
// have been replaced while dev ran, and reset deletes it. The refusal is the API's 403 forbidden.
func checkResettable(path string) error {
	kind, err := devDBKind(path)
	if err != nil {
		return fmt.Errorf("dev: reset: %w", err)
	}
	if kind != dbDev {
		return service.Forbidden("reset refused: " + path + " is not marked as a resellerd dev database " +
			"(was the file replaced while dev ran?); reset deletes only a database dev created, so nothing was changed")
	}
	return nil
}

// WarnIfDevDB logs a warning when serve's --db is a database `resellerd dev` created.
func WarnIfDevDB(logger *slog.Logger, db string) {
	path, ok := SQLitePath(db)
	if !ok {
		return // dev databases are SQLite files only
	}
	if kind, err := devDBKind(path); err == nil && kind == dbDev {
		logger.Warn("this database is a resellerd dev database (made for tests and demos): "+
			"dev's POST /_dev/reset deletes it; serve a database of its own for anything to keep",
			slog.String("db", path))
	}
}

// keptAccounts reads the accounts a dev database at --db holds from an earlier run (the table
// openFresh writes beside the store's), so that dev started again on the file serves them and
// prints the first one's key again instead of adding an account: nil for a new file, or for a
// dev database written before dev kept its keys there (dev then adds a fresh account, as it
// always did, and keeps that one from then on).
func keptAccounts(ctx context.Context, db string) (*savedState, error) {
	path, ok := SQLitePath(db)
	if !ok || db == TemporaryDB {
		return nil, nil
	}
	if kind, err := devDBKind(path); err != nil || kind != dbDev {
		return nil, err // checkDevDB has refused any other file
	}
	st, err := readDevState(ctx, path)
	if errors.Is(err, errNoDevState) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("dev: --db %s: %w", path, err)
	}
	return &st, nil
}

// reopen starts the backend on the dev database at --db as an earlier run left it, with the
// accounts keptAccounts read from it (b.accounts) and the clock at the offset saved there.
func (b *backend) reopen(ctx context.Context, st savedState) error {
	b.clock.SetOffset(st.ClockOffset)
	srv, err := b.start(ctx, b.cfg)
	if err != nil {
		return err
	}
	b.srv = srv
	return nil
}

// keepClock closes the backend and records the service clock's offset in the --db file's
// table of dev (writeDevState), so that dev started again on the file goes on at the time the
// service had, not the time of its last reset. Called once serve has returned; ctx has ended.
func (b *backend) keepClock(ctx context.Context) error {
	path, _ := SQLitePath(b.cfg.DB)
	b.close()
	if !IsDevDB(path) {
		return nil // replaced while dev ran: nothing of dev's to write into
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stateIOTimeout)
	defer cancel()
	st := savedState{ClockOffset: b.clock.Offset(), Accounts: b.accounts, ServiceTime: b.clock.Now(), SavedAt: time.Now(), Version: b.version}
	if err := writeDevState(ctx, path, st); err != nil {
		return fmt.Errorf("dev: --db %s: write %s: %w", path, devStateTable, err)
	}
	return nil
}

// ownerOnly makes the files of the SQLite database at path readable by their owner only, before
// dev writes its accounts' keys into it (as the --state file and the env file are).
func ownerOnly(path string) error {
	for _, suffix := range append(dbFiles, "-shm") {
		if err := os.Chmod(path+suffix, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
