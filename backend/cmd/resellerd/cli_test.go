package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func noEnv(string) (string, bool) { return "", false }

func mapEnv(m map[string]string) lookupEnv {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestParseServe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(t *testing.T, o serveOptions)
		wantErr string
	}{
		{name: "defaults", check: func(t *testing.T, o serveOptions) {
			c := o.Config
			if o.Listen != "127.0.0.1:8080" || o.AltListen != "" || c.DB != "./data/reseller.db" ||
				c.DeployDelay != 3*time.Second || c.CredentialsDelay != time.Second || c.OrderWindow != 10*time.Minute ||
				c.WorkLease != time.Minute || c.FailRate != 0 || c.AllowHTTPWebhooks || c.RateLimitScale != 1 {
				t.Fatalf("got %+v", o)
			}
		}},
		{name: "every flag", args: []string{"--listen", "0.0.0.0:9000", "--alt-listen", "127.0.0.1:9001", "--db", "/tmp/x.db",
			"--deploy-delay", "50ms", "--credentials-delay", "0s", "--order-window", "2m", "--fail-rate", "0.25",
			"--allow-http-webhooks", "--rate-limit-scale", "1000", "--work-lease", "5s"},
			check: func(t *testing.T, o serveOptions) {
				c := o.Config
				if o.Listen != "0.0.0.0:9000" || o.AltListen != "127.0.0.1:9001" || c.DB != "/tmp/x.db" ||
					c.DeployDelay != 50*time.Millisecond || c.CredentialsDelay != 0 || c.OrderWindow != 2*time.Minute ||
					c.FailRate != 0.25 || !c.AllowHTTPWebhooks || c.RateLimitScale != 1000 || c.WorkLease != 5*time.Second {
					t.Fatalf("got %+v", o)
				}
			}},
		{name: "environment", env: map[string]string{"RESELLER_LISTEN": "127.0.0.1:7000", "RESELLER_ALT_LISTEN": "127.0.0.1:7001",
			"RESELLER_DB": "env.db", "RESELLER_RATE_LIMIT_SCALE": "0", "RESELLER_ALLOW_HTTP_WEBHOOKS": "true", "RESELLER_DEPLOY_DELAY": "1s"},
			check: func(t *testing.T, o serveOptions) {
				c := o.Config
				if o.Listen != "127.0.0.1:7000" || o.AltListen != "127.0.0.1:7001" || c.DB != "env.db" ||
					c.RateLimitScale != 0 || !c.AllowHTTPWebhooks || c.DeployDelay != time.Second {
					t.Fatalf("got %+v", o)
				}
			}},
		{name: "flag wins over environment", args: []string{"--db", "flag.db", "--rate-limit-scale", "2"},
			env: map[string]string{"RESELLER_DB": "env.db", "RESELLER_RATE_LIMIT_SCALE": "5"},
			check: func(t *testing.T, o serveOptions) {
				if o.Config.DB != "flag.db" || o.Config.RateLimitScale != 2 {
					t.Fatalf("got db %q scale %v, want flag.db and 2", o.Config.DB, o.Config.RateLimitScale)
				}
			}},
		{name: "bad environment value", env: map[string]string{"RESELLER_FAIL_RATE": "lots"}, wantErr: "RESELLER_FAIL_RATE"},
		{name: "unknown flag", args: []string{"--nope"}, wantErr: "nope"},
		{name: "positional argument", args: []string{"extra"}, wantErr: "extra"},
		{name: "fail rate above 1", args: []string{"--fail-rate", "1.5"}, wantErr: "fail-rate"},
		{name: "negative scale", args: []string{"--rate-limit-scale", "-1"}, wantErr: "rate-limit-scale"},
		{name: "empty listen", args: []string{"--listen", ""}, wantErr: "listen"},
		{name: "bad duration", args: []string{"--order-window", "soon"}, wantErr: "order-window"},
		{name: "work lease under a second", args: []string{"--work-lease", "500ms"}, wantErr: "work-lease"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseServe(tt.args, mapEnv(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error naming %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, o)
		})
	}
}

func TestEnvName(t *testing.T) {
	t.Parallel()
	for flagName, want := range map[string]string{
		"rate-limit-scale": "RESELLER_RATE_LIMIT_SCALE", "db": "RESELLER_DB", "allow-http-webhooks": "RESELLER_ALLOW_HTTP_WEBHOOKS",
		"payment-type": "RESELLER_PAYMENT_TYPE",
	} {
		if got := envName(flagName); got != want {
			t.Errorf("envName(%q) = %q, want %q", flagName, got, want)
		}
	}
}

// cli runs the program like a shell would and returns its exit code and output.
func cli(t *testing.T, env lookupEnv, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr, env)
	return code, stdout.String(), stderr.String()
}

func TestAccountCommands(t *testing.T) {
	t.Parallel()
	testAccountCommands(t, filepath.Join(t.TempDir(), "sub", "cli.db"))
}

// testAccountCommands creates, rotates and tops up an account with the CLI on db, then serves
// db and checks the effects through the API.
func testAccountCommands(t *testing.T, db string) {
	t.Helper()
	code, out, errOut := cli(t, noEnv, "account", "create", "--db", db, "--balance", "12.5", "--server-limit", "3", "--language", "en")
	if code != exitOK {
		t.Fatalf("create: exit %d, stderr %s", code, errOut)
	}
	if !regexp.MustCompile(`^\{"account_id": 1, "api_key": "[0-9a-f]{64}"\}\n$`).MatchString(out) {
		t.Fatalf("create printed %q, want {\"account_id\": 1, \"api_key\": \"...\"}", out)
	}
	var created struct {
		ID  int64  `json:"account_id"`
		Key string `json:"api_key"`
	}
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		t.Fatal(err)
	}

	code, out, errOut = cli(t, mapEnv(map[string]string{"RESELLER_DB": db, "RESELLER_ACCOUNT": "1"}), "account", "rotate-key")
	newKey := strings.TrimSpace(out)
	if code != exitOK || len(newKey) != 64 || newKey == created.Key {
		t.Fatalf("rotate-key: exit %d, out %q, stderr %s; want a new 64-character key", code, out, errOut)
	}

	code, out, errOut = cli(t, noEnv, "account", "topup", "--db", db, "--account", "1", "--amount", "50", "--payment-type", "voucher")
	if code != exitOK || !strings.Contains(out, "50") {
		t.Fatalf("topup: exit %d, out %q, stderr %s", code, out, errOut)
	}

	// The effects are visible through the API: the new key works and the balance adds up.
	h := serveInBackground(t, db)
	balance := getJSON(t, h+"/api/v1/account/balance", newKey)
	if balance["balance"] != 62.5 {
		t.Fatalf("balance = %v, want 62.5", balance["balance"])
	}
	if status := getStatus(t, h+"/api/v1/account", created.Key); status != http.StatusUnauthorized {
		t.Fatalf("old key: status %d, want 401", status)
	}
}

func TestAccountCommandErrors(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "e.db")
	if code, _, errOut := cli(t, noEnv, "account", "create", "--db", db); code != exitOK {
		t.Fatalf("create: %s", errOut)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"no command", nil, exitUsage, "no command"},
		{"unknown command", []string{"frobnicate"}, exitUsage, "frobnicate"},
		{"no subcommand", []string{"account"}, exitUsage, "subcommand"},
		{"unknown subcommand", []string{"account", "delete"}, exitUsage, "delete"},
		{"rotate without account", []string{"account", "rotate-key", "--db", db}, exitUsage, "--account"},
		{"rotate unknown account", []string{"account", "rotate-key", "--db", db, "--account", "42"}, exitError, "not found"},
		{"topup without amount", []string{"account", "topup", "--db", db, "--account", "1"}, exitUsage, "--amount"},
		{"topup too precise", []string{"account", "topup", "--db", db, "--account", "1", "--amount", "0.0000001"}, exitUsage, "amount"},
		{"topup bad type", []string{"account", "topup", "--db", db, "--account", "1", "--amount", "1", "--payment-type", "cash"}, exitError, "payment_type"},
		{"create bad language", []string{"account", "create", "--db", db, "--language", "de"}, exitError, "language"},
		{"postgres unreachable", []string{"account", "create", "--db", "postgres://u@127.0.0.1:1/db?connect_timeout=5"}, exitError, "postgres: connect"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := cli(t, noEnv, tt.args...)
			if code != tt.wantCode || !strings.Contains(errOut, tt.wantErr) {
				t.Fatalf("exit %d, stderr %q; want exit %d mentioning %q", code, errOut, tt.wantCode, tt.wantErr)
			}
		})
	}
	if code, out, _ := cli(t, noEnv, "help"); code != exitOK || !strings.Contains(out, "resellerd serve") {
		t.Fatalf("help: exit %d, out %q", code, out)
	}
}

func TestServeBothAddressesAndShutdown(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "s.db")
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan []net.Addr, 1)
	done := make(chan error, 1)
	opts := serveOptions{Listen: "127.0.0.1:0", AltListen: "127.0.0.1:0"}
	opts.Config.DB = db
	opts.Config.OrderWindow = time.Minute
	go func() {
		done <- serve(ctx, opts, slog.New(slog.NewTextHandler(io.Discard, nil)), func(a []net.Addr) { addrs <- a })
	}()
	var bound []net.Addr
	select {
	case bound = <-addrs:
	case err := <-done:
		t.Fatalf("serve ended early: %v", err)
	case <-time.After(eventWait):
		t.Fatal("serve did not start")
	}
	if len(bound) != 2 {
		t.Fatalf("bound %v, want two addresses", bound)
	}
	for _, a := range bound {
		if status := getStatus(t, "http://"+a.String()+"/api/v1/health", ""); status != http.StatusOK {
			t.Fatalf("%s: health status %d", a, status)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve after cancel: %v", err)
		}
	case <-time.After(eventWait):
		t.Fatal("serve did not shut down")
	}
	if _, err := net.DialTimeout("tcp", bound[0].String(), time.Second); err == nil {
		t.Fatal("listener still open after shutdown")
	}
}

func TestServePortInUse(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	opts := serveOptions{Listen: ln.Addr().String()}
	opts.Config.DB = filepath.Join(t.TempDir(), "p.db")
	err = serve(context.Background(), opts, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	if err == nil {
		t.Fatal("serve on a busy port: got nil error")
	}
}

// serveInBackground serves db on a free port until the test ends and returns its base URL.
func serveInBackground(t *testing.T, db string) string {
	t.Helper()
	opts := serveOptions{Listen: "127.0.0.1:0"}
	opts.Config.DB = db
	opts.Config.RateLimitScale = 0
	return serveOptionsInBackground(t, opts)
}

// serveOptionsInBackground runs serve with opts until the test ends and returns its base URL.
func serveOptionsInBackground(t *testing.T, opts serveOptions) string {
	t.Helper()
	return serveLogging(t, opts, io.Discard)
}

func getStatus(t *testing.T, url, key string) int {
	t.Helper()
	resp := get(t, url, key)
	defer resp.Body.Close()
	return resp.StatusCode
}

func getJSON(t *testing.T, url, key string) map[string]any {
	t.Helper()
	resp := get(t, url, key)
	defer resp.Body.Close()
	var env struct {
		Data map[string]any `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	return env.Data
}

func get(t *testing.T, url, key string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("X-API-Token", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(fmt.Errorf("GET %s: %w", url, err))
	}
	return resp
}

// TestServeFlagsDriveProvisioning checks that the simulator flags of serve shape what orders do:
// --deploy-delay builds them, --fail-rate 1 loses every build and --order-window times them out.
func TestServeFlagsDriveProvisioning(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		flags      []string
		wantStatus string
	}{
		{"deployed after the deploy delay", []string{"--deploy-delay", "50ms", "--credentials-delay", "0s"}, "deployed"},
		{"timed out when every build fails", []string{"--fail-rate", "1", "--order-window", "300ms"}, "timed_out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "flags.db")
			opts, err := parseServe(append([]string{"--listen", "127.0.0.1:0", "--db", db, "--rate-limit-scale", "0"}, tt.flags...), noEnv)
			if err != nil {
				t.Fatal(err)
			}
			base := serveOptionsInBackground(t, opts)
			code, out, errOut := cli(t, noEnv, "account", "create", "--db", db, "--balance", "1")
			if code != exitOK {
				t.Fatalf("account create: exit %d: %s", code, errOut)
			}
			var acct struct {
				APIKey string `json:"api_key"`
			}
			if err := json.Unmarshal([]byte(out), &acct); err != nil {
				t.Fatal(err)
			}
			req, err := http.NewRequest(http.MethodPost, base+"/api/v1/instances",
				strings.NewReader(`{"server_id": 101, "template_id": 1, "term": "hourly"}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("X-API-Token", acct.APIKey)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var created struct {
				Data struct {
					OrderID int64 `json:"order_id"`
				} `json:"data"`
			}
			err = json.NewDecoder(resp.Body).Decode(&created)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusCreated {
				t.Fatalf("POST /instances: %d, %v", resp.StatusCode, err)
			}
			deadline := time.Now().Add(eventWait)
			for {
				order := getJSON(t, fmt.Sprintf("%s/api/v1/orders/%d", base, created.Data.OrderID), acct.APIKey)
				if order["status"] == tt.wantStatus {
					return
				}
				if order["status"] != "pending" || time.Now().After(deadline) {
					t.Fatalf("order = %v, want %s", order, tt.wantStatus)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"--version", "version"} {
		code, out, errOut := cli(t, noEnv, arg)
		if code != exitOK || out != "resellerd "+version+"\n" || errOut != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 0 and %q", arg, code, out, errOut, "resellerd "+version+"\n")
		}
	}
}
