package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the driver the store uses; the checks read the file directly
)

// Shape of the crash test: rounds of concurrent traffic, each ended by SIGKILL at a random point.
const (
	crashRounds      = 10
	crashClients     = 3
	crashMinRun      = 300 * time.Millisecond
	crashMaxRun      = 1200 * time.Millisecond
	crashOrderBody   = `{"server_id": 101, "template_id": 1, "term": "hourly"}`
	crashTopUpMicros = 1_000_000
	crashStartMicros = 1_000 * 1_000_000
)

// TestCrashSafety runs orders (with Idempotency-Keys), deletes, snapshots and top-ups against a
// real `resellerd serve` killed with SIGKILL at a random point of each round and restarted on
// the same SQLite file. After every restart each key answered 201 before the kill replays the
// same order; once everything has settled, the database must hold: ledger sums equal to the
// balance and the debt, no order or hour charged twice, one instance per deployed order and none
// without one, every answered order, every top-up exactly once and nothing reserved.
func TestCrashSafety(t *testing.T) {
	t.Parallel()
	bin := buildResellerd(t)
	db := filepath.Join(t.TempDir(), "crash.db")
	key := createCrashAccount(t, db)
	// A short work lease: the orders a killed process had claimed are taken over after 3 s rather
	// than the default minute, which waitSettled would otherwise spend waiting.
	flags := []string{"--deploy-delay", "100ms", "--credentials-delay", "50ms", "--rate-limit-scale", "0", "--order-window", "1m",
		"--work-lease", "3s"}

	var answered, lastRound []crashOrder // the orders answered 201 so far, and in the last round
	topUps := 0
	for round := range crashRounds {
		d := startDaemon(t, bin, db, flags...)
		c := &crashClient{base: d.base, key: key, db: db}
		c.replay(t, lastRound)
		// The kill lands while the clients are still sending: some answers are cut off.
		killed := make(chan struct{})
		time.AfterFunc(randomDuration(crashMinRun, crashMaxRun), func() {
			d.sigkill()
			close(killed)
		})
		got, ups := c.run(t, round, killed)
		d.kill(t)
		answered, lastRound, topUps = append(answered, got...), got, topUps+ups
	}
	d := startDaemon(t, bin, db, flags...)
	c := &crashClient{base: d.base, key: key, db: db}
	c.replay(t, answered)
	c.waitSettled(t)
	if err := d.terminate(t, eventWait); err != nil {
		t.Fatalf("resellerd after SIGTERM: %v", err)
	}
	t.Logf("%d rounds: %d orders answered, %d top-ups, %d requests cut off by a kill", crashRounds, len(answered), topUps, cutOff.Load())
	checkCrashDatabase(t, db, answered, crashStartMicros+int64(topUps)*crashTopUpMicros)
}

// cutOff counts the requests whose answer a kill cut off, to show the kills land mid-traffic.
var cutOff atomic.Int64

// crashOrder is an order the API answered 201, with the key it was placed under.
type crashOrder struct {
	key     string
	orderID int64
}

// createCrashAccount creates the one account of the test with room for many servers.
func createCrashAccount(t *testing.T, db string) string {
	t.Helper()
	code, out, errOut := cli(t, noEnv, "account", "create", "--db", db, "--balance", "1000",
		"--server-limit", "1000", "--order-limit", "1000")
	if code != exitOK {
		t.Fatalf("account create: exit %d: %s", code, errOut)
	}
	var created struct {
		Key string `json:"api_key"`
	}
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		t.Fatal(err)
	}
	return created.Key
}

func randomDuration(lo, hi time.Duration) time.Duration {
	return lo + rand.N(hi-lo)
}

// crashClient is the traffic of one round against one daemon.
type crashClient struct {
	base, key, db string
	http          http.Client
}

// run sends traffic from crashClients goroutines until killed is closed, then returns the
// orders answered 201 and the number of top-ups that succeeded. Answers cut off by the kill are
// expected and ignored; a 500 is a failure.
func (c *crashClient) run(t *testing.T, round int, killed <-chan struct{}) ([]crashOrder, int) {
	t.Helper()
	c.http.Timeout = eventWait // the kill cuts the requests off sooner
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-killed
		cancel()
	}()
	var (
		mu       sync.Mutex
		answered []crashOrder
		topUps   int
		failures []string
		wg       sync.WaitGroup
	)
	for g := range crashClients {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				var (
					order crashOrder
					upped bool
					err   error
				)
				switch p := rand.N(10); {
				case p < 5:
					order, err = c.order(ctx, fmt.Sprintf("r%d-g%d-%d", round, g, i))
				case p < 7:
					err = c.onSomeInstance(ctx, http.MethodDelete, "")
				case p < 9:
					err = c.onSomeInstance(ctx, http.MethodPost, "/snapshots")
				default:
					upped, err = c.topUp(ctx)
				}
				mu.Lock()
				if order.orderID != 0 {
					answered = append(answered, order)
				}
				if upped {
					topUps++
				}
				if err != nil {
					failures = append(failures, err.Error())
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("round %d: %d failures, first: %s", round, len(failures), failures[0])
	}
	return answered, topUps
}

// order places one order under key; a 201 is returned, an answer lost to the kill is not.
func (c *crashClient) order(ctx context.Context, key string) (crashOrder, error) {
	status, body, err := c.send(ctx, http.MethodPost, "/instances", crashOrderBody, key)
	if err != nil || status != http.StatusCreated {
		return crashOrder{}, unexpected(status, body)
	}
	var created struct {
		Data struct {
			OrderID int64 `json:"order_id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &created); err != nil {
		return crashOrder{}, fmt.Errorf("order %s: %w", key, err)
	}
	return crashOrder{key: key, orderID: created.Data.OrderID}, nil
}

// onSomeInstance sends method to suffix of a random active instance, if there is one.
func (c *crashClient) onSomeInstance(ctx context.Context, method, suffix string) error {
	status, body, err := c.send(ctx, http.MethodGet, "/instances", "", "")
	if err != nil || status != http.StatusOK {
		return unexpected(status, body)
	}
	var list struct {
		Data []struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil || len(list.Data) == 0 {
		return nil //nolint:nilerr // an answer cut by the kill is expected; nothing to pick
	}
	id := list.Data[rand.N(len(list.Data))].ID
	status, body, err = c.send(ctx, method, fmt.Sprintf("/instances/%d%s", id, suffix), "", "")
	if err != nil {
		return nil //nolint:nilerr // a request cut by the kill is expected
	}
	return unexpected(status, body)
}

// topUp credits 1 USD through the CLI on the same database, as an operator would while serve
// runs; the CLI process is not the one killed.
func (c *crashClient) topUp(ctx context.Context) (bool, error) {
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"account", "topup", "--db", c.db, "--account", "1", "--amount", "1"}, &stdout, &stderr, noEnv)
	if code != exitOK && ctx.Err() == nil {
		return false, fmt.Errorf("topup: exit %d: %s", code, stderr.String())
	}
	return code == exitOK, nil
}

// send performs one request; a transport error (the daemon was killed) is returned as err.
func (c *crashClient) send(ctx context.Context, method, path, body, idempotencyKey string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+"/api/v1"+path, bytes.NewBufferString(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("X-API-Token", c.key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", idempotencyKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		cutOff.Add(1)
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// unexpected reports a server error; refusals (404 of an instance deleted meanwhile, 409 of a
// snapshot cap) and answers lost to the kill (status 0) are part of the traffic.
func unexpected(status int, body []byte) error {
	if status >= http.StatusInternalServerError {
		return fmt.Errorf("status %d: %s", status, body)
	}
	return nil
}

// replay sends every answered order again under its key: each must answer 201 with
// meta.idempotent_replay and the same order.
func (c *crashClient) replay(t *testing.T, answered []crashOrder) {
	t.Helper()
	c.http.Timeout = eventWait
	for _, o := range answered {
		status, body, err := c.send(context.Background(), http.MethodPost, "/instances", crashOrderBody, o.key)
		if err != nil {
			t.Fatalf("replay %s: %v", o.key, err)
		}
		var replay struct {
			Data struct {
				OrderID int64 `json:"order_id"`
			} `json:"data"`
			Meta struct {
				IdempotentReplay bool `json:"idempotent_replay"`
			} `json:"meta"`
		}
		if err := json.Unmarshal(body, &replay); err != nil || status != http.StatusCreated ||
			!replay.Meta.IdempotentReplay || replay.Data.OrderID != o.orderID {
			t.Fatalf("replay of %s (order %d) after a kill: %d %s", o.key, o.orderID, status, body)
		}
	}
}

// waitSettled waits until no order is pending, nothing is reserved and no snapshot is creating.
// An order the killed process had claimed waits for its lease (--work-lease) to expire first.
func (c *crashClient) waitSettled(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		status, body, err := c.send(context.Background(), http.MethodGet, "/account/balance", "", "")
		var b struct {
			Data struct {
				Reserved      float64 `json:"reserved"`
				PendingOrders int     `json:"pending_orders"`
			} `json:"data"`
		}
		if err == nil && status == http.StatusOK && json.Unmarshal(body, &b) == nil &&
			b.Data.Reserved == 0 && b.Data.PendingOrders == 0 && c.snapshotsSettled(t) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not settled after 90 s: %d %s", status, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// snapshotsSettled is true when no snapshot is creating or restoring.
func (c *crashClient) snapshotsSettled(t *testing.T) bool {
	t.Helper()
	status, body, err := c.send(context.Background(), http.MethodGet, "/snapshots", "", "")
	if err != nil || status != http.StatusOK {
		return false
	}
	var list struct {
		Data []struct {
			Status string `json:"status"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return false
	}
	for _, s := range list.Data {
		if s.Status == "creating" || s.Status == "restoring" {
			return false
		}
	}
	return true
}

// checkCrashDatabase reads the SQLite file after the run and checks the invariants a crash must
// never break.
func checkCrashDatabase(t *testing.T, path string, answered []crashOrder, wantPaid int64) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	checks := []struct {
		name  string
		query string
	}{
		{"accounts whose ledger does not sum to the balance and the debt", `
			SELECT COUNT(*) FROM accounts a WHERE balance_micros != (SELECT COALESCE(SUM(amount_micros), 0) FROM ledger WHERE account_id = a.id)
			   OR debt_micros != (SELECT COALESCE(SUM(debt_micros), 0) FROM ledger WHERE account_id = a.id)`},
		{"orders or instance hours charged more than once", `
			SELECT COUNT(*) FROM (SELECT 1 FROM ledger WHERE kind IN ('order', 'renewal') GROUP BY kind, reference HAVING COUNT(*) > 1)`},
		{"deployed orders without exactly one instance", `
			SELECT COUNT(*) FROM orders o WHERE status = 'deployed' AND (SELECT COUNT(*) FROM instances WHERE order_id = o.id) != 1`},
		{"instances of an order that is not deployed", `
			SELECT COUNT(*) FROM instances i JOIN orders o ON o.id = i.order_id WHERE o.status != 'deployed'`},
		{"deployed orders not charged exactly once", `
			SELECT COUNT(*) FROM orders o WHERE status = 'deployed' AND (SELECT COUNT(*) FROM ledger WHERE kind = 'order' AND reference = 'order:' || o.id) != 1`},
		{"orders still pending", `SELECT COUNT(*) FROM orders WHERE status = 'pending'`},
	}
	for _, c := range checks {
		var n int
		if err := db.QueryRow(c.query).Scan(&n); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if n != 0 {
			t.Errorf("%s: %d", c.name, n)
		}
	}
	var paid, booked int64
	if err := db.QueryRow(`SELECT COALESCE(SUM(amount_micros), 0) FROM payments`).Scan(&paid); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT COALESCE(SUM(amount_micros), 0) FROM ledger WHERE kind = 'payment'`).Scan(&booked); err != nil {
		t.Fatal(err)
	}
	if paid != wantPaid || booked != wantPaid {
		t.Errorf("payments %d, ledger payments %d, want %d (the initial balance and each top-up once)", paid, booked, wantPaid)
	}
	for _, o := range answered {
		var status string
		if err := db.QueryRow(`SELECT status FROM orders WHERE id = ?`, o.orderID).Scan(&status); err != nil {
			t.Errorf("order %d answered 201 under %s: %v", o.orderID, o.key, err)
		}
	}
}
