package sqlstore

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore/pgchanges"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore/readcache"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/storetest"
)

// replicasOfOne opens two stores on one new database, as two replicas: s, whose reads reads
// counts, once its change watcher listens, and other.
func replicasOfOne(t *testing.T) (s, other *Store, reads *storetest.Reads) {
	t.Helper()
	url := pg.Database(t)
	reads = &storetest.Reads{}
	s = mustOpen(t, OpenPostgres, url, WithReadHook(reads.Hook))
	other = openURL(t, url)
	listening(t, s)
	return s, other, reads
}

// listening waits until the store's change watcher listens, as a replica's does a moment after
// it opens, and fails the test after eventWait.
func listening(t *testing.T, s *Store) {
	t.Helper()
	w := s.cache.(*readcache.Cache[cacheKey, uint64]).Watcher()
	eventually(t, "the change watcher to listen", func() bool { _, ok := w.Version(context.Background()); return ok })
}

// eventWait bounds a test's wait for something to happen. It only keeps a broken test from
// hanging: a loaded CI host is many times slower than an idle one, and the tests assert no
// speed.
const eventWait = time.Minute

// eventually polls cond every 10 ms and fails the test if it does not hold within eventWait.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(eventWait); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", eventWait, what)
		}
	}
}

// getInstance reads what GET /instances/{id} reads on PostgreSQL: the account of the key, and
// the instance with its app installs.
func getInstance(t *testing.T, s *Store, a store.Account, id int64) (store.Account, store.Instance, []store.AppInstall) {
	t.Helper()
	ctx := context.Background()
	acct, err := s.AccountByKeyHash(ctx, a.KeyHash)
	if err != nil {
		t.Fatal(err)
	}
	in, installs, err := s.InstanceWithInstalls(ctx, a.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return acct, in, installs
}

// servedFromCache reads the instance until a read runs no SQL: the notifications of the
// writes that made it may still be on their way when the first read keeps it.
func servedFromCache(t *testing.T, s *Store, reads *storetest.Reads, a store.Account, id int64) {
	t.Helper()
	eventually(t, "a read served from the cache", func() bool {
		reads.Take()
		getInstance(t, s, a, id)
		return reads.Take().All == 0
	})
}

// TestPostgresCacheServesUnchangedRowsWithoutSQL shows that on PostgreSQL the repeated reads of
// GET /instances/{id} run no SQL while nothing changes; that this process's own writes, in a
// transaction or alone, are seen by its next read; and that another replica's changes to the
// instance, its installs and the account are seen once their notification arrives.
func TestPostgresCacheServesUnchangedRowsWithoutSQL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, other, reads := replicasOfOne(t)
	a := newTestAccount(t, s, "pgcache", 1)
	made := newCachedInstance(t, s, a.ID)

	servedFromCache(t, s, reads, a, made.ID)
	for range 20 {
		if _, in, installs := getInstance(t, s, a, made.ID); in.Name != made.Name || len(installs) != 1 {
			t.Fatalf("a cached read returned %q with %d installs, want %q with 1", in.Name, len(installs), made.Name)
		}
	}
	if n := reads.Take(); n.All != 0 {
		t.Fatalf("20 reads of an unchanged instance ran SQL: %v, want none", n)
	}
	err := s.WithTx(ctx, func(tx store.Tx) error { // an order changes no cached row
		_, err := tx.(queries).createOrder(ctx, store.Order{AccountID: a.ID, Status: store.OrderPending, Price: 4_000,
			CreatedAt: time.Now().UTC(), PlanID: 101, TemplateID: 1})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	reads.Take()
	getInstance(t, s, a, made.ID)
	if n := reads.Take(); n.All != 0 {
		t.Fatalf("after an order the reads ran SQL: %v, want none (an order changes no cached row)", n)
	}

	renamed := made
	renamed.Name = "renamed-alone" // a statement outside any transaction
	if err := s.UpdateInstance(ctx, renamed); err != nil {
		t.Fatal(err)
	}
	if _, got, _ := getInstance(t, s, a, made.ID); got.Name != renamed.Name {
		t.Fatalf("after a rename by this process: %q, want %q at once", got.Name, renamed.Name)
	}
	renamed.Name = "renamed-in-tx"
	if err := s.WithTx(ctx, func(tx store.Tx) error { return tx.UpdateInstance(ctx, renamed) }); err != nil {
		t.Fatal(err)
	}
	if _, got, _ := getInstance(t, s, a, made.ID); got.Name != renamed.Name {
		t.Fatalf("after a rename in a transaction of this process: %q, want %q at once", got.Name, renamed.Name)
	}

	renamed.Name = "renamed-by-other"
	if err := other.UpdateInstance(ctx, renamed); err != nil {
		t.Fatal(err)
	}
	eventually(t, "another replica's rename", func() bool { _, in, _ := getInstance(t, s, a, made.ID); return in.Name == renamed.Name })
	if err := other.SetAccountFlag(ctx, a.ID, store.FlagBlocked, true); err != nil {
		t.Fatal(err)
	}
	eventually(t, "another replica's block", func() bool { acct, _, _ := getInstance(t, s, a, made.ID); return acct.Blocked })
	// A statement on the other replica's pool, past its store: as from psql.
	if _, err := other.db.ExecContext(ctx, `UPDATE app_installs SET status = $1 WHERE instance_id = $2`, store.InstallFailed, made.ID); err != nil {
		t.Fatal(err)
	}
	eventually(t, "another connection's install change", func() bool {
		_, _, installs := getInstance(t, s, a, made.ID)
		return installs[0].Status == store.InstallFailed
	})
}

// TestPostgresCacheReadsThroughWhileDeaf changes the instance from another connection in the
// transaction that ends the watcher's listening connection, so the change's notification (sent
// at the commit) reaches no listener: the change is still seen, because the cache is not used
// while the watcher does not listen and starts afresh when it listens again. (Ending the
// connection first and then waiting for the deaf window to make the change raced the watcher's
// reconnection, 100 ms later, on a loaded host.)
func TestPostgresCacheReadsThroughWhileDeaf(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pg.Database(t)
	var reads storetest.Reads
	s := mustOpen(t, OpenPostgres, url, WithReadHook(reads.Hook))
	listening(t, s)
	a := newTestAccount(t, s, "deaf", 1)
	made := newCachedInstance(t, s, a.ID)
	servedFromCache(t, s, &reads, a, made.ID)

	raw, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	tx, err := raw.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `UPDATE instances SET name = 'renamed-while-deaf' WHERE id = $1`, made.ID); err != nil {
		t.Fatal(err)
	}
	var ended int
	err = tx.QueryRowContext(ctx, `SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity
		WHERE datname = current_database() AND query = 'LISTEN `+"resellerd_changes"+`'`).Scan(&ended)
	if err != nil || ended != 1 {
		t.Fatalf("ended %d listening connections (%v), want 1", ended, err)
	}
	if err := tx.Commit(); err != nil { // the listener is gone (terminate waited): no one hears it
		t.Fatal(err)
	}
	eventually(t, "the rename made while the watcher was deaf", func() bool {
		_, in, _ := getInstance(t, s, a, made.ID)
		return in.Name == "renamed-while-deaf"
	})
	listening(t, s)
}

// TestPostgresTriggersCoverTheCache keeps migration 0012's triggers in step with the store: each
// table the cache keeps rows of notifies its changes and is in cachedTables (accounts through
// its columns), and an update of any column a cached account holds notifies.
func TestPostgresTriggersCoverTheCache(t *testing.T) {
	t.Parallel()
	s, _ := openFresh(t)
	rows, err := s.db.QueryContext(context.Background(), `SELECT event_object_column
		FROM information_schema.triggered_update_columns WHERE trigger_name = 'accounts_notify_change'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var col string
		if err := rows.Scan(&col); err != nil {
			t.Fatal(err)
		}
		got = append(got, col)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"accounts", "instances", "app_installs", "sim_settings"} {
		var n int
		err := s.db.QueryRowContext(context.Background(), `SELECT count(*) FROM information_schema.triggers
			WHERE event_object_table = $1 AND action_statement LIKE '%resellerd_notify_change%'`, table).Scan(&n)
		if err != nil || n == 0 {
			t.Errorf("no trigger on %s notifies its changes (%v), and the read cache keeps its rows", table, err)
		}
		if !cachedTables.MatchString("UPDATE "+table+" SET x = 1") && table != "accounts" {
			t.Errorf("an update of %s does not tell this process's cache (cachedTables)", table)
		}
	}
	for _, col := range strings.Split(accountColumns, ",") {
		if col = strings.TrimSpace(col); col != "id" && !slices.Contains(got, col) {
			t.Errorf("an update of accounts.%s notifies nothing; add it to the trigger (cached columns %s)", col, got)
		}
	}
}

// TestPostgresCacheKeepsTheFailRate: the simulator's fail rate, read at every simulated
// operation, runs no SQL while unchanged; this replica's change is seen at once, another's once
// its notification arrives.
func TestPostgresCacheKeepsTheFailRate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, other, reads := replicasOfOne(t)
	rate := func() float64 {
		r, err := s.SimFailRate(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	eventually(t, "a fail rate served from the cache", func() bool {
		reads.Take()
		rate()
		return reads.Take().All == 0
	})
	if err := s.SetSimFailRate(ctx, 0.25); err != nil {
		t.Fatal(err)
	}
	if got := rate(); got != 0.25 {
		t.Fatalf("after this replica set 0.25: %v at once", got)
	}
	if err := other.SetSimFailRate(ctx, 0.5); err != nil {
		t.Fatal(err)
	}
	eventually(t, "another replica's fail rate", func() bool { return rate() == 0.5 })
}

// TestPostgresCacheDropsOnlyTheChangedAccount: a change drops the cached rows of the account it
// was to, and no other account's, whether this process's transaction made it (a deploy batch's
// charge, seen at once) or another replica (seen once its notification arrives); a change of no
// account's rows (the simulator's fail rate) drops every entry. Under a load of deploys, which
// charge their accounts, the other accounts' keys stay cached.
func TestPostgresCacheDropsOnlyTheChangedAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, other, reads := replicasOfOne(t)
	a := newTestAccount(t, s, "scope-a", 1)
	b := newTestAccount(t, s, "scope-b", 1)
	made := newCachedInstance(t, s, a.ID)
	watcher := s.cache.(*readcache.Cache[cacheKey, uint64]).Watcher().(*pgchanges.Watcher)
	// heardAll returns once s has heard every notification committed before it: it changes a
	// third account through the other replica and waits for that notification, which
	// PostgreSQL delivers after those.
	barrier, blocked := newTestAccount(t, s, "scope-barrier", 1), false
	heardAll := func() {
		t.Helper()
		before := watcher.Scope(barrier.ID)
		blocked = !blocked
		if err := other.SetAccountFlag(ctx, barrier.ID, store.FlagBlocked, blocked); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the barrier's notification", func() bool { return watcher.Scope(barrier.ID) != before })
	}
	key := func(acct store.Account) store.Account {
		t.Helper()
		got, err := s.AccountByKeyHash(ctx, acct.KeyHash)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	cachedKey := func(what string, acct store.Account) {
		t.Helper()
		eventually(t, what, func() bool {
			key(acct)
			reads.Take()
			key(acct)
			return reads.Take().All == 0
		})
	}
	readsSQL := func(acct store.Account) bool {
		t.Helper()
		reads.Take()
		key(acct)
		return reads.Take().All > 0
	}
	heardAll() // the notifications of a's instance and its install
	cachedKey("a's key cached", a)
	cachedKey("b's key cached", b)

	charge := store.LedgerEntry{AccountID: a.ID, Amount: -1_000, Kind: store.LedgerOrder, Reference: "order-1", CreatedAt: time.Now().UTC()}
	err := s.WithTx(ctx, func(tx store.Tx) error {
		if _, err := tx.LockAccounts(ctx, []int64{a.ID}); err != nil {
			return err
		}
		return tx.AddLedgerEntries(ctx, []store.LedgerEntry{charge})
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := key(a); got.Balance != a.Balance-1_000 {
		t.Fatalf("after this process charged a: balance %d, want %d at once", got.Balance, a.Balance-1_000)
	}
	if readsSQL(b) {
		t.Fatal("this process's charge of a dropped b's cached key")
	}
	heardAll() // the charge's own notification, which drops a's key once more

	cachedKey("a's key cached again", a)
	if err := other.SetAccountFlag(ctx, b.ID, store.FlagBlocked, true); err != nil {
		t.Fatal(err)
	}
	eventually(t, "another replica's block of b", func() bool { return key(b).Blocked })
	if readsSQL(a) {
		t.Fatal("another replica's change of b dropped a's cached key")
	}
	renamed := made
	renamed.Name = "renamed-by-other"
	if err := other.UpdateInstance(ctx, renamed); err != nil {
		t.Fatal(err)
	}
	eventually(t, "another replica's rename of a's instance", func() bool {
		_, in, _ := getInstance(t, s, a, made.ID)
		return in.Name == renamed.Name
	})
	cachedKey("b's key cached again", b)

	if err := other.SetSimFailRate(ctx, 0.5); err != nil {
		t.Fatal(err)
	}
	eventually(t, "another replica's fail rate to drop b's key", func() bool { return readsSQL(b) })
}

// TestPostgresNotificationsNameTheirAccount: migration 0020's triggers name the account whose
// rows a change was to, for each table the cache keeps, and none for the simulator's settings.
func TestPostgresNotificationsNameTheirAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := openFresh(t)
	a := newTestAccount(t, s, "notify-a", 1)
	made := newCachedInstance(t, s, a.ID) // with one app install
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	if _, err := conn.Exec(ctx, "LISTEN "+pgchanges.Channel); err != nil {
		t.Fatal(err)
	}
	account := strconv.FormatInt(a.ID, 10)
	for _, tc := range []struct {
		statement string
		want      string
	}{
		{`UPDATE accounts SET blocked = TRUE WHERE id = ` + account, account},
		{`UPDATE instances SET name = 'renamed' WHERE id = ` + strconv.FormatInt(made.ID, 10), account},
		{`UPDATE app_installs SET stage = 'x' WHERE instance_id = ` + strconv.FormatInt(made.ID, 10), account},
		{`DELETE FROM app_installs WHERE instance_id = ` + strconv.FormatInt(made.ID, 10), account},
		{`UPDATE sim_settings SET fail_rate = 0.5 WHERE id = 1`, ""},
	} {
		if _, err := s.db.ExecContext(ctx, tc.statement); err != nil {
			t.Fatal(err)
		}
		waitCtx, cancel := context.WithTimeout(ctx, eventWait)
		n, err := conn.WaitForNotification(waitCtx)
		cancel()
		if err != nil {
			t.Fatalf("%s: no notification: %v", tc.statement, err)
		}
		if n.Payload != tc.want {
			t.Errorf("%s: notification names %q, want %q", tc.statement, n.Payload, tc.want)
		}
	}
}
