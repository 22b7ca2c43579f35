package resellerd

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// TestBlockedAccountsOrdersWait: the build of an order of a blocked account is not submitted
// while the block lasts (the order stays pending, its money reserved); once unblocked, the next
// tick submits it. An order's window still runs: one blocked past it times out, charging nothing.
func TestBlockedAccountsOrdersWait(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := NewManualClock(testStart)
	e := openEnv(t, Config{DB: pg.TestDB(t), RateLimitScale: 100, Clock: clock, WorkerInterval: -1, OrderWindow: 10 * time.Minute})
	a, err := e.srv.CreateAccount(ctx, NewAccount{BalanceMicros: 10_000_000})
	if err != nil {
		t.Fatal(err)
	}
	waiting := placeOrder(t, e, a.APIKey)
	blocked, unblocked := true, false
	op := Operator{Name: "test", Command: "account block", Reason: "abuse"}
	if err := e.srv.UpdateAccount(ctx, op, a.ID, AccountChange{Blocked: &blocked}); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if o := orderRow(t, e, waiting); o.Status != store.OrderPending || o.Ticket != "" {
		t.Fatalf("order of a blocked account: status %s, ticket %q; want pending with no build submitted", o.Status, o.Ticket)
	}
	d, err := e.srv.Account(ctx, a.ID)
	if err != nil || len(d.PendingOrders) != 1 || d.PendingOrders[0].Building {
		t.Fatalf("account show: %+v, %v; want the one order, waiting", d.PendingOrders, err)
	}

	op.Command, op.Reason = "account unblock", ""
	if err := e.srv.UpdateAccount(ctx, op, a.ID, AccountChange{Blocked: &unblocked}); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if o := orderRow(t, e, waiting); o.Ticket == "" && o.Status == store.OrderPending {
		t.Fatalf("order after unblock: status %s, no build submitted; want its build under way", o.Status)
	}

	late := placeOrder(t, e, a.APIKey)
	op.Command, op.Reason = "account block", "debt"
	if err := e.srv.UpdateAccount(ctx, op, a.ID, AccountChange{Blocked: &blocked}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(11 * time.Minute)
	if err := e.srv.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if o := orderRow(t, e, late); o.Status != store.OrderTimedOut {
		t.Fatalf("order blocked past its window: status %s, want timed_out", o.Status)
	}
}

// placeOrder orders the cheapest plan with key and returns the order's id.
func placeOrder(t *testing.T, e *env, key string) int64 {
	t.Helper()
	r := e.do(t, request{Method: "POST", Path: "/instances", Key: key, Body: ubuntuOn101})
	if r.Status != 201 {
		t.Fatalf("POST /instances: %d %s", r.Status, r.Raw)
	}
	var created struct {
		OrderID int64 `json:"order_id"`
	}
	if err := json.Unmarshal(r.Body.Data, &created); err != nil {
		t.Fatal(err)
	}
	return created.OrderID
}

func orderRow(t *testing.T, e *env, id int64) store.Order {
	t.Helper()
	o, err := e.srv.store.OrderByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestAuditTrailIsAppendOnly: the operator's entries survive every purge of retention, and the
// database itself refuses to update, delete (or, on PostgreSQL, truncate) them.
func TestAuditTrailIsAppendOnly(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "audit.db")
		testAuditAppendOnly(t, path, "sqlite", path, []string{"UPDATE audit_entries SET reason = 'x'", "DELETE FROM audit_entries"})
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		url := pg.Database(t)
		testAuditAppendOnly(t, url, "pgx", url,
			[]string{"UPDATE audit_entries SET reason = 'x'", "DELETE FROM audit_entries", "TRUNCATE audit_entries"})
	})
}

func testAuditAppendOnly(t *testing.T, db, driver, dsn string, refused []string) {
	ctx := context.Background()
	clock := NewManualClock(testStart)
	e := openEnv(t, Config{DB: db, RateLimitScale: 100, Clock: clock, WorkerInterval: -1, RetainEvents: time.Hour})
	op := Operator{Name: "alice", Command: "account create"}
	a, err := e.srv.CreateAccountBy(ctx, op, NewAccount{BalanceMicros: 5_000_000})
	if err != nil {
		t.Fatal(err)
	}
	op.Command = "account topup"
	if err := e.srv.TopUpBy(ctx, op, a.ID, 1_000_000, "card"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(30 * 24 * time.Hour) // far past --retain-events
	if err := e.srv.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	entries, err := e.srv.AuditEntries(ctx, AuditFilter{})
	if err != nil || len(entries) != 2 {
		t.Fatalf("entries after retention: %d, %v; want both", len(entries), err)
	}
	raw, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, stmt := range refused {
		_, err := raw.ExecContext(ctx, stmt)
		if err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v; want it refused as append-only", stmt, err)
		}
	}
	var n int
	if err := raw.QueryRowContext(ctx, `SELECT count(*) FROM audit_entries WHERE reason = ''`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("entries left as written: %d, %v; want 2", n, err)
	}
}

// TestOperatorChangeAndEntryCommitTogether: with the audit insert failing (a trigger the test
// adds), each operator command fails and leaves nothing of its change: the entry and the change
// are one transaction.
func TestOperatorChangeAndEntryCommitTogether(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tx.db")
	e := openEnv(t, Config{DB: path, RateLimitScale: 100, Clock: NewManualClock(testStart), WorkerInterval: -1})
	a, err := e.srv.CreateAccount(ctx, NewAccount{BalanceMicros: 5_000_000})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(ctx, `CREATE TRIGGER audit_fails BEFORE INSERT ON audit_entries
		BEGIN SELECT RAISE(ABORT, 'audit insert refused by the test'); END`); err != nil {
		t.Fatal(err)
	}
	op := Operator{Name: "carol", Command: "test", Reason: "why"}
	blocked, limit := true, 1
	if err := e.srv.UpdateAccount(ctx, op, a.ID, AccountChange{Blocked: &blocked, ServerLimit: &limit}); err == nil {
		t.Fatal("UpdateAccount with the audit failing: nil error")
	}
	if err := e.srv.TopUpBy(ctx, op, a.ID, 1_000_000, "card"); err == nil {
		t.Fatal("TopUpBy with the audit failing: nil error")
	}
	if _, err := e.srv.RotateKeyBy(ctx, op, a.ID); err == nil {
		t.Fatal("RotateKeyBy with the audit failing: nil error")
	}
	if _, err := e.srv.CreateAccountBy(ctx, op, NewAccount{}); err == nil {
		t.Fatal("CreateAccountBy with the audit failing: nil error")
	}
	accts, err := e.srv.Accounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(accts) != 1 || accts[0].Blocked || accts[0].ServerLimit != 10 || accts[0].BalanceMicros != 5_000_000 {
		t.Fatalf("accounts after the failed commands: %+v; want the one account as it was", accts)
	}
	if id, err := e.srv.AccountOfKey(ctx, a.APIKey); err != nil || id != a.ID {
		t.Fatalf("the key after a failed rotation: %d, %v; want it still valid", id, err)
	}
}
