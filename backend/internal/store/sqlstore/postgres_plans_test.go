package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// TestPostgresPlacesOrdersOnGenericPlans: PlaceOrder's statements run under their generic plans
// (genericPlans), where PostgreSQL's default made a custom plan for each of the first orders at
// least; those plans find the account through its primary key, not by scanning the accounts;
// and the setting ends with each order, committed or failed, on the connection it ran on.
func TestPostgresPlacesOrdersOnGenericPlans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openURL(t, withParams(pg.Database(t), "pool_max_conns=1")) // one connection: the orders' own
	a := newTestAccount(t, s, "generic", 100)
	const orders = 12 // of each statement: more than the 5 custom plans PostgreSQL makes by default
	for i := range 2 * orders {
		var key *store.IdempotencyKey
		if i%2 == 1 {
			key = &store.IdempotencyKey{Key: fmt.Sprintf("key-%d", i), RequestHash: "hash"}
		}
		if _, _, err := s.PlaceOrder(ctx, store.Order{AccountID: a.ID, CreatedAt: time.Now()}, key); err != nil {
			t.Fatalf("order %d: %v", i, err)
		}
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if mode := planCacheMode(t, conn); mode != "auto" {
		t.Errorf("plan_cache_mode on the orders' connection after them = %q, want auto", mode)
	}
	for name, statement := range map[string]string{"placeOrderInGroup": placeOrderInGroup, "placeOrderWithKeyInGroup": placeOrderWithKeyInGroup} {
		var prepared string
		var generic, custom, params int
		err := conn.QueryRowContext(ctx, `SELECT name, generic_plans, custom_plans, cardinality(parameter_types)
			FROM pg_prepared_statements WHERE statement = $1`, s.d.sql(statement)).Scan(&prepared, &generic, &custom, &params)
		if err != nil {
			t.Fatalf("%s: find its prepared statement: %v", name, err)
		}
		if generic != orders || custom != 0 {
			t.Errorf("%s: %d generic plans and %d custom ones, want %d generic and no custom", name, generic, custom, orders)
		}
		plan := genericPlan(t, conn, prepared, params)
		if !strings.Contains(plan, "Index Scan using accounts_pkey on accounts") || !strings.Contains(plan, "(id = $1)") ||
			strings.Contains(plan, "Seq Scan") {
			t.Errorf("%s: generic plan\n%s\nwant the account found through accounts_pkey by $1, and no Seq Scan", name, plan)
		}
	}
	_ = conn.Close()

	// A statement that fails (a key taken; pgx then drops the batch's prepared statements) rolls
	// back with the setting: SHOW below is on its connection, the pool's one.
	_, _, err = s.PlaceOrder(ctx, store.Order{AccountID: a.ID, CreatedAt: time.Now()},
		&store.IdempotencyKey{Key: "key-1", RequestHash: "hash"})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("order with a taken key: %v, want ErrConflict", err)
	}
	if mode := planCacheMode(t, s.db); mode != "auto" {
		t.Errorf("plan_cache_mode on the orders' connection after a failed one = %q, want auto", mode)
	}
}

// planCacheMode is the setting on q's connection.
func planCacheMode(t *testing.T, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) string {
	t.Helper()
	var mode string
	if err := q.QueryRowContext(context.Background(), `SHOW plan_cache_mode`).Scan(&mode); err != nil {
		t.Fatal(err)
	}
	return mode
}

// genericPlan is EXPLAIN of the generic plan of the statement prepared as name on conn, which
// takes params parameters (the values, NULL, do not change a generic plan).
func genericPlan(t *testing.T, conn *sql.Conn, name string, params int) string {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.ExecContext(ctx, `SET plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = conn.ExecContext(ctx, `RESET plan_cache_mode`) }()
	nulls := strings.TrimSuffix(strings.Repeat("NULL, ", params), ", ")
	rows, err := conn.QueryContext(ctx, `EXPLAIN EXECUTE `+name+`(`+nulls+`)`)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rows.Close() }()
	var lines []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// withParams adds params (k=v&...) to the query of url.
func withParams(url, params string) string {
	if strings.Contains(url, "?") {
		return url + "&" + params
	}
	return url + "?" + params
}
