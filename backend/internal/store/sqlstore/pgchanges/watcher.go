// Package pgchanges tells a PostgreSQL store's read cache (package readcache) when the rows it
// may keep have changed. The triggers of migration 0012 send a notification on Channel from
// every transaction that changes an account's columns, an instance or an app install, by any
// process on the database: this replica, another one, or an operator's `resellerd account`
// command. Since migration 0020 each names the account whose rows changed, and a transaction
// that changes several accounts sends one for each. A Watcher listens on a connection of its own
// and moves the account's version (readcache.Scopes) at each notification that names one, and
// the database's version at one that does not (the simulator's settings, a TRUNCATE, a server
// that has not migrated yet); it does the same at each commit of its own process (Changed,
// ChangedAccounts), whose notification would arrive a moment after the commit returns.
//
// Another process's change reaches the cache when its notification arrives, a fraction of a
// millisecond after that commit on a local network: a read in that window may still see the
// row as it was, as it would from a read replica. A listening connection that dies without a
// word (a network cut, not a restart of the database, which closes it) is found by the ping
// after checkEvery without a notification: until then, up to about 7 s, the cache may serve
// what another process has since changed. While the watcher is not listening (at
// start, after a lost connection, until it listens again) it cannot tell, so every read goes
// to the database and nothing is kept; changes missed meanwhile cannot matter, since the
// version moves again when it listens.
package pgchanges

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// Channel is the channel the triggers of migration 0012 notify.
const Channel = "resellerd_changes"

// Timings of the listening connection.
const (
	// checkEvery is how long the watcher waits for a notification before it pings its
	// connection, so one that died without a word is found within about this long.
	checkEvery = 5 * time.Second
	// pingTimeout bounds that ping, and closing the connection.
	pingTimeout = 2 * time.Second
	// The wait before listening again after a failure: first, and at most (it doubles).
	firstRetry = 100 * time.Millisecond
	maxRetry   = 5 * time.Second
)

// scopeSlots is how many account versions a Watcher keeps (32 KiB).
const scopeSlots = 4096

// Watcher is a readcache.Watcher[uint64] of a PostgreSQL database, which tells changes by
// account (readcache.Scopes).
type Watcher struct {
	cfg *pgx.ConnConfig
	log *slog.Logger

	// gen is the version: odd while the watcher listens. Listening and stopping add one
	// (flipping the parity), a notification or Changed add two (keeping it), so one atomic
	// word says both whether the version can be trusted and what it is.
	gen atomic.Uint64

	// scoped counts the changes of accounts; scopes holds each account's version, in the slot
	// of its id modulo scopeSlots (accounts that share a slot drop each other's entries, which
	// only costs a read). A change takes the next count of scoped as its stamp, then raises
	// each of its accounts' slots to it, so a slot holds the stamp of its latest change and
	// never goes back (readcache.Scopes; see readcache.Cache.put for why).
	scoped atomic.Uint64
	scopes [scopeSlots]atomic.Uint64

	stop    context.CancelFunc
	done    chan struct{}
	failing bool // whether the last listen failed (run's goroutine only)
}

// Start begins listening for changes to the database cfg connects to, in the background,
// until Close; its connection is cfg's, not one of the store's pool.
func Start(ctx context.Context, cfg *pgx.ConnConfig, log *slog.Logger) *Watcher {
	ctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	w := &Watcher{cfg: cfg, log: log, stop: stop, done: make(chan struct{})}
	go w.run(ctx)
	return w
}

// Version returns the database's version, which moves at every change the watcher hears of;
// ok is false while it is not listening.
func (w *Watcher) Version(context.Context) (uint64, bool) {
	g := w.gen.Load()
	return g, g%2 == 1
}

// Changed moves the version: a transaction of this process has committed, and a read that
// starts now must not be served what was kept before it.
func (w *Watcher) Changed() { w.gen.Add(2) }

// ChangedAccounts moves the versions of accounts: a transaction of this process that changed
// only their rows has committed.
func (w *Watcher) ChangedAccounts(accounts []int64) {
	stamp := w.scoped.Add(1)
	for _, id := range accounts {
		raise(w.slot(id), stamp)
	}
}

// raise sets v to stamp unless it holds a later one already: two changes of accounts that share
// a slot may raise it in either order, and it must never go back to a version an entry was
// dated by before a change.
func raise(v *atomic.Uint64, stamp uint64) {
	for {
		old := v.Load()
		if old >= stamp || v.CompareAndSwap(old, stamp) {
			return
		}
	}
}

// Scoped counts the changes of accounts (readcache.Scopes).
func (w *Watcher) Scoped() uint64 { return w.scoped.Load() }

// Scope is the version of account id: the stamp of its latest change (readcache.Scopes).
func (w *Watcher) Scope(id int64) uint64 { return w.slot(id).Load() }

func (w *Watcher) slot(id int64) *atomic.Uint64 {
	return &w.scopes[uint64(id)%scopeSlots]
}

// changed moves what a notification with payload names: the account whose id it is, or the
// database's version when it names none.
func (w *Watcher) changed(payload string) {
	if id, err := strconv.ParseInt(payload, 10, 64); err == nil && id > 0 {
		w.ChangedAccounts([]int64{id})
		return
	}
	w.Changed()
}

// Close stops listening and waits for the connection to close.
func (w *Watcher) Close() {
	w.stop()
	<-w.done
}

// run listens until ctx ends, listening again after each failure, a little later each time
// in a streak of failures; the first failure of a streak is logged, and the recovery.
func (w *Watcher) run(ctx context.Context) {
	defer close(w.done)
	wait := firstRetry
	for {
		listened, err := w.listen(ctx)
		if ctx.Err() != nil {
			return
		}
		if listened {
			wait = firstRetry
		}
		if !w.failing {
			w.log.WarnContext(ctx, "postgres: no change notifications; reads skip the cache until they are back",
				slog.Any("error", err))
			w.failing = true
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(2*wait, maxRetry)
	}
}

// listen connects, listens on Channel and moves the version at each notification, until the
// connection fails or ctx ends; listened says whether it got as far as listening.
func (w *Watcher) listen(ctx context.Context) (listened bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, w.cfg)
	if err != nil {
		return false, err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pingTimeout)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
		return false, err
	}
	w.gen.Add(1) // odd: listening, at a version nothing was kept under
	defer w.gen.Add(1)
	if w.failing {
		w.log.InfoContext(ctx, "postgres: change notifications are back; reads use the cache again")
		w.failing = false
	}
	for {
		if err := w.next(ctx, conn); err != nil {
			return true, err
		}
	}
}

// next waits for one notification and moves the version, or after checkEvery without one
// pings the connection.
func (w *Watcher) next(ctx context.Context, conn *pgx.Conn) error {
	waitCtx, cancel := context.WithTimeout(ctx, checkEvery)
	n, err := conn.WaitForNotification(waitCtx)
	cancel()
	switch {
	case err == nil:
		w.changed(n.Payload)
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case !errors.Is(err, context.DeadlineExceeded):
		return err
	}
	pingCtx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	return conn.Ping(pingCtx)
}
