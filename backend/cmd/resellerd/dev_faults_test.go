package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// faultView is a rule as GET /_dev/faults shows it.
type faultView struct {
	Route     string  `json:"route"`
	Status    *int    `json:"status"`
	LatencyMS int64   `json:"latency_ms"`
	Reset     bool    `json:"reset"`
	Rate      float64 `json:"rate"`
	Count     *int64  `json:"count"`
	AccountID *int64  `json:"account_id"`
	Remaining *int64  `json:"remaining"`
}

// setFaults replaces the fault rules with rules (a JSON array) and returns them as shown.
func (d *devAPI) setFaults(t *testing.T, rules string) []faultView {
	t.Helper()
	var out struct{ Rules []faultView }
	d.call(t, "PUT", "/_dev/faults", "", `{"rules": `+rules+`}`).want(t, 200, "").into(t, &out)
	return out.Rules
}

func (d *devAPI) faults(t *testing.T) []faultView {
	t.Helper()
	var out struct{ Rules []faultView }
	d.call(t, "GET", "/_dev/faults", "", "").want(t, 200, "").into(t, &out)
	return out.Rules
}

// TestDevFaultCount: a rule with a count of 2 fails exactly the next two matching requests,
// then lets them pass; other routes never fail; both faults are journaled with fault=true.
func TestDevFaultCount(t *testing.T) {
	t.Parallel()
	d := startDevInProcess(t)
	rules := d.setFaults(t, `[{"route": "GET /account", "status": 503, "count": 2}]`)
	if len(rules) != 1 || *rules[0].Remaining != 2 || rules[0].Rate != 1 || rules[0].Reset || rules[0].AccountID != nil {
		t.Fatalf("rules %+v", rules)
	}
	for i := range 2 {
		a := d.call(t, "GET", "/api/v1/account", d.key, "").want(t, 503, "injected_fault")
		if !strings.Contains(a.Error.Message, "GET /account") {
			t.Fatalf("fault %d: message %q does not name the rule's route", i+1, a.Error.Message)
		}
		d.call(t, "GET", "/api/v1/account/balance", d.key, "").want(t, 200, "")
	}
	d.call(t, "GET", "/api/v1/account", d.key, "").want(t, 200, "")
	d.call(t, "GET", "/api/v1/account", d.key, "").want(t, 200, "")
	if rules := d.faults(t); len(rules) != 1 || *rules[0].Remaining != 0 || *rules[0].Count != 2 {
		t.Fatalf("after two faults: %+v", rules)
	}
	entries, _ := d.journal(t, "route="+strings.ReplaceAll("GET /account", " ", "+"))
	var faults []int
	for _, e := range entries {
		if e.Fault {
			faults = append(faults, *e.Status)
		}
		if *e.AccountID == 0 {
			t.Fatalf("entry without its account: %+v", e)
		}
	}
	if len(entries) != 4 || len(faults) != 2 || faults[0] != 503 || faults[1] != 503 {
		t.Fatalf("journal %+v", entries)
	}
	d.call(t, "DELETE", "/_dev/faults", "", "").want(t, 200, "")
	if rules := d.faults(t); len(rules) != 0 {
		t.Fatalf("after DELETE: %+v", rules)
	}
}

// TestDevFault429RetryAfter: an injected 429 says Retry-After: 1, as the API's own 429 does;
// the other statuses are answered in the envelope with code injected_fault.
func TestDevFault429RetryAfter(t *testing.T) {
	t.Parallel()
	d := startDevInProcess(t)
	for _, status := range []int{429, 500, 502, 503} {
		d.setFaults(t, `[{"route": "GET /account/balance", "status": `+itoa(int64(status))+`, "count": 1}]`)
		req, _ := http.NewRequest("GET", d.base+"/api/v1/account/balance", nil)
		req.Header.Set("X-API-Token", d.key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body answer
		err = json.NewDecoder(res.Body).Decode(&body)
		_ = res.Body.Close()
		if err != nil || res.StatusCode != status || body.Success || body.Error.Code != "injected_fault" ||
			res.Header.Get("Content-Type") != "application/json; charset=utf-8" {
			t.Fatalf("status %d: got %d %+v (%v)", status, res.StatusCode, body, err)
		}
		if retry := res.Header.Get("Retry-After"); (status == 429) != (retry == "1") {
			t.Fatalf("status %d: Retry-After %q", status, retry)
		}
	}
}

// TestDevFaultReset: a reset rule closes the connection without an answer (the client sees a
// connection error), is journaled with no status and fault=true, and then lets requests pass.
func TestDevFaultReset(t *testing.T) {
	t.Parallel()
	d := startDevInProcess(t)
	d.setFaults(t, `[{"route": "POST /quote", "reset": true, "count": 1}]`)
	// A fresh connection: Go's client retries a replayable request once on a reused one.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	req, _ := http.NewRequest("POST", d.base+"/api/v1/quote", strings.NewReader(`{"server_id": 101, "template_id": 1}`))
	req.Header.Set("X-API-Token", d.key)
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err == nil {
		_ = res.Body.Close()
		t.Fatalf("the reset request was answered %d", res.StatusCode)
	}
	d.call(t, "POST", "/api/v1/quote", d.key, `{"server_id": 101, "template_id": 1}`).want(t, 200, "")
	entries, _ := d.journal(t, "limit=2")
	if len(entries) != 2 || entries[1].Status != nil || !entries[1].Fault || entries[1].Route != "POST /quote" ||
		entries[1].ResponseBody != nil || path(entries[1].RequestBody, "server_id") != float64(101) || entries[0].Fault {
		t.Fatalf("journal %+v", entries)
	}
}

// TestDevFaultLatency: latency_ms delays a matching request by at least that long, whether it
// then passes (fault=false in the journal) or fails; other routes are not delayed: GET
// /account/balance, which a rule on GET /account matched as a prefix would hold 2 s. (That
// latency is long so that a loaded machine's slow answer is not taken for it.)
func TestDevFaultLatency(t *testing.T) {
	t.Parallel()
	d := startDevInProcess(t)
	d.setFaults(t, `[{"route": "GET /account", "latency_ms": 2000}, {"route": "POST /quote", "latency_ms": 200, "status": 500}]`)
	timed := func(method, path, body string, status int, code string) time.Duration {
		start := time.Now()
		d.call(t, method, path, d.key, body).want(t, status, code)
		return time.Since(start)
	}
	if took := timed("GET", "/api/v1/account", "", 200, ""); took < 2*time.Second {
		t.Fatalf("GET /account took %v, want at least 2s", took)
	}
	if took := timed("POST", "/api/v1/quote", `{"server_id": 101, "template_id": 1}`, 500, "injected_fault"); took < 200*time.Millisecond {
		t.Fatalf("the faulted POST /quote took %v, want at least 200ms", took)
	}
	if took := timed("GET", "/api/v1/account/balance", "", 200, ""); took >= 2*time.Second {
		t.Fatalf("an unmatched route took %v", took)
	}
	entries, _ := d.journal(t, "")
	if len(entries) != 3 || entries[2].Fault || entries[2].DurationMS < 2000 || !entries[1].Fault || entries[1].DurationMS < 200 {
		t.Fatalf("journal %+v", entries)
	}
}

// TestDevFaultLatencyEndsWithTheClient: a request whose client gives up during its latency is
// not held for the rest of it: it is journaled having taken less than the latency.
func TestDevFaultLatencyEndsWithTheClient(t *testing.T) {
	t.Parallel()
	d := startDevInProcess(t)
	const latencyMS = 30000
	d.setFaults(t, fmt.Sprintf(`[{"route": "GET /account", "latency_ms": %d}]`, latencyMS))
	client := &http.Client{Timeout: 200 * time.Millisecond}
	req, _ := http.NewRequest("GET", d.base+"/api/v1/account", nil)
	req.Header.Set("X-API-Token", d.key)
	if res, err := client.Do(req); err == nil {
		_ = res.Body.Close()
		t.Fatal("answered within the client's 200ms")
	}
	deadline := time.Now().Add(eventWait)
	for {
		if entries, _ := d.journal(t, ""); len(entries) == 1 {
			if entries[0].Status != nil || entries[0].Fault || entries[0].DurationMS >= latencyMS {
				t.Fatalf("entry %+v; want no status, no fault and less than the %d ms latency", entries[0], latencyMS)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the abandoned request was not journaled within %s", eventWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// twoAccounts is a seed of two accounts.
const twoAccounts = `accounts:
  - api_key: faults-a-0123456789abcdef0123456789abcdef
    balance: 10
  - api_key: faults-b-0123456789abcdef0123456789abcdef
    balance: 10
`

// TestDevFaultAccountScope: a rule with account_id fails only the requests whose key is that
// account's; requests of another account or without a key pass.
func TestDevFaultAccountScope(t *testing.T) {
	t.Parallel()
	d := startDevInProcess(t, "--seed", writeSeed(t, twoAccounts))
	keyA, keyB := "faults-a-0123456789abcdef0123456789abcdef", "faults-b-0123456789abcdef0123456789abcdef"
	idB := d.accountID(t, keyB)
	d.setFaults(t, `[{"route": "*", "status": 500, "account_id": `+itoa(idB)+`}]`)
	d.call(t, "GET", "/api/v1/account", keyB, "").want(t, 500, "injected_fault")
	d.call(t, "GET", "/api/v1/catalog/servers", keyB, "").want(t, 500, "injected_fault")
	d.call(t, "GET", "/api/v1/account", keyA, "").want(t, 200, "")
	d.call(t, "GET", "/api/v1/health", "", "").want(t, 200, "")
	d.call(t, "GET", "/api/v1/account", "wrong-0123456789abcdef0123456789abcdef", "").want(t, 401, "unauthorized")
	entries, _ := d.journal(t, "limit=5")
	if !entries[4].Fault || *entries[4].AccountID != idB || entries[2].Fault {
		t.Fatalf("journal %+v", entries)
	}
}

// TestDevFaultsNeverApplyToDev: a rule on every route ("*") fails the API but no /_dev/ route,
// so a test can always take its rules back.
func TestDevFaultsNeverApplyToDev(t *testing.T) {
	t.Parallel()
	d := startDevInProcess(t)
	d.setFaults(t, `[{"route": "*", "status": 503}, {"route": "*", "reset": true}]`)
	d.call(t, "GET", "/api/v1/account", d.key, "").want(t, 503, "injected_fault")
	d.call(t, "GET", "/api/v1/no-such-route", d.key, "").want(t, 503, "injected_fault")
	d.call(t, "GET", "/_dev/faults", "", "").want(t, 200, "")
	d.call(t, "GET", "/_dev/requests", "", "").want(t, 200, "")
	d.call(t, "POST", "/_dev/clock", "", `{"advance": "1h"}`).want(t, 200, "")
	d.call(t, "GET", "/_dev/unknown", "", "").want(t, 404, "not_found")
	d.call(t, "DELETE", "/_dev/faults", "", "").want(t, 200, "")
	d.call(t, "GET", "/api/v1/account", d.key, "").want(t, 200, "")
}

// TestDevFaultRuleValidation: PUT /_dev/faults refuses a bad rule with a 400 naming its field
// and keeps the rules it had; every route of the API, and "*", is accepted.
func TestDevFaultRuleValidation(t *testing.T) {
	t.Parallel()
	d := startDevInProcess(t)
	kept := d.setFaults(t, `[{"route": "GET /account", "latency_ms": 1}]`)
	for _, tt := range []struct{ body, field string }{
		{`{}`, "rules"},
		{`{"rules": [{"status": 500}]}`, "rules[0].route"},
		{`{"rules": [{"route": "GET /nope", "status": 500}]}`, "rules[0].route"},
		{`{"rules": [{"route": "GET /instances/1", "status": 500}]}`, "rules[0].route"},
		{`{"rules": [{"route": "get /account", "status": 500}]}`, "rules[0].route"},
		{`{"rules": [{"route": "GET /_dev/faults", "status": 500}]}`, "rules[0].route"},
		{`{"rules": [{"route": "*", "status": 404}]}`, "rules[0].status"},
		{`{"rules": [{"route": "*", "status": 200}]}`, "rules[0].status"},
		{`{"rules": [{"route": "*"}]}`, "rules[0].status"},
		{`{"rules": [{"route": "*", "status": 500, "rate": 1.5}]}`, "rules[0].rate"},
		{`{"rules": [{"route": "*", "status": 500, "rate": -0.1}]}`, "rules[0].rate"},
		{`{"rules": [{"route": "*", "status": 500, "count": -1}]}`, "rules[0].count"},
		{`{"rules": [{"route": "*", "latency_ms": -1}]}`, "rules[0].latency_ms"},
		{`{"rules": [{"route": "*", "latency_ms": 30001}]}`, "rules[0].latency_ms"},
		{`{"rules": [{"route": "*", "status": 500, "account_id": 0}]}`, "rules[0].account_id"},
		{`{"rules": [{"route": "*", "status": 500, "reset": true}]}`, "rules[0].reset"},
		{`{"rules": [{"route": "*", "status": 500}, {"route": "*", "status": 418}]}`, "rules[1].status"},
		{`{"rules": [{"route": "*", "status": 500, "bogus": 1}]}`, "bogus"},
		{`{"rules": [{"route": "*", "status": "500"}]}`, "rules.status"},
	} {
		a := d.call(t, "PUT", "/_dev/faults", "", tt.body).want(t, 400, "validation_error")
		if !strings.HasPrefix(a.Error.Message, tt.field+":") {
			t.Errorf("%s: message %q does not name %s", tt.body, a.Error.Message, tt.field)
		}
	}
	if got := d.faults(t); !reflect.DeepEqual(got, kept) {
		t.Fatalf("a refused PUT changed the rules: %+v, want %+v", got, kept)
	}
	rules := d.setFaults(t, `[{"route": "*", "reset": true, "rate": 0}, {"route": "GET /instances/{instance_id}", "status": 429},
		{"route": "POST /instances/{instance_id}/actions", "status": 502, "count": 0}, {"route": "GET /health", "status": 500, "rate": 0.5},
		{"route": "GET /livez", "latency_ms": 30000, "account_id": 3}, {"route": "GET /openapi.json", "status": 503, "count": 5}]`)
	if len(rules) != 6 || rules[1].Rate != 1 || rules[1].Remaining != nil || rules[1].Count != nil || *rules[2].Remaining != 0 ||
		rules[3].Rate != 0.5 || *rules[4].AccountID != 3 || rules[4].LatencyMS != 30000 || *rules[5].Remaining != 5 || rules[0].Status != nil {
		t.Fatalf("rules %+v", rules)
	}
	d.call(t, "POST", "/api/v1/instances/1/actions", d.key, `{"action": "reboot"}`).want(t, 404, "not_found") // count 0: never
}
