package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestNoSecretInAnyLog runs a full flow at Debug level on PostgreSQL, whose --db URL carries a
// password (the throwaway server trusts every connection, so any password connects): an account
// and its key, a webhook with its secret, an order deployed with its root password, a password
// reset and a console session, a test ping and an event delivery, a request with a wrong key.
// Every line serve logged is then searched for each secret.
func TestNoSecretInAnyLog(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(pg.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	const dbPassword = "db-Pa55word-never-logged"
	u.User = url.UserPassword(u.User.Username(), dbPassword)
	db := u.String()

	var logs bytes.Buffer // written by serve's one handler (which serialises writes), read after serve ended
	opts, err := parseServe([]string{"--listen", "127.0.0.1:0", "--db", db, "--deploy-delay", "20ms",
		"--credentials-delay", "0s", "--allow-http-webhooks", "--rate-limit-scale", "0", "--log-level", "debug"}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	logger, err := newLogger(&logs, opts.Log)
	if err != nil {
		t.Fatal(err)
	}
	bound, stop := startServe(t, opts, logger)
	base := "http://" + bound[0].String() + "/api/v1"

	code, out, errOut := cli(t, noEnv, "account", "create", "--db", db, "--balance", "50")
	if code != exitOK {
		t.Fatalf("account create: %d %s", code, errOut)
	}
	var acct struct {
		APIKey string `json:"api_key"`
	}
	if err := json.Unmarshal([]byte(out), &acct); err != nil {
		t.Fatal(err)
	}
	hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer hooks.Close()
	const hookSecret = "whsec_never-in-a-log-0123456789"
	call := func(method, path, body string) map[string]any {
		t.Helper()
		return callAPI(t, method, base+path, acct.APIKey, body)
	}
	call(http.MethodPut, "/account/webhook", fmt.Sprintf(`{"url": %q, "secret": %q}`, hooks.URL+"/h", hookSecret))
	call(http.MethodPost, "/account/webhook/test", "")
	order := call(http.MethodPost, "/instances", `{"server_id": 101, "template_id": 1, "term": "hourly"}`)
	orderID := int64(order["order_id"].(float64))

	secrets := []string{acct.APIKey, hookSecret, dbPassword}
	var instanceID int64
	deadline := time.Now().Add(eventWait)
	for instanceID == 0 || len(secrets) < 4 {
		if time.Now().After(deadline) {
			t.Fatalf("no deployed instance with a root password (order %d)", orderID)
		}
		time.Sleep(20 * time.Millisecond)
		o := call(http.MethodGet, fmt.Sprintf("/orders/%d", orderID), "")
		srv, _ := o["server"].(map[string]any)
		if srv == nil {
			continue
		}
		instanceID = int64(srv["id"].(float64))
		inst := call(http.MethodGet, fmt.Sprintf("/instances/%d", instanceID), "")
		if c, _ := inst["credentials"].(map[string]any); c != nil && c["password"] != nil {
			secrets = append(secrets, c["password"].(string))
		}
	}
	reset := call(http.MethodPost, fmt.Sprintf("/instances/%d/actions", instanceID), `{"action": "reset_password"}`)
	console := call(http.MethodPost, fmt.Sprintf("/instances/%d/actions", instanceID), `{"action": "console"}`)
	for _, v := range []any{reset["password"], console["console_password"]} {
		if s, ok := v.(string); ok && s != "" {
			secrets = append(secrets, s)
		}
	}
	callAPI(t, http.MethodGet, base+"/account", acct.APIKey[:32]+"0000000000000000000000000000000", "")
	time.Sleep(200 * time.Millisecond) // let the deliveries of the events above be attempted
	stop()

	text := logs.String()
	if !strings.Contains(text, "level=DEBUG") || !strings.Contains(text, "msg=listening") {
		t.Fatalf("the log has no Debug or start lines; the search proves nothing:\n%s", text)
	}
	if len(secrets) < 6 {
		t.Fatalf("collected %d secrets, want the key, the webhook secret, the DB password and three root/console passwords", len(secrets))
	}
	for _, line := range strings.Split(text, "\n") {
		for _, s := range secrets {
			if strings.Contains(line, s) {
				t.Errorf("a secret (%.6s…) is in the log line: %s", s, line)
			}
		}
	}
	t.Logf("searched %d log lines for %d secrets", strings.Count(text, "\n"), len(secrets))
}

// callAPI sends one request with key and returns the data of the envelope (nil for an error).
func callAPI(t *testing.T, method, url, key, body string) map[string]any {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Token", key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var env struct {
		Data map[string]any `json:"data"`
	}
	_ = json.Unmarshal(raw, &env)
	return env.Data
}
