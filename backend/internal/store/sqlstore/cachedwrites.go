package sqlstore

import (
	"context"
	"database/sql"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// On PostgreSQL the read cache hears of other processes' changes through notifications
// (pgchanges), and of this process's own at once, when the statement or transaction that made
// them returns. Only the changes migration 0012's triggers notify matter: a column of an
// account that the store reads, an instance, an app install, the simulator's fail rate.
// Telling the cache of every commit would empty it at every order, so that under a load of
// orders every request's key would be read from the database again. A transaction tells the
// accounts it locked (ChangedAccounts), whose entries alone are dropped: every row it writes
// belongs to an account it locked first (the package comment's "account first"), as the
// notification it sends names. A statement outside a transaction, or one whose change names no
// account (the simulator's settings, a TRUNCATE), tells the database's version, which empties
// the cache.

// autocommits is the pool as the store's statements outside transactions use it on
// PostgreSQL, where each commits on its own: each waits for its connection's turn (turns), and
// one that changes cached rows tells committed once it returns. (A statement read through rows
// commits when they are read to the end, a moment later; the change notification covers that
// moment.)
type autocommits struct {
	*sql.DB
	tell  *changeTeller
	turns *turns
}

func (a autocommits) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	release, err := a.turns.takeStatement(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	defer a.after(query)
	return a.DB.ExecContext(ctx, query, args...)
}

func (a autocommits) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	release, err := a.turns.takeStatement(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	defer a.after(query)
	return a.DB.QueryContext(ctx, query, args...) //nolint:sqlclosecheck // the caller closes them
}

// QueryRowContext runs the query in its turn. A *sql.Row cannot carry an error of its own, so a
// context that ends while the statement waits for its turn is left to database/sql, which then
// returns the context's error from Scan without running the query.
func (a autocommits) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if release, err := a.turns.takeStatement(ctx); err == nil {
		defer release()
	}
	defer a.after(query)
	return a.DB.QueryRowContext(ctx, query, args...)
}

func (a autocommits) after(query string) {
	if a.tell.changes(query) {
		a.tell.committed()
	}
}

// watchedTx is a transaction on PostgreSQL that notes whether a statement changed cached
// rows, and whether one changed rows of no account, so that plainTx tells the cache at its
// commit only then, and what.
type watchedTx struct {
	*sql.Tx
	tell     *changeTeller
	changed  bool
	unscoped bool
}

func (w *watchedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	w.note(query)
	return w.Tx.ExecContext(ctx, query, args...)
}

func (w *watchedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	w.note(query)
	return w.Tx.QueryContext(ctx, query, args...) //nolint:sqlclosecheck // the caller closes them
}

func (w *watchedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	w.note(query)
	return w.Tx.QueryRowContext(ctx, query, args...)
}

// note records that the transaction changes cached rows if query does. A transaction's
// statements run one at a time, so changed needs no lock.
func (w *watchedTx) note(query string) {
	if c := w.tell.change(query); c.cached {
		w.changed = true
		w.unscoped = w.unscoped || c.unscoped
	}
}

// committed tells the cache of the transaction's commit, if it changed cached rows: the
// accounts it locked, or the database's version when it locked none or changed rows of no
// account.
func (w *watchedTx) committed(locks *txLocks) {
	switch {
	case !w.changed:
	case w.unscoped || locks == nil || len(locks.accounts) == 0:
		w.tell.committed()
	default:
		w.tell.committedAccounts(slices.Collect(maps.Keys(locks.accounts)))
	}
}

// unscopedChange finds the changes to cached rows that belong to no account: the simulator's
// settings and a TRUNCATE.
var unscopedChange = regexp.MustCompile(`(?i)\bsim_settings\b|\bTRUNCATE\b`)

// cachedTables finds a statement that writes a table the cache keeps rows of, as migration
// 0012's triggers see it: an UPDATE, DELETE or TRUNCATE of instances, app_installs or
// sim_settings, or an INSERT into app_installs (an instance's installs change; a new instance
// changes no row kept, since nothing is kept for a row not found).
var cachedTables = regexp.MustCompile(`(?i)\b(?:UPDATE|DELETE\s+FROM|TRUNCATE)\s+(?:instances|app_installs|sim_settings)\b|` +
	`\bINSERT\s+INTO\s+app_installs\b`)

// accountsChange finds a statement's changes to accounts: what follows an UPDATE's SET (to
// the end of the statement, subqueries and WHERE included, which only errs on the safe side),
// or a DELETE or TRUNCATE.
var accountsChange = regexp.MustCompile(`(?is)\bUPDATE\s+accounts\s+SET\s+(.*)|\b(DELETE\s+FROM|TRUNCATE)\s+accounts\b`)

// cachedAccountColumns are the account columns the store reads (accountColumns, but id, which
// never changes), which 0012's trigger on accounts names; TestPostgresTriggersCoverTheCache
// keeps them in step.
var cachedAccountColumns = regexp.MustCompile(`(?i)\b(` +
	strings.Join(slices.DeleteFunc(strings.Split(strings.Join(strings.Fields(accountColumns), ""), ","),
		func(c string) bool { return c == "id" }), "|") + `)\b`)

// changeTeller tells the read cache of a PostgreSQL store of this process's changes to cached
// rows: committed moves the cache's version (pgchanges.Watcher.Changed).
type changeTeller struct {
	committed func()
	// committedAccounts moves the versions of the accounts given (pgchanges.Watcher.ChangedAccounts).
	committedAccounts func([]int64)
	// known maps a statement's text to its cachedChange; the store's texts are a fixed set (a
	// batch's vary with its length, which is bounded).
	known sync.Map
}

// cachedChange is what a statement may change of the rows the read cache keeps.
type cachedChange struct {
	cached   bool // it may change a cached row (findsCachedChange)
	unscoped bool // and rows of no account (unscopedChange)
}

// changes reports whether a statement may change a row the read cache keeps (cachedTables, or
// an UPDATE of accounts that sets a column the store reads, or a DELETE from accounts), as the
// triggers of migration 0012 would notify it.
func (c *changeTeller) changes(query string) bool { return c.change(query).cached }

// change is what query may change of the cached rows, worked out once per statement text.
func (c *changeTeller) change(query string) cachedChange {
	if v, ok := c.known.Load(query); ok {
		return v.(cachedChange)
	}
	cached := findsCachedChange(query)
	v := cachedChange{cached: cached, unscoped: cached && unscopedChange.MatchString(query)}
	c.known.Store(query, v)
	return v
}

func findsCachedChange(query string) bool {
	if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(query)), "SELECT") {
		return false
	}
	if cachedTables.MatchString(query) {
		return true
	}
	for _, m := range accountsChange.FindAllStringSubmatch(query, -1) {
		if m[2] != "" || cachedAccountColumns.MatchString(m[1]) {
			return true
		}
	}
	return false
}
