package main

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// journalEntry is an entry of GET /_dev/requests, its bodies decoded.
type journalEntry struct {
	ID             int64   `json:"id"`
	Time           string  `json:"time"`
	Direction      string  `json:"direction"`
	Method         string  `json:"method"`
	Path           string  `json:"path"`
	Route          string  `json:"route"`
	Status         *int    `json:"status"`
	DurationMS     float64 `json:"duration_ms"`
	AccountID      *int64  `json:"account_id"`
	IdempotencyKey *string `json:"idempotency_key"`
	RequestBody    any     `json:"request_body"`
	ResponseBody   any     `json:"response_body"`
	Fault          bool    `json:"fault"`
}

// journal reads GET /_dev/requests with query, and the raw JSON of its entries.
func (d *devAPI) journal(t *testing.T, query string) ([]journalEntry, string) {
	t.Helper()
	a := d.call(t, "GET", "/_dev/requests?"+query, "", "").want(t, 200, "")
	var out []journalEntry
	a.into(t, &out)
	return out, string(a.Data)
}

// accountID is the id of the account of key.
func (d *devAPI) accountID(t *testing.T, key string) int64 {
	t.Helper()
	var acct struct {
		ID int64 `json:"id"`
	}
	d.call(t, "GET", "/api/v1/account", key, "").want(t, 200, "").into(t, &acct)
	return acct.ID
}

// path reads a member of a decoded body by its path of names ("data", "credentials", ...).
func path(v any, names ...string) any {
	for _, n := range names {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[n]
	}
	return v
}

// only is the one entry of entries on route whose pick holds; it fails the test otherwise.
func only(t *testing.T, entries []journalEntry, route string, pick func(journalEntry) bool) journalEntry {
	t.Helper()
	var found []journalEntry
	for _, e := range entries {
		if e.Route == route && (pick == nil || pick(e)) {
			found = append(found, e)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d entries on %s, want 1: %+v", len(found), route, found)
	}
	return found[0]
}

// applyLikeTerraform does what `terraform apply` then `destroy` of a server with a webhook do:
// register the webhook, order a server with a MySQL root password, read it until its
// credentials are there, ping the webhook, delete the server. It returns the secrets it met.
func applyLikeTerraform(t *testing.T, d *devAPI, receiver string) (secrets []string, instanceID int64) {
	t.Helper()
	webhookSecret, dbPassword := "whsec-journal-0123456789", "mysql-root-pass-42"
	d.call(t, "PUT", "/api/v1/account/webhook", d.key, `{"url": "`+receiver+`/hook?token=t0k3n", "secret": "`+webhookSecret+`"}`).want(t, 200, "")
	var o struct {
		OrderID int64 `json:"order_id"`
	}
	d.callIdem(t, "POST", "/api/v1/instances", d.key, `{"server_id": 102, "template_id": 1, "term": "hourly", "apps": ["mysql"],
		"app_inputs": {"mysql": {"ROOT_PASSWORD": "`+dbPassword+`", "DATABASE": "shop"}}}`, "apply-1").want(t, 201, "").into(t, &o)
	rootPassword := ""
	deadline := time.Now().Add(eventWait)
	for rootPassword == "" && time.Now().Before(deadline) {
		var got struct {
			Server *struct {
				ID int64 `json:"id"`
			} `json:"server"`
		}
		if d.poll(t, "/api/v1/orders/"+itoa(o.OrderID), &got) && got.Server != nil {
			instanceID = got.Server.ID
			var in struct {
				Credentials *struct {
					Password *string `json:"password"`
				} `json:"credentials"`
			}
			if d.poll(t, "/api/v1/instances/"+itoa(instanceID), &in) && in.Credentials != nil && in.Credentials.Password != nil {
				rootPassword = *in.Credentials.Password
				break
			}
		}
		time.Sleep(pollEvery)
	}
	if rootPassword == "" {
		t.Fatalf("no root password within %s", eventWait)
	}
	var ping struct {
		Delivered bool `json:"delivered"`
	}
	d.call(t, "POST", "/api/v1/account/webhook/test", d.key, "").want(t, 200, "").into(t, &ping)
	if !ping.Delivered {
		t.Fatal("the ping was not delivered")
	}
	d.call(t, "DELETE", "/api/v1/instances/"+itoa(instanceID), d.key, "").want(t, 200, "")
	return []string{webhookSecret, dbPassword, rootPassword, d.key}, instanceID
}

// receiver is a webhook receiver on loopback answering 200.
func receiver(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestDevJournalRecordsAnApply: the journal holds each API call of an apply and destroy, newest
// first, with its route, status, account, Idempotency-Key and bodies, and the webhook ping as an
// `out` entry (its address without the URL's query); the webhook secret, the password-kind app
// input, the root password of the instance detail and the API key are nowhere in it.
func TestDevJournalRecordsAnApply(t *testing.T) {
	t.Parallel()
	d := startDevInProcess(t, "--deploy-delay", "0s", "--credentials-delay", "0s")
	rcv := receiver(t)
	acct := d.accountID(t, d.key)
	secrets, instanceID := applyLikeTerraform(t, d, rcv)

	entries, raw := d.journal(t, "limit=1000")
	for _, s := range secrets {
		if strings.Contains(raw, s) {
			t.Errorf("the journal holds the secret %q", s)
		}
	}
	for i, e := range entries {
		if i > 0 && e.ID >= entries[i-1].ID {
			t.Fatalf("entry %d has id %d after %d: not newest first", i, e.ID, entries[i-1].ID)
		}
		if _, err := time.Parse(time.RFC3339, e.Time); err != nil || e.Fault || e.DurationMS < 0 {
			t.Fatalf("entry %+v: time %v, fault %v", e, err, e.Fault)
		}
	}

	hook := only(t, entries, "PUT /account/webhook", nil)
	if hook.Direction != "in" || hook.Method != "PUT" || hook.Path != "/api/v1/account/webhook" || *hook.Status != 200 ||
		*hook.AccountID != acct || path(hook.RequestBody, "secret") != "[redacted]" || path(hook.RequestBody, "url") != rcv+"/hook?token=t0k3n" {
		t.Errorf("webhook entry %+v", hook)
	}
	create := only(t, entries, "POST /instances", nil)
	if *create.Status != 201 || create.IdempotencyKey == nil || *create.IdempotencyKey != "apply-1" ||
		path(create.RequestBody, "app_inputs", "mysql", "ROOT_PASSWORD") != "[redacted]" ||
		path(create.RequestBody, "app_inputs", "mysql", "DATABASE") != "shop" || path(create.ResponseBody, "data", "order_id") == nil {
		t.Errorf("create entry %+v", create)
	}
	read := only(t, entries, "GET /instances/{instance_id}", func(e journalEntry) bool {
		return path(e.ResponseBody, "data", "credentials", "password") != nil
	})
	if read.Path != "/api/v1/instances/"+itoa(instanceID) || path(read.ResponseBody, "data", "credentials", "password") != "[redacted]" ||
		path(read.ResponseBody, "data", "id") != float64(instanceID) {
		t.Errorf("read entry %+v", read)
	}
	del := only(t, entries, "DELETE /instances/{instance_id}", nil)
	if *del.Status != 200 || del.RequestBody != nil || del.IdempotencyKey != nil {
		t.Errorf("delete entry %+v", del)
	}
	ping := only(t, entries, "webhook ping", nil)
	if ping.Direction != "out" || ping.Method != "POST" || ping.Path != rcv+"/hook" || ping.Status == nil || *ping.Status != 200 ||
		*ping.AccountID != acct || ping.IdempotencyKey == nil || path(ping.RequestBody, "event") != "ping" || ping.ResponseBody != nil {
		t.Errorf("ping entry %+v", ping)
	}
	if test := only(t, entries, "POST /account/webhook/test", nil); test.ID <= ping.ID {
		t.Errorf("the ping (id %d) is not older than the request that sent it (id %d)", ping.ID, test.ID)
	}
}

// TestDevJournalFilters: every filter of GET /_dev/requests selects what it names, a bad one is
// a 400 naming the parameter, and DELETE empties the journal.
func TestDevJournalFilters(t *testing.T) {
	t.Parallel()
	d := startDevInProcess(t, "--deploy-delay", "0s", "--credentials-delay", "0s")
	acct := d.accountID(t, d.key)
	applyLikeTerraform(t, d, receiver(t))
	d.call(t, "GET", "/api/v1/health", "", "").want(t, 200, "")
	// The journal is settled once every entry the steps make is in. The deliveries run on a
	// worker, side by side: order.deployed may land after instance.canceled when both are due
	// in one tick (under load), so waiting for the last event's alone is not enough.
	for _, route := range []string{"webhook order.deployed", "webhook instance.canceled", "GET /health"} {
		waitForEntry(t, d, route)
	}
	all, _ := d.journal(t, "limit=1000")

	for _, tt := range []struct {
		query string
		keep  func(journalEntry) bool
	}{
		{"method=delete", func(e journalEntry) bool { return e.Method == "DELETE" }},
		{"route=" + url.QueryEscape("GET /instances/{instance_id}"), func(e journalEntry) bool { return e.Route == "GET /instances/{instance_id}" }},
		{"status=201", func(e journalEntry) bool { return e.Status != nil && *e.Status == 201 }},
		{"account_id=" + itoa(acct), func(e journalEntry) bool { return e.AccountID != nil && *e.AccountID == acct }},
		{"account_id=999", func(journalEntry) bool { return false }},
		{"direction=out", func(e journalEntry) bool { return e.Direction == "out" }},
		{"direction=in&method=GET&status=200", func(e journalEntry) bool {
			return e.Direction == "in" && e.Method == "GET" && *e.Status == 200
		}},
	} {
		got, _ := d.journal(t, tt.query+"&limit=1000")
		var want []int64
		for _, e := range all {
			if tt.keep(e) {
				want = append(want, e.ID)
			}
		}
		if ids := entryIDs(got); !equalIDs(ids, want) {
			t.Errorf("%s: ids %v, want %v", tt.query, ids, want)
		}
		if tt.query != "account_id=999" && len(want) == 0 {
			t.Errorf("%s selects nothing in %d entries: the test shows nothing", tt.query, len(all))
		}
	}
	if two, _ := d.journal(t, "limit=2"); !equalIDs(entryIDs(two), entryIDs(all[:2])) {
		t.Errorf("limit=2: %v, want the newest two %v", entryIDs(two), entryIDs(all[:2]))
	}
	if len(all) > 100 {
		t.Fatalf("%d entries: the default limit below needs fewer than 100", len(all))
	}
	if def, _ := d.journal(t, ""); len(def) != len(all) {
		t.Errorf("no limit: %d entries, want all %d", len(def), len(all))
	}

	for _, tt := range []struct{ query, param string }{
		{"limit=0", "limit"}, {"limit=1001", "limit"}, {"limit=ten", "limit"}, {"status=abc", "status"}, {"status=42", "status"},
		{"direction=sideways", "direction"}, {"account_id=0", "account_id"}, {"account_id=x", "account_id"},
		{"acount_id=1", "acount_id"}, {"route=%zz", "query"},
	} {
		a := d.call(t, "GET", "/_dev/requests?"+tt.query, "", "").want(t, 400, "validation_error")
		if !strings.HasPrefix(a.Error.Message, tt.param+":") {
			t.Errorf("?%s: message %q does not name %s", tt.query, a.Error.Message, tt.param)
		}
	}

	var cleared struct {
		Cleared int `json:"cleared"`
	}
	d.call(t, "DELETE", "/_dev/requests", "", "").want(t, 200, "").into(t, &cleared)
	if cleared.Cleared != len(all) {
		t.Errorf("cleared %d, want %d", cleared.Cleared, len(all))
	}
	if left, _ := d.journal(t, ""); len(left) != 0 {
		t.Fatalf("after DELETE: %+v", left) // /_dev/ itself is never journaled
	}
	d.call(t, "GET", "/api/v1/health", "", "").want(t, 200, "")
	if after, _ := d.journal(t, ""); len(after) != 1 || after[0].ID <= all[0].ID {
		t.Fatalf("after DELETE and one request: %+v, want one entry with an id above %d", after, all[0].ID)
	}
}

// waitForEntry waits until the journal holds an entry on route (a webhook delivery made in the
// background).
func waitForEntry(t *testing.T, d *devAPI, route string) {
	t.Helper()
	deadline := time.Now().Add(eventWait)
	for time.Now().Before(deadline) {
		if entries, _ := d.journal(t, "limit=1&route="+url.QueryEscape(route)); len(entries) == 1 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %s entry within %s", route, eventWait)
}

func entryIDs(entries []journalEntry) []int64 {
	ids := []int64{}
	for _, e := range entries {
		ids = append(ids, e.ID)
	}
	return ids
}

func equalIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDevJournalBound: the journal keeps the newest --journal-size entries; 0 turns it off (its
// routes are 404) and the API works all the same; the API key, sent either way, is never in it.
func TestDevJournalBound(t *testing.T) {
	t.Parallel()
	d := startDevInProcess(t, "--journal-size", "3")
	for range 5 {
		d.call(t, "GET", "/api/v1/account", d.key, "").want(t, 200, "")
	}
	req, _ := http.NewRequest("GET", d.base+"/api/v1/account/balance", nil)
	req.Header.Set("Authorization", "Bearer "+d.key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	wrongKey := "wrong-key-0123456789abcdef0123456789"
	d.call(t, "GET", "/api/v1/account", wrongKey, "").want(t, 401, "unauthorized")
	d.call(t, "POST", "/api/v1/quote", d.key, "not json").want(t, 400, "validation_error")
	entries, raw := d.journal(t, "")
	if len(entries) != 3 || entries[0].ID != entries[1].ID+1 || entries[1].ID != entries[2].ID+1 || entries[0].ID != 8 {
		t.Fatalf("entries %v, want the newest three of eight (ids 8, 7, 6)", entryIDs(entries))
	}
	if strings.Contains(raw, d.key) || strings.Contains(raw, wrongKey) {
		t.Fatal("the journal holds an API key")
	}
	if entries[0].Route != "POST /quote" || entries[1].Status == nil || *entries[1].Status != 401 || entries[1].AccountID != nil ||
		entries[2].Route != "GET /account/balance" || *entries[2].AccountID == 0 {
		t.Fatalf("entries %+v", entries)
	}
	if !strings.Contains(raw, `"request_body":"[not JSON: 8 bytes]"`) {
		t.Fatalf("a body that is not JSON: %s", raw)
	}

	off := startDevInProcess(t, "--journal-size", "0")
	off.call(t, "GET", "/api/v1/account", off.key, "").want(t, 200, "")
	off.call(t, "GET", "/_dev/requests", "", "").want(t, 404, "not_found")
	off.call(t, "DELETE", "/_dev/requests", "", "").want(t, 404, "not_found")

	if o, err := parseDev(nil, mapEnv(map[string]string{"RESELLER_JOURNAL_SIZE": "7"})); err != nil || o.JournalSize != 7 {
		t.Fatalf("RESELLER_JOURNAL_SIZE=7: %d, %v", o.JournalSize, err)
	}
	if o, err := parseDev(nil, noEnv); err != nil || o.JournalSize != 1000 {
		t.Fatalf("default journal size %d, %v; want 1000", o.JournalSize, err)
	}
	for _, bad := range []string{"-1", "10001", "many"} {
		if _, err := parseDev([]string{"--journal-size", bad}, noEnv); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "journal-size") {
			t.Fatalf("--journal-size %s: %v, want a usage error naming the flag", bad, err)
		}
	}
}
