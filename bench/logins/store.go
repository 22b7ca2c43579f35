package main

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	_ "modernc.org/sqlite"
)

// storeLayout is how the SQLite store writes a time (backend/internal/store/sqlstore).
const storeLayout = "2006-01-02T15:04:05.000000000Z"

// storeFinishTimes reads each order's finished_at from serve's database, read-only: the same
// instant the API reports, which the API writes in whole seconds (RFC 3339) and the store keeps
// to the nanosecond. It refuses a store time that does not round down to the API's, so both
// name one event. ok is true when every order's was read.
func storeFinishTimes(ctx context.Context, dbPath string, logins []login) (ok bool, err error) {
	db, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro")
	if err != nil {
		return false, fmt.Errorf("open the database read-only: %w", err)
	}
	defer db.Close()
	for i := range logins {
		l := &logins[i]
		var text sql.NullString
		if err := db.QueryRowContext(ctx, `SELECT finished_at FROM orders WHERE id = ?`, l.orderID).Scan(&text); err != nil {
			return false, fmt.Errorf("order %d's finished_at in the store: %w", l.orderID, err)
		}
		stored, err := time.Parse(storeLayout, text.String)
		if err != nil {
			return false, fmt.Errorf("order %d's finished_at %q in the store: %w", l.orderID, text.String, err)
		}
		if !stored.Truncate(time.Second).Equal(l.finished) {
			return false, fmt.Errorf("order %d: the store's finished_at %s is not the API's %s", l.orderID,
				stored.Format(time.RFC3339Nano), l.finished.Format(time.RFC3339))
		}
		l.stored = stored
	}
	return true, nil
}
