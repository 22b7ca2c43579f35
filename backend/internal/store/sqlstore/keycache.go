package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// keyCache keeps the accounts that authenticated requests, by key hash, for SQLite, so a read
// request does not look its key up again. An entry lives only while the database has not
// changed: before each lookup the cache reads PRAGMA data_version on a connection of its own,
// which SQLite changes whenever any other connection, of this process or another one (such as
// `resellerd account rotate-key` on the same file), commits. A rotated key, a blocked account or
// any other write therefore empties the cache before the next request is answered: the old key
// stops at once. Only successful lookups are kept, so the cache holds at most one entry per
// account.
type keyCache struct {
	db *sql.DB // the pool the version connection comes from

	mu       sync.Mutex
	conn     *sql.Conn // nil until the first lookup, and after an error
	version  int64
	accounts map[string]store.Account
}

func newKeyCache(db *sql.DB) *keyCache {
	return &keyCache{db: db, accounts: map[string]store.Account{}}
}

// lookup returns the account of hash from the cache while the database is unchanged, and
// otherwise from load, keeping what load found.
func (c *keyCache) lookup(ctx context.Context, hash []byte, load func() (store.Account, error)) (store.Account, error) {
	version, ok := c.current(ctx)
	if !ok {
		return load()
	}
	c.mu.Lock()
	acct, hit := c.accounts[string(hash)]
	c.mu.Unlock()
	if hit {
		return acct, nil
	}
	acct, err := load()
	if err != nil {
		return store.Account{}, err
	}
	c.mu.Lock()
	if c.version == version { // read after the version was: no older than it
		c.accounts[string(hash)] = acct
	}
	c.mu.Unlock()
	return acct, nil
}

// current reads the data version and empties the cache when it moved. ok is false when the
// version cannot be read; the cache is then emptied and bypassed.
func (c *keyCache) current(ctx context.Context) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, err := c.readVersion(ctx)
	if err != nil {
		c.reset()
		return 0, false
	}
	if v != c.version {
		clear(c.accounts)
		c.version = v
	}
	return v, true
}

// readVersion reads PRAGMA data_version on the cache's connection, opening it if needed.
// Called with mu held.
func (c *keyCache) readVersion(ctx context.Context) (int64, error) {
	if c.conn == nil {
		conn, err := c.db.Conn(ctx)
		if err != nil {
			return 0, fmt.Errorf("sqlite: key cache connection: %w", err)
		}
		c.conn = conn
	}
	var v int64
	if err := c.conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("sqlite: data_version: %w", err)
	}
	return v, nil
}

// reset drops the connection and every entry: a new connection's versions say nothing about
// the old one's. Called with mu held.
func (c *keyCache) reset() {
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn = nil
	}
	clear(c.accounts)
	c.version = 0
}

// close releases the cache's connection.
func (c *keyCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reset()
}
