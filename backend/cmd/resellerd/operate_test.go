package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The operator's commands against a running serve (SQLite and PostgreSQL): each change is seen
// through the API, although the customer's key is already cached, and each is in the audit
// trail.

// seenWithin bounds the wait for every replica to show an operator's change. The cache has no
// expiry to wait out (a commit empties it), so a change not seen at all is what fails; how soon
// it is seen is a speed, which a loaded CI host must not be held to.
const seenWithin = eventWait

// operated is one customer of a running serve (or several replicas on one database), with its
// key cached by each replica.
type operated struct {
	db    string
	bases []string // each replica's base URL
	key   string
	id    int64
}

// startOperated creates a customer with the CLI, starts replicas serve processes on db and has
// each authenticate the customer's key once, so it is cached.
func startOperated(t *testing.T, db string, replicas int) *operated {
	t.Helper()
	o := &operated{db: db}
	o.id, o.key = createOperatedAccount(t, db)
	for range replicas {
		opts, err := parseServe([]string{"--listen", "127.0.0.1:0", "--db", db, "--rate-limit-scale", "0",
			"--deploy-delay", "50ms", "--credentials-delay", "0s"}, noEnv)
		if err != nil {
			t.Fatal(err)
		}
		base := serveOptionsInBackground(t, opts)
		if status, code, _ := call(t, http.MethodGet, base+"/api/v1/account", o.key, ""); status != http.StatusOK {
			t.Fatalf("GET /account before any change: %d %s", status, code)
		}
		o.bases = append(o.bases, base)
	}
	return o
}

// createOperatedAccount creates an account with $100 through the CLI and returns its id and key.
func createOperatedAccount(t *testing.T, db string) (int64, string) {
	t.Helper()
	code, out, errOut := cli(t, opEnv, "account", "create", "--db", db, "--balance", "100")
	if code != exitOK {
		t.Fatalf("account create: exit %d: %s", code, errOut)
	}
	var created struct {
		ID  int64  `json:"account_id"`
		Key string `json:"api_key"`
	}
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		t.Fatal(err)
	}
	return created.ID, created.Key
}

// opEnv is the environment of the operator's commands in these tests: RESELLER_OPERATOR names
// who runs them.
var opEnv = mapEnv(map[string]string{"RESELLER_OPERATOR": "carol"})

// run runs an operator command on o's database and fails the test unless it succeeds.
func (o *operated) run(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := cli(t, opEnv, append(args, "--db", o.db)...)
	if code != exitOK {
		t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	return out
}

// seen waits, on every replica, at most seenWithin for check to hold.
func (o *operated) seen(t *testing.T, what string, check func(base string) (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(seenWithin)
	for _, base := range o.bases {
		for {
			ok, got := check(base)
			if ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %s not seen within %v: %s", base, what, seenWithin, got)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// call sends one request and returns its status, error code and data.
func call(t *testing.T, method, url, key, body string) (int, string, json.RawMessage) {
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
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Data  json.RawMessage `json:"data"`
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatalf("%s %s: %d %s: %v", method, url, resp.StatusCode, raw, err)
	}
	code := ""
	if env.Error != nil {
		code = env.Error.Code
	}
	return resp.StatusCode, code, env.Data
}

// answers is a check that a request answers status (and, for an error, code).
func answers(t *testing.T, method, path, key, body string, status int, code string) func(string) (bool, string) {
	return func(base string) (bool, string) {
		gotStatus, gotCode, _ := call(t, method, base+path, key, body)
		return gotStatus == status && gotCode == code, fmt.Sprintf("%d %s, want %d %s", gotStatus, gotCode, status, code)
	}
}

// deployServer orders the cheapest plan and waits for its server; it returns the instance id.
func (o *operated) deployServer(t *testing.T) int64 {
	t.Helper()
	status, code, data := call(t, http.MethodPost, o.bases[0]+"/api/v1/instances", o.key, ubuntuOn101)
	if status != http.StatusCreated {
		t.Fatalf("POST /instances: %d %s", status, code)
	}
	var order struct {
		ID     int64  `json:"order_id"`
		Status string `json:"status"`
		Server *struct {
			ID int64 `json:"id"`
		} `json:"server"`
	}
	if err := json.Unmarshal(data, &order); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(eventWait); ; time.Sleep(20 * time.Millisecond) {
		_, _, data := call(t, http.MethodGet, fmt.Sprintf("%s/api/v1/orders/%d", o.bases[0], order.ID), o.key, "")
		if err := json.Unmarshal(data, &order); err != nil {
			t.Fatal(err)
		}
		if order.Status == "deployed" && order.Server != nil {
			return order.Server.ID
		}
		if order.Status != "pending" || time.Now().After(deadline) {
			t.Fatalf("order %d: %s, want deployed", order.ID, order.Status)
		}
	}
}

const (
	ubuntuOn101   = `{"server_id": 101, "template_id": 1, "term": "hourly"}`
	ubuntuInDubai = `{"server_id": 401, "template_id": 1, "term": "hourly"}` // a require_kyc datacenter
	dockerOn101   = `{"server_id": 101, "template_id": 1, "term": "hourly", "apps": ["docker"]}`
)

func TestOperatorCommands(t *testing.T) {
	t.Parallel()
	testOperatorCommands(t, filepath.Join(t.TempDir(), "op.db"))
}

func TestOperatorCommandsPostgres(t *testing.T) {
	t.Parallel()
	testOperatorCommands(t, pg.Database(t))
}

// testOperatorCommands runs each operator command against a running serve on db, checks its
// effect through the API, then reads the audit trail of the whole sequence.
func testOperatorCommands(t *testing.T, db string) {
	o := startOperated(t, db, 1)
	server := o.deployServer(t)
	id := fmt.Sprint(o.id)

	o.run(t, "account", "block", "--account", id, "--reason", "abuse report 17")
	o.seen(t, "block", answers(t, http.MethodGet, "/api/v1/account", o.key, "", http.StatusForbidden, "forbidden"))
	o.run(t, "account", "unblock", "--account", id, "--operator", "dave")
	o.seen(t, "unblock", answers(t, http.MethodGet, "/api/v1/account", o.key, "", http.StatusOK, ""))

	if status, code, _ := call(t, http.MethodPost, o.bases[0]+"/api/v1/instances", o.key, ubuntuInDubai); status != http.StatusForbidden {
		t.Fatalf("Dubai before verify: %d %s, want 403", status, code)
	}
	o.run(t, "account", "verify", "--account", id)
	o.seen(t, "verify", answers(t, http.MethodPost, "/api/v1/instances", o.key, ubuntuInDubai, http.StatusCreated, ""))

	// Two servers now count against server_limit (the deployed one and the Dubai order).
	o.run(t, "account", "set", "--account", id, "--server-limit", "2", "--reason", "trial")
	o.seen(t, "--server-limit 2", answers(t, http.MethodPost, "/api/v1/instances", o.key, ubuntuOn101, http.StatusConflict, "server_limit_reached"))
	o.seen(t, "--server-limit 2 in GET /account", func(base string) (bool, string) {
		_, _, data := call(t, http.MethodGet, base+"/api/v1/account", o.key, "")
		return strings.Contains(string(data), `"server_limit":2`), string(data)
	})
	o.run(t, "account", "set", "--account", id, "--server-limit", "10", "--apps", "off", "--language", "en")
	o.seen(t, "--apps off", answers(t, http.MethodPost, "/api/v1/instances", o.key, dockerOn101, http.StatusForbidden, "forbidden"))

	actions := fmt.Sprintf("/api/v1/instances/%d/actions", server)
	rename := `{"action": "update_metadata", "name": "renamed"}`
	o.run(t, "instance", "lock", "--instance", fmt.Sprint(server), "--reason", "traffic")
	o.seen(t, "lock", answers(t, http.MethodPost, actions, o.key, rename, http.StatusConflict, "instance_locked"))
	o.run(t, "instance", "unlock", "--instance", fmt.Sprint(server))
	o.seen(t, "unlock", func(base string) (bool, string) {
		status, code, _ := call(t, http.MethodPost, base+actions, o.key, rename)
		return status/100 == 2, fmt.Sprintf("%d %s, want it accepted", status, code)
	})
	checkInstanceSet(t, o, server)

	checkAccountViews(t, o)
	checkAuditTrail(t, o, server)
}

// checkAccountViews reads the account with account list and show, as JSON and as tables.
func checkAccountViews(t *testing.T, o *operated) {
	t.Helper()
	var list []map[string]any
	if err := json.Unmarshal([]byte(o.run(t, "account", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("account list --json: %v, want the one account", list)
	}
	fields := []string{"id", "balance", "debt", "servers", "server_limit", "api_order_limit", "blocked", "verified",
		"apps_enabled", "language", "api_key_hint"}
	got := make([]string, 0, len(list[0]))
	for k := range list[0] {
		got = append(got, k)
	}
	slices.Sort(got)
	if want := slices.Sorted(slices.Values(fields)); !slices.Equal(got, want) {
		t.Fatalf("account list --json fields %v, want %v", got, want)
	}
	a := list[0]
	if a["id"] != float64(o.id) || a["blocked"] != false || a["verified"] != true || a["apps_enabled"] != false ||
		a["server_limit"] != float64(10) || a["language"] != "en" || a["api_key_hint"] != o.key[:8] {
		t.Fatalf("account list --json: %v", a)
	}
	if b, ok := a["balance"].(float64); !ok || b >= 100 || b <= 0 {
		t.Fatalf("balance %v, want what is left of $100 after a server", a["balance"])
	}

	var shown map[string]any
	if err := json.Unmarshal([]byte(o.run(t, "account", "show", "--account", fmt.Sprint(o.id), "--json")), &shown); err != nil {
		t.Fatal(err)
	}
	for _, f := range append(fields, "pending_orders", "locks") {
		if _, ok := shown[f]; !ok {
			t.Errorf("account show --json has no %q: %v", f, shown)
		}
	}
	table := o.run(t, "account", "list")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ID") || !strings.Contains(lines[1], o.key[:8]) {
		t.Fatalf("account list:\n%s", table)
	}
	if col := strings.Index(lines[0], "BALANCE"); col <= 0 || lines[1][col-1] != ' ' || lines[1][col] == ' ' {
		t.Fatalf("account list: the BALANCE column is not aligned:\n%s", table)
	}
}

// checkInstanceSet gives the server a traffic allowance of 1 GB without overage (--json), then
// allows overage again (one line), each seen through the API's traffic of the server.
func checkInstanceSet(t *testing.T, o *operated, server int64) {
	t.Helper()
	id := fmt.Sprint(server)
	var got map[string]any
	out := o.run(t, "instance", "set", "--instance", id, "--traffic-included", "1", "--allow-overage", "off", "--reason", "trial cap", "--json")
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("instance set --json: %v: %s", err, out)
	}
	fields := []string{"instance_id", "enabled", "included", "used", "overage", "allow_overage", "cycle_start_date"}
	if len(got) != len(fields) || got["instance_id"] != float64(server) || got["included"] != float64(1) || got["allow_overage"] != false ||
		got["enabled"] != true || got["used"] != float64(0) {
		t.Fatalf("instance set --json = %v; want fields %v, 1 GB included, no overage", got, fields)
	}
	traffic := fmt.Sprintf("/api/v1/instances/%d/traffic", server)
	trafficIs := func(want string) func(string) (bool, string) {
		return func(base string) (bool, string) {
			_, _, data := call(t, http.MethodGet, base+traffic, o.key, "")
			return strings.Contains(string(data), want), string(data)
		}
	}
	o.seen(t, "--traffic-included 1 --allow-overage off", trafficIs(`"included":1,"used":0,"overage":0,"allow_overage":false`))
	line := o.run(t, "instance", "set", "--instance", id, "--allow-overage", "on", "--reason", "trial cap")
	if want := fmt.Sprintf("instance %d: traffic included 1 GB a cycle, overage on;", server); !strings.HasPrefix(line, want) {
		t.Fatalf("instance set printed %q, want it to start %q", line, want)
	}
	o.seen(t, "--allow-overage on", trafficIs(`"included":1,"used":0,"overage":0,"allow_overage":true`))
}

// auditEntry is an entry of `resellerd audit --json`.
type auditEntry struct {
	ID         int64          `json:"id"`
	Time       time.Time      `json:"time"`
	Operator   string         `json:"operator"`
	Command    string         `json:"command"`
	AccountID  int64          `json:"account_id"`
	InstanceID int64          `json:"instance_id"`
	Reason     string         `json:"reason"`
	Before     map[string]any `json:"before"`
	After      map[string]any `json:"after"`
}

func (o *operated) audit(t *testing.T, args ...string) []auditEntry {
	t.Helper()
	var entries []auditEntry
	if err := json.Unmarshal([]byte(o.run(t, append([]string{"audit", "--json"}, args...)...)), &entries); err != nil {
		t.Fatal(err)
	}
	return entries
}

// checkAuditTrail reads the entries of testOperatorCommands' sequence, and the filters.
func checkAuditTrail(t *testing.T, o *operated, server int64) {
	t.Helper()
	id := fmt.Sprint(o.id)
	entries := o.audit(t, "--account", id)
	var commands []string
	for _, e := range entries {
		commands = append(commands, e.Command)
		if e.AccountID != o.id || e.Time.IsZero() || time.Since(e.Time) > time.Minute {
			t.Errorf("entry %+v: want account %d, written just now", e, o.id)
		}
	}
	want := []string{"account create", "account block", "account unblock", "account verify", "account set", "account set",
		"instance lock", "instance unlock", "instance set", "instance set"}
	if !slices.Equal(commands, want) {
		t.Fatalf("audit --account %s: commands %v, want %v", id, commands, want)
	}
	block, unblock, set, lock := entries[1], entries[2], entries[4], entries[6]
	if block.Operator != "carol" || block.Reason != "abuse report 17" || block.Before["blocked"] != false || block.After["blocked"] != true {
		t.Errorf("block entry: %+v", block)
	}
	if unblock.Operator != "dave" || unblock.After["blocked"] != false {
		t.Errorf("unblock entry (--operator dave): %+v", unblock)
	}
	if set.Reason != "trial" || set.Before["server_limit"] != float64(10) || set.After["server_limit"] != float64(2) || len(set.After) != 1 {
		t.Errorf("set entry: %+v; want server_limit 10 -> 2 alone", set)
	}
	if lock.InstanceID != server || lock.Reason != "traffic" || lock.After["locked"] != true || lock.After["lock_reason"] != "traffic" {
		t.Errorf("lock entry: %+v", lock)
	}
	if cap := entries[8]; cap.InstanceID != server || cap.Reason != "trial cap" || cap.Before["traffic_included_gb"] != float64(1000) ||
		cap.After["traffic_included_gb"] != float64(1) || cap.Before["allow_overage"] != true || cap.After["allow_overage"] != false {
		t.Errorf("instance set entry: %+v; want 1000 GB with overage -> 1 GB without", cap)
	}
	if entries[0].After["balance"] != float64(100) {
		t.Errorf("create entry: %+v; want balance 100 (USD)", entries[0])
	}

	checkAuditJSONShape(t, o)

	if recent := o.audit(t, "--since", "1ns"); len(recent) != 0 {
		t.Errorf("audit --since 1ns: %d entries, want none (all are older)", len(recent))
	}
	if hour := o.audit(t, "--since", "1h", "--account", id); len(hour) != len(want) {
		t.Errorf("audit --since 1h: %d entries, want %d", len(hour), len(want))
	}
	other, _ := createOperatedAccount(t, o.db)
	o.run(t, "account", "topup", "--account", fmt.Sprint(other), "--amount", "5")
	if got := o.audit(t, "--account", id); len(got) != len(want) {
		t.Errorf("audit --account %s after another account's commands: %d entries, want %d", id, len(got), len(want))
	}
	all := o.audit(t)
	if len(all) != len(want)+2 || all[len(all)-1].Command != "account topup" || all[len(all)-1].AccountID != other ||
		all[len(all)-1].After["balance"] != float64(105) || all[len(all)-1].Before["balance"] != float64(100) {
		t.Errorf("audit: %d entries, last %+v; want the other account's create and topup (100 -> 105 USD) last", len(all), all[len(all)-1])
	}
	table := o.run(t, "audit")
	if strings.Contains(table, o.key) || !strings.HasPrefix(table, "ID") || strings.Count(table, "\n") != len(all)+1 {
		t.Errorf("audit table (one line an entry, no key):\n%s", table)
	}
}

// TestOperatorBlockSeenByEveryReplica: two serve replicas on one PostgreSQL database, both
// with the key cached; a block through the CLI is seen by both, and so is the unblock.
func TestOperatorBlockSeenByEveryReplica(t *testing.T) {
	t.Parallel()
	o := startOperated(t, pg.Database(t), 2)
	o.run(t, "account", "block", "--account", fmt.Sprint(o.id), "--reason", "abuse")
	o.seen(t, "block", answers(t, http.MethodGet, "/api/v1/account", o.key, "", http.StatusForbidden, "forbidden"))
	o.run(t, "account", "unblock", "--account", fmt.Sprint(o.id))
	o.seen(t, "unblock", answers(t, http.MethodGet, "/api/v1/account", o.key, "", http.StatusOK, ""))
}

// TestOperatorBadInput: a bad flag exits 2 naming it, an unknown account or instance exits 1
// naming it, and none of them changes an account or writes an audit entry.
func TestOperatorBadInput(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "bad.db")
	o := &operated{db: db}
	o.id, o.key = createOperatedAccount(t, db)
	before := o.run(t, "account", "list", "--json")
	entries := len(o.audit(t))
	id := fmt.Sprint(o.id)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"negative server limit", []string{"account", "set", "--account", id, "--server-limit", "-1"}, exitUsage, "server-limit"},
		{"negative order limit", []string{"account", "set", "--account", id, "--order-limit", "-3", "--apps", "off"}, exitUsage, "order-limit"},
		{"unknown apps value", []string{"account", "set", "--account", id, "--apps", "maybe"}, exitUsage, "-apps"},
		{"unknown language", []string{"account", "set", "--account", id, "--language", "de"}, exitUsage, "-language"},
		{"set nothing", []string{"account", "set", "--account", id}, exitUsage, "nothing to change"},
		{"block without reason", []string{"account", "block", "--account", id}, exitUsage, "--reason"},
		{"block without account", []string{"account", "block", "--reason", "x"}, exitUsage, "--account"},
		{"lock without reason", []string{"instance", "lock", "--instance", "1"}, exitUsage, "--reason"},
		{"lock without instance", []string{"instance", "lock", "--reason", "debt"}, exitUsage, "--instance"},
		{"negative since", []string{"audit", "--since", "-1h"}, exitUsage, "--since"},
		{"unknown account", []string{"account", "block", "--account", "999", "--reason", "x"}, exitError, "account 999"},
		{"verify unknown account", []string{"account", "verify", "--account", "998"}, exitError, "account 998"},
		{"show unknown account", []string{"account", "show", "--account", "997"}, exitError, "account 997"},
		{"unknown instance", []string{"instance", "lock", "--instance", "999", "--reason", "debt"}, exitError, "instance 999"},
		{"unlock unknown instance", []string{"instance", "unlock", "--instance", "996"}, exitError, "instance 996"},
		{"topup unknown account", []string{"account", "topup", "--account", "995", "--amount", "1"}, exitError, "account 995"},
		{"unknown subcommand", []string{"instance", "delete"}, exitUsage, "delete"},
		{"set without reason", []string{"instance", "set", "--instance", "1", "--traffic-included", "5"}, exitUsage, "--reason"},
		{"set nothing on an instance", []string{"instance", "set", "--instance", "1", "--reason", "x"}, exitUsage, "nothing to change"},
		{"set without instance", []string{"instance", "set", "--traffic-included", "5", "--reason", "x"}, exitUsage, "--instance"},
		{"negative traffic", []string{"instance", "set", "--instance", "1", "--traffic-included", "-1", "--reason", "x"}, exitUsage, "traffic-included"},
		{"traffic not a number", []string{"instance", "set", "--instance", "1", "--traffic-included", "1.5", "--reason", "x"}, exitUsage, "traffic-included"},
		{"traffic too large", []string{"instance", "set", "--instance", "1", "--traffic-included", "1000000001", "--reason", "x"}, exitUsage, "--traffic-included"},
		{"unknown overage value", []string{"instance", "set", "--instance", "1", "--allow-overage", "yes", "--reason", "x"}, exitUsage, "allow-overage"},
		{"set unknown instance", []string{"instance", "set", "--instance", "994", "--traffic-included", "5", "--reason", "x"}, exitError, "instance 994"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := cli(t, opEnv, append(tt.args, "--db", db)...)
			if code != tt.wantCode || !strings.Contains(errOut, tt.wantErr) {
				t.Fatalf("exit %d, stderr %q; want exit %d naming %q", code, errOut, tt.wantCode, tt.wantErr)
			}
		})
	}
	if after := o.run(t, "account", "list", "--json"); after != before {
		t.Errorf("accounts changed by refused commands:\n%s\nwant\n%s", after, before)
	}
	if n := len(o.audit(t)); n != entries {
		t.Errorf("audit entries: %d after refused commands, want %d", n, entries)
	}
}

// checkAuditJSONShape holds `audit --json` to its documented field names: every entry has id,
// time, operator, command, reason, before and after, and account_id and instance_id when it is
// about one (a lock names both).
func checkAuditJSONShape(t *testing.T, o *operated) {
	t.Helper()
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(o.run(t, "audit", "--json")), &raw); err != nil {
		t.Fatal(err)
	}
	common := []string{"id", "time", "operator", "command", "reason", "before", "after"}
	for _, e := range raw {
		want := append(slices.Clone(common), "account_id")
		if c := string(e["command"]); c == `"instance lock"` || c == `"instance unlock"` || c == `"instance set"` {
			want = append(want, "instance_id")
		}
		got := make([]string, 0, len(e))
		for k := range e {
			got = append(got, k)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("audit --json entry %s has fields %v, want %v", e["id"], got, want)
		}
	}
}
