package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os/exec"
	"time"
)

// database is where one measurement keeps its data: the --db of resellerd and how the bench
// itself opens it (to fill it and to watch it).
type database struct {
	serveDB string // --db: a SQLite path or a postgres:// URL
	driver  string // "sqlite" or "pgx"
	dsn     string
}

func (d database) postgres() bool { return d.driver == "pgx" }

// param is the n-th (1-based) placeholder of d's dialect.
func (d database) param(n int) string {
	if d.postgres() {
		return fmt.Sprintf("$%d", n)
	}
	return "?"
}

// drainTime fills d, whose accounts 1 to accounts exist, with n pending orders spread over them
// round-robin, starts resellerd serve on it with no deploy delay and measures how long its
// provisioning worker takes to deploy them all, each with its instance, charge and event.
func drainTime(ctx context.Context, o options, d database, n, accounts int) (time.Duration, error) {
	db, err := sql.Open(d.driver, d.dsn)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	if err := fillPending(ctx, db, d, n, accounts); err != nil {
		return 0, fmt.Errorf("fill pending orders: %w", err)
	}
	addr, err := freeAddr()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	serve := exec.CommandContext(ctx, o.resellerd, "serve", "--db", d.serveDB, "--listen", addr,
		"--rate-limit-scale", "0", "--deploy-delay", "0", "--credentials-delay", "0", "--order-window", "1h",
		"--log-level", "warn")
	serve.Stderr = io.Discard
	if err := serve.Start(); err != nil {
		return 0, fmt.Errorf("start resellerd: %w", err)
	}
	defer func() { _ = serve.Process.Kill(); _ = serve.Wait() }()
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		var pending int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM orders WHERE status = 'pending'`).Scan(&pending); err != nil {
			return 0, fmt.Errorf("count pending: %w", err)
		}
		if pending == 0 {
			return time.Since(start), nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return 0, fmt.Errorf("%d orders not drained in 10 minutes", n)
}

// fillPending writes n pending orders of accounts 1 to accounts, round-robin, in one statement
// and reserves their price on each account, as n accepted POST /instances would have.
func fillPending(ctx context.Context, db *sql.DB, d database, n, accounts int) error {
	created := d.ts(time.Now())
	_, err := db.ExecContext(ctx, `WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < `+d.param(1)+`)
		INSERT INTO orders (account_id, status, price_micros, created_at, plan_id, template_id)
		SELECT 1 + i % `+d.param(2)+`, 'pending', 4000, `+d.param(3)+`, 101, 1 FROM s`, n-1, accounts, created)
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, `UPDATE accounts SET
		orders_pending = orders_pending + (SELECT COUNT(*) FROM orders o WHERE o.account_id = accounts.id),
		orders_reserved_micros = orders_reserved_micros + 4000 * (SELECT COUNT(*) FROM orders o WHERE o.account_id = accounts.id),
		wallet_seq = wallet_seq + 1`)
	return err
}
