package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// databases returns k fresh databases of kind (sqlite: files under dir; postgres: databases on
// a local server started by backend/internal/store/pgtest/pgserve, with PostgreSQL's default
// durability, serve's URL with pgParams added) and the function that stops what it started.
func databases(ctx context.Context, kind, dir string, k int, pgParams string) ([]database, func(), error) {
	switch kind {
	case "sqlite":
		var dbs []database
		for i := range k {
			sub := filepath.Join(dir, fmt.Sprintf("sqlite-%d", i))
			if err := os.MkdirAll(sub, 0o750); err != nil {
				return nil, nil, err
			}
			path := filepath.Join(sub, "reseller.db")
			dbs = append(dbs, database{serveDB: path, driver: "sqlite", dsn: "file:" + path + "?_pragma=busy_timeout(10000)"})
		}
		return dbs, func() {}, nil
	case "postgres":
		return postgresDatabases(ctx, k, pgParams)
	default:
		return nil, nil, fmt.Errorf("unknown database %q: want sqlite or postgres", kind)
	}
}

// postgresDatabases runs pgserve for k databases; closing its standard input stops the server.
func postgresDatabases(ctx context.Context, k int, params string) ([]database, func(), error) {
	cmd := exec.CommandContext(ctx, "go", "run", "./backend/internal/store/pgtest/pgserve", "-databases", fmt.Sprint(k))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("pgserve: %w", err)
	}
	stop := func() {
		_ = stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
		}
	}
	var dbs []database
	lines := bufio.NewScanner(stdout)
	for len(dbs) < k && lines.Scan() {
		url := strings.TrimSpace(lines.Text())
		serveURL := url
		if params != "" {
			sep := "?"
			if strings.Contains(url, "?") {
				sep = "&"
			}
			serveURL += sep + params
		}
		dbs = append(dbs, database{serveDB: serveURL, driver: "pgx", dsn: url})
	}
	if len(dbs) < k {
		stop()
		return nil, nil, fmt.Errorf("pgserve gave %d of %d databases", len(dbs), k)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return dbs, stop, nil
}

// commits is PostgreSQL's transaction id counter: how many writing transactions (every
// writing statement outside a transaction is one) the server has begun, to count what each
// POST costs; 0 on SQLite. (pg_stat_database's counts lag by up to seconds; this does not.)
func (d database) commits(ctx context.Context) (int64, error) {
	if !d.postgres() {
		return 0, nil
	}
	db, err := sql.Open(d.driver, d.dsn)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int64
	err = db.QueryRowContext(ctx, `SELECT txid_current()`).Scan(&n)
	return n, err
}

// ts is t as d stores it: SQLite keeps text, PostgreSQL timestamptz.
func (d database) ts(t time.Time) any {
	if d.postgres() {
		return t
	}
	return t.UTC().Format("2006-01-02T15:04:05.000000000Z")
}

// fill writes n deployed, renewing instances of account 1, due in an hour, straight into the
// database in one transaction (through the API it would take hours at the real limits). It
// keeps the account's counts and each instance's place in the account's list, as the store
// does.
func fill(ctx context.Context, d database, n int) error {
	db, err := sql.Open(d.driver, d.dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	now := time.Now().UTC()
	p := d.param
	steps := []struct {
		name string
		sql  string
		args []any
	}{
		{"orders", `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ` + p(1) + `)
			INSERT INTO orders (account_id, status, price_micros, created_at, plan_id, template_id, finished_at)
			SELECT 1, 'deployed', 4000, ` + p(2) + `, 101, 1, ` + p(3) + ` FROM s`, []any{n, d.ts(now), d.ts(now)}},
		{"instances", `INSERT INTO instances (account_id, order_id, name, hostname, plan_id, template_id,
			datacenter_id, location_id, status, active, renew, machine_ref, ipv4, username, password, port, credentials_at,
			created_at, renewal_due)
			SELECT 1, id, 'bench-' || id, 'bench-' || id, 101, 1, 1, 11, 'online', TRUE, TRUE, 'vm-bench-' || id,
			'192.0.2.1', 'root', 'pw', 22, ` + p(1) + `, ` + p(2) + `, ` + p(3) + ` FROM orders WHERE account_id = 1 ORDER BY id`,
			[]any{d.ts(now), d.ts(now), d.ts(now.Add(time.Hour))}},
		{"links", `UPDATE orders SET instance_id = i.id FROM instances i WHERE i.order_id = orders.id AND orders.account_id = 1`, nil},
		{"counts", `UPDATE accounts SET instances_total = ` + p(1) + `, instances_active = ` + p(2) + `, wallet_seq = wallet_seq + 1 WHERE id = 1`, []any{n, n}},
		{"places", `UPDATE instances SET account_seq = ranked.seq
			FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS seq FROM instances WHERE account_id = 1) AS ranked
			WHERE ranked.id = instances.id`, nil},
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	for _, st := range steps {
		if _, err := tx.ExecContext(ctx, st.sql, st.args...); err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
	}
	return tx.Commit()
}
