package sqlstore

import "testing"

// TestChangesCachedRows checks which statements tell the read cache of a change: those that
// may change an account column the store reads, an instance or an app install, and no other,
// so that a load of orders leaves the cache alone.
func TestChangesCachedRows(t *testing.T) {
	t.Parallel()
	var tell changeTeller
	for _, tt := range []struct {
		query string
		want  bool
	}{
		{`SELECT ` + accountColumns + ` FROM accounts WHERE key_hash = $1`, false},
		{`SELECT id FROM accounts WHERE id = $1 FOR NO KEY UPDATE`, false},
		{placeOrder, false},
		{placeOrderInGroup, false},
		{countOrder, false},
		{`UPDATE accounts SET wallet_checked = $1 WHERE id = $2 AND wallet_checked < $3`, false},
		{`INSERT INTO events (id, account_id, name, data, created_at) VALUES ($1, $2, $3, $4, $5)`, false},
		{`UPDATE accounts SET key_hash = $1, key_hint = $2, key_created_at = $3 WHERE id = $4`, true},
		{`UPDATE accounts SET blocked = $1 WHERE id = $2`, true},
		{`UPDATE accounts SET low_balance_alert = $1 WHERE id = $2 AND low_balance_alert = $3`, true},
		// A later column of a SET list whose first subquery has a WHERE of its own.
		{`WITH d(id, d0, d1) AS (VALUES ($1, $2, $3)) UPDATE accounts SET wallet_seq = wallet_seq + 1,
			orders_pending = orders_pending + (SELECT d.d0 FROM d WHERE d.id = accounts.id),
			balance_micros = balance_micros + (SELECT d.d1 FROM d WHERE d.id = accounts.id)
			WHERE accounts.id IN (SELECT id FROM d)`, true},
		{`DELETE FROM accounts WHERE id = $1`, true},
		{`UPDATE instances SET name = $1 WHERE id = $2`, true},
		{`INSERT INTO instances (account_seq, account_id) VALUES ($1, $2)`, false},
		{`INSERT INTO app_installs (instance_id, app_id) VALUES ($1, $2)`, true},
		{`DELETE FROM orders WHERE status = $1 AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.order_id = orders.id)`, false},
		{`WITH v(id) AS (VALUES ($1)) UPDATE instances SET status = $2 WHERE id IN (SELECT id FROM v)`, true},
		{`UPDATE app_installs SET status = $1 WHERE id = $2`, true},
		{`UPDATE sim_settings SET fail_rate = $1 WHERE id = 1`, true},
		{`UPDATE accounts SET instances_total = instances_total + 1 WHERE id = $1`, false},
		{`UPDATE accounts SET instances_active = instances_active + $1 WHERE id = $2 AND EXISTS (SELECT 1 FROM instances)`, false},
	} {
		if got := tell.changes(tt.query); got != tt.want {
			t.Errorf("changes(%.80q) = %v, want %v", tt.query, got, tt.want)
		}
	}
}

// TestUnscopedChanges checks which changes of cached rows name no account, so that a
// transaction making one empties the whole cache rather than its accounts' entries: the
// simulator's settings and a TRUNCATE, and no change of an account's rows. A statement that
// changes no cached row is never unscoped.
func TestUnscopedChanges(t *testing.T) {
	t.Parallel()
	var tell changeTeller
	wants := map[string]cachedChange{
		`UPDATE sim_settings SET fail_rate = $1 WHERE id = 1`: {cached: true, unscoped: true},
		`TRUNCATE instances, app_installs`:                    {cached: true, unscoped: true},
		`UPDATE instances SET name = $1 WHERE id = $2`:        {cached: true},
		`DELETE FROM accounts WHERE id = $1`:                  {cached: true},
		`SELECT fail_rate FROM sim_settings WHERE id = 1`:     {},
	}
	for query, want := range wants {
		for range 2 { // worked out, then remembered
			if got := tell.change(query); got != want {
				t.Errorf("change(%.60q) = %+v, want %+v", query, got, want)
			}
		}
	}
}
