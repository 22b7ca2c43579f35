package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// devAPI is a `resellerd dev` run in this process, and a client of it.
type devAPI struct {
	base string // http://HOST:PORT
	key  string
}

// startDevInProcess runs dev with args (and --listen 127.0.0.1:0) until the test ends.
func startDevInProcess(t *testing.T, args ...string) *devAPI {
	t.Helper()
	o, err := parseDev(append([]string{"--listen", "127.0.0.1:0"}, args...), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- dev(ctx, o, w, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
		_ = w.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("dev: %v", err)
		}
	})
	env := map[string]string{}
	sc := bufio.NewScanner(r)
	for len(env) < 2 && sc.Scan() {
		k, v, _ := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "=")
		env[k] = v
	}
	go func() { _, _ = io.Copy(io.Discard, r) }()
	if len(env) < 2 {
		t.Fatalf("dev printed %v", env)
	}
	return &devAPI{base: strings.TrimSuffix(env["RESELLER_ENDPOINT"], "/api/v1"), key: env["RESELLER_API_KEY"]}
}

// answer is a decoded envelope.
type answer struct {
	status  int
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data"`
	Error   struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call sends method path (under the listener's root) with key ("" for none) and body; a body
// goes with an Idempotency-Key of its own.
func (d *devAPI) call(t *testing.T, method, path, key, body string) answer {
	t.Helper()
	return d.callIdem(t, method, path, key, body, "k-"+time.Now().Format(time.RFC3339Nano))
}

// callIdem is call with the Idempotency-Key idem.
func (d *devAPI) callIdem(t *testing.T, method, path, key, body, idem string) answer {
	t.Helper()
	req, err := http.NewRequest(method, d.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("X-API-Token", key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", idem)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	a := answer{status: res.StatusCode}
	if err := json.NewDecoder(res.Body).Decode(&a); err != nil {
		t.Fatalf("%s %s: %d with a body that is no envelope: %v", method, path, res.StatusCode, err)
	}
	return a
}

// want fails the test unless the answer has status (and, for errors, code).
func (a answer) want(t *testing.T, status int, code string) answer {
	t.Helper()
	if a.status != status || a.Success != (status < 300) || a.Error.Code != code {
		t.Fatalf("got %d %s %q (data %s), want %d %s", a.status, a.Error.Code, a.Error.Message, a.Data, status, code)
	}
	return a
}

func (a answer) into(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(a.Data, v); err != nil {
		t.Fatalf("data %s: %v", a.Data, err)
	}
}

// pollEvery is how often a test reads the API while it waits for a change: dev keeps the
// spec's rate limits (60 reads a minute of a route), which faster reads reach within seconds
// when the wait is long (a loaded host).
const pollEvery = 250 * time.Millisecond

// poll reads GET path with d's key into v, as a wait reads: when the rate limit answers 429 it
// waits a second and reports false, so the caller reads again.
func (d *devAPI) poll(t *testing.T, path string, v any) bool {
	t.Helper()
	a := d.call(t, "GET", path, d.key, "")
	if a.status == http.StatusTooManyRequests {
		time.Sleep(time.Second)
		return false
	}
	a.want(t, 200, "").into(t, v)
	return true
}

// deployed orders an hourly server of plan 101 and waits until it is online; it returns the
// order and instance ids. It reads the order every pollEvery and waits out a 429; two minutes
// bound the wait.
func (d *devAPI) deployed(t *testing.T) (orderID, instanceID int64) {
	t.Helper()
	var o struct {
		OrderID int64 `json:"order_id"`
	}
	d.call(t, "POST", "/api/v1/instances", d.key, `{"server_id": 101, "template_id": 1, "term": "hourly"}`).want(t, 201, "").into(t, &o)
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		var got struct {
			Status string `json:"status"`
			Server *struct {
				ID     int64  `json:"id"`
				Status string `json:"status"`
			} `json:"server"`
		}
		if d.poll(t, "/api/v1/orders/"+itoa(o.OrderID), &got) && got.Server != nil && got.Server.Status == "online" {
			return o.OrderID, got.Server.ID
		}
		time.Sleep(pollEvery)
	}
	t.Fatal("the server did not come online within 2 minutes")
	return 0, 0
}

func (d *devAPI) balance(t *testing.T) float64 {
	t.Helper()
	var b struct {
		Balance float64 `json:"balance"`
	}
	d.call(t, "GET", "/api/v1/account/balance", d.key, "").want(t, 200, "").into(t, &b)
	return b.Balance
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestDevClockRenewsHourlyAndExpiresOrders: moving the clock renews a server hour by hour (the
// balance drops by the hourly price per hour) and a finished order is 404 24 hours after it ended.
func TestDevClockRenewsHourlyAndExpiresOrders(t *testing.T) {
	d := startDevInProcess(t, "--deploy-delay", "0s", "--credentials-delay", "0s")
	orderID, _ := d.deployed(t)
	var plan struct {
		Prices []struct {
			Price float64 `json:"price"`
		} `json:"prices"`
	}
	d.call(t, "GET", "/api/v1/catalog/servers/101", d.key, "").want(t, 200, "").into(t, &plan)
	hourly := plan.Prices[0].Price
	b0 := d.balance(t)

	var moved struct{ Advanced string }
	d.call(t, "POST", "/_dev/clock", "", `{"advance": "1h"}`).want(t, 200, "").into(t, &moved)
	if b := d.balance(t); !near(b0-b, hourly) || moved.Advanced != "1h0m0s" {
		t.Fatalf("after 1h the balance dropped %v, want the hourly price %v (%+v)", b0-b, hourly, moved)
	}
	d.call(t, "POST", "/_dev/clock", "", `{"advance": "22h"}`).want(t, 200, "")
	if b := d.balance(t); !near(b0-b, 23*hourly) {
		t.Fatalf("after 23h the balance dropped %v, want 23 hours of %v", b0-b, hourly)
	}
	d.call(t, "GET", "/api/v1/orders/"+itoa(orderID), d.key, "").want(t, 200, "") // deployed 23 h ago
	d.call(t, "POST", "/_dev/clock", "", `{"advance": "90m"}`).want(t, 200, "")
	d.call(t, "GET", "/api/v1/orders/"+itoa(orderID), d.key, "").want(t, 404, "not_found")

	d.call(t, "POST", "/_dev/clock", "", `{"advance": "-1h"}`).want(t, 400, "validation_error")
	if a := d.call(t, "POST", "/_dev/clock", "", `{}`).want(t, 400, "validation_error"); !strings.Contains(a.Error.Message, "advance") {
		t.Fatalf("message %q does not name advance", a.Error.Message)
	}
}

// near compares amounts of USD read as JSON numbers (micro-USD exact in the service).
// TestDevClockExpiresIdempotencyKeys: 24 hours on, an Idempotency-Key may carry another order.
func TestDevClockExpiresIdempotencyKeys(t *testing.T) {
	d := startDevInProcess(t, "--deploy-delay", "0s")
	first, second := `{"server_id": 101, "template_id": 1, "term": "hourly"}`, `{"server_id": 101, "template_id": 2, "term": "hourly"}`
	d.callIdem(t, "POST", "/api/v1/instances", d.key, first, "same-key").want(t, 201, "")
	d.call(t, "POST", "/_dev/clock", "", `{"advance": "1h"}`).want(t, 200, "") // the order is no longer pending
	d.callIdem(t, "POST", "/api/v1/instances", d.key, second, "same-key").want(t, 422, "idempotency_key_reused")
	d.call(t, "POST", "/_dev/clock", "", `{"advance": "24h"}`).want(t, 200, "")
	d.callIdem(t, "POST", "/api/v1/instances", d.key, second, "same-key").want(t, 201, "")
}

func near(a, b float64) bool { return a-b < 1e-7 && b-a < 1e-7 }

// TestDevLockUnlock: lock and unlock act on the key's own instance; a bad key is 401.
func TestDevLockUnlock(t *testing.T) {
	d := startDevInProcess(t, "--deploy-delay", "0s")
	_, id := d.deployed(t)
	path := "/_dev/instances/" + itoa(id)
	d.call(t, "POST", path+"/lock", "", `{"reason": "debt"}`).want(t, 401, "unauthorized")
	d.call(t, "POST", path+"/lock", strings.Repeat("x", 64), `{"reason": "debt"}`).want(t, 401, "unauthorized")
	d.call(t, "POST", "/_dev/instances/999/lock", d.key, `{"reason": "debt"}`).want(t, 404, "not_found")
	if a := d.call(t, "POST", path+"/lock", d.key, `{}`).want(t, 400, "validation_error"); !strings.Contains(a.Error.Message, "reason") {
		t.Fatalf("message %q does not name reason", a.Error.Message)
	}
	d.call(t, "POST", path+"/lock", d.key, `{"reason": "debt"}`).want(t, 200, "")
	var in struct {
		Locked     bool    `json:"locked"`
		LockReason *string `json:"lock_reason"`
	}
	d.call(t, "GET", "/api/v1/instances/"+itoa(id), d.key, "").want(t, 200, "").into(t, &in)
	if !in.Locked || in.LockReason == nil || *in.LockReason != "debt" {
		t.Fatalf("after lock: %+v", in)
	}
	d.call(t, "POST", "/api/v1/instances/"+itoa(id)+"/actions", d.key, `{"action": "reboot"}`).want(t, 409, "instance_locked")
	d.call(t, "POST", path+"/unlock", d.key, "").want(t, 200, "")
	d.call(t, "GET", "/api/v1/instances/"+itoa(id), d.key, "").want(t, 200, "").into(t, &in)
	if in.Locked {
		t.Fatalf("still locked after unlock: %+v", in)
	}
}

// TestDevTimeOutOrder: a pending order times out at once.
func TestDevTimeOutOrder(t *testing.T) {
	d := startDevInProcess(t, "--deploy-delay", "1h")
	var o struct {
		OrderID int64 `json:"order_id"`
	}
	d.call(t, "POST", "/api/v1/instances", d.key, `{"server_id": 101, "template_id": 1, "term": "hourly"}`).want(t, 201, "").into(t, &o)
	path := "/_dev/orders/" + itoa(o.OrderID) + "/time-out"
	d.call(t, "POST", path, "", "").want(t, 401, "unauthorized")
	d.call(t, "POST", path, d.key, "").want(t, 200, "")
	var got struct {
		Status string `json:"status"`
	}
	d.call(t, "GET", "/api/v1/orders/"+itoa(o.OrderID), d.key, "").want(t, 200, "").into(t, &got)
	if got.Status != "timed_out" {
		t.Fatalf("order status %q, want timed_out", got.Status)
	}
}

// TestDevPasswordChanged: after the root password changed behind the API's back an app install
// fails with stage auth_failed.
func TestDevPasswordChanged(t *testing.T) {
	d := startDevInProcess(t, "--deploy-delay", "0s", "--credentials-delay", "0s")
	_, id := d.deployed(t)
	d.call(t, "POST", "/_dev/instances/"+itoa(id)+"/password-changed", d.key, "").want(t, 200, "")
	d.call(t, "POST", "/api/v1/instances/"+itoa(id)+"/apps", d.key, `{"apps": ["docker"]}`).want(t, 202, "")
	deadline := time.Now().Add(eventWait)
	for time.Now().Before(deadline) {
		var apps struct {
			Installs []struct {
				Status string `json:"status"`
				Stage  string `json:"stage"`
			} `json:"installs"`
		}
		if d.poll(t, "/api/v1/instances/"+itoa(id)+"/apps", &apps) && len(apps.Installs) == 1 && apps.Installs[0].Status == "failed" {
			if apps.Installs[0].Stage != "auth_failed" {
				t.Fatalf("install failed at %q, want auth_failed", apps.Installs[0].Stage)
			}
			return
		}
		time.Sleep(pollEvery)
	}
	t.Fatalf("the install did not fail within %s", eventWait)
}

// TestDevFailRate: a fail rate of 1 makes datacenter operations fail with 502; bad rates are 400.
func TestDevFailRate(t *testing.T) {
	d := startDevInProcess(t, "--deploy-delay", "0s")
	_, id := d.deployed(t)
	d.call(t, "PUT", "/_dev/fail-rate", "", `{"rate": 1.5}`).want(t, 400, "validation_error")
	d.call(t, "PUT", "/_dev/fail-rate", "", `{"rate": 1}`).want(t, 200, "")
	d.call(t, "POST", "/api/v1/instances/"+itoa(id)+"/actions", d.key, `{"action": "power_off"}`).want(t, 502, "provider_error")
	d.call(t, "PUT", "/_dev/fail-rate", "", `{"rate": 0}`).want(t, 200, "")
	d.call(t, "POST", "/api/v1/instances/"+itoa(id)+"/actions", d.key, `{"action": "power_off"}`).want(t, 200, "")
}

// TestDevReset: reset removes everything but the account, whose key keeps working.
func TestDevReset(t *testing.T) {
	d := startDevInProcess(t, "--deploy-delay", "0s")
	d.deployed(t)
	if d.balance(t) == 1000 {
		t.Fatal("the order charged nothing")
	}
	d.call(t, "POST", "/_dev/reset", "", "").want(t, 200, "")
	if b := d.balance(t); b != 1000 {
		t.Fatalf("balance after reset %v, want 1000", b)
	}
	var list []json.RawMessage
	d.call(t, "GET", "/api/v1/instances", d.key, "").want(t, 200, "").into(t, &list)
	if len(list) != 0 {
		t.Fatalf("%d instances after reset", len(list))
	}
	d.call(t, "GET", "/_dev/unknown", "", "").want(t, 404, "not_found")
}

// TestDevRoutesAbsentUnderServe: serve answers /_dev/ with the API's 404.
func TestDevRoutesAbsentUnderServe(t *testing.T) {
	o, err := parseServe([]string{"--listen", "127.0.0.1:0", "--db", t.TempDir() + "/s.db"}, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, o, slog.New(slog.DiscardHandler), func(a []net.Addr) { addr <- a[0] }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	d := &devAPI{base: "http://" + (<-addr).String()}
	for _, p := range []string{"/_dev/reset", "/_dev/clock", "/_dev/instances/1/lock", "/_dev/orders/1/time-out"} {
		d.call(t, "POST", p, "", `{}`).want(t, 404, "not_found")
	}
	d.call(t, "PUT", "/_dev/fail-rate", "", `{"rate": 0.2}`).want(t, 404, "not_found")
	// Nor the request journal and the fault rules: serve records nothing and injects nothing.
	d.call(t, "GET", "/_dev/requests", "", "").want(t, 404, "not_found")
	d.call(t, "DELETE", "/_dev/requests", "", "").want(t, 404, "not_found")
	d.call(t, "PUT", "/_dev/faults", "", `{"rules": [{"route": "*", "status": 500}]}`).want(t, 404, "not_found")
	d.call(t, "GET", "/_dev/faults", "", "").want(t, 404, "not_found")
	d.call(t, "GET", "/api/v1/health", "", "").want(t, 200, "")
}
