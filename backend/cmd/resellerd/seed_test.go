package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const seedKey = "seed-0123456789abcdef0123456789abcdef"

// everyField is a seed with every field, and a second account with only a key and a balance.
const everyField = `accounts:
  - api_key: ` + seedKey + `
    balance: 12.50
    server_limit: 3
    order_limit: 2
    language: en
    servers:
      - name: web-1
        plan_id: 101
        template_id: 1
      - name: web-2
        plan_id: 101
        template_id: 3
        power: off
    snapshots:
      - name: golden
        server: web-2
    webhook:
      url: http://127.0.0.1:9/hook
      secret: s-0123456789abcdef
  - api_key: second-0123456789abcdef0123456789abcdef
    balance: 10
`

func writeSeed(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "seed.yaml")
	writeFile(t, p, content)
	return p
}

type seededServer struct {
	ID         int64   `json:"id"`
	Name       string  `json:"name"`
	Status     string  `json:"status"`
	PlanID     int64   `json:"server_product_id"`
	TemplateID int64   `json:"template_id"`
	Paid       float64 `json:"paid_amount"`
}

// TestDevSeedEveryField: each field of the seed shows through the API, and reset goes back to it.
func TestDevSeedEveryField(t *testing.T) {
	d := startDevInProcess(t, "--seed", writeSeed(t, everyField), "--deploy-delay", "0s")
	if d.key != seedKey {
		t.Fatalf("printed key %q, want the first account's", d.key)
	}
	check := func(when string) {
		var acct struct {
			ServerLimit int    `json:"server_limit"`
			OrderLimit  int    `json:"api_order_limit"`
			Language    string `json:"language"`
			Webhook     bool   `json:"webhook_configured"`
		}
		d.call(t, "GET", "/api/v1/account", d.key, "").want(t, 200, "").into(t, &acct)
		if acct.ServerLimit != 3 || acct.OrderLimit != 2 || acct.Language != "en" || !acct.Webhook {
			t.Fatalf("%s: account %+v", when, acct)
		}
		var servers []seededServer
		d.call(t, "GET", "/api/v1/instances", d.key, "").want(t, 200, "").into(t, &servers)
		byName := map[string]seededServer{}
		paid := 0.0
		for _, s := range servers {
			byName[s.Name] = s
			paid += s.Paid
		}
		if w1, w2 := byName["web-1"], byName["web-2"]; len(servers) != 2 || w1.Status != "online" || w1.PlanID != 101 ||
			w1.TemplateID != 1 || w2.Status != "offline" || w2.TemplateID != 3 {
			t.Fatalf("%s: servers %+v", when, servers)
		}
		if b := d.balance(t); paid <= 0 || !near(b, 12.5-paid) {
			t.Fatalf("%s: balance %v, want 12.50 less the orders' %v", when, b, paid)
		}
		var snaps []struct {
			Name       string `json:"name"`
			Status     string `json:"status"`
			InstanceID int64  `json:"instance_id"`
		}
		d.call(t, "GET", "/api/v1/snapshots", d.key, "").want(t, 200, "").into(t, &snaps)
		if len(snaps) != 1 || snaps[0].Name != "golden" || snaps[0].Status != "available" || snaps[0].InstanceID != byName["web-2"].ID {
			t.Fatalf("%s: snapshots %+v", when, snaps)
		}
		var hook struct {
			URL string `json:"url"`
		}
		d.call(t, "GET", "/api/v1/account/webhook", d.key, "").want(t, 200, "").into(t, &hook)
		if hook.URL != "http://127.0.0.1:9/hook" {
			t.Fatalf("%s: webhook %+v", when, hook)
		}
		other := &devAPI{base: d.base, key: "second-0123456789abcdef0123456789abcdef"}
		if b := other.balance(t); b != 10 {
			t.Fatalf("%s: second account's balance %v", when, b)
		}
	}
	check("seeded")
	d.call(t, "DELETE", "/api/v1/instances/1", d.key, "").want(t, 200, "")
	d.call(t, "POST", "/_dev/reset", "", "").want(t, 200, "")
	check("after reset")
}

// TestSeedCommandBadSeedChangesNothing: `resellerd seed` names the line of a plan the service
// refuses, and the database keeps nothing of that seed. (everyField's webhook is a loopback
// http:// URL, which serve's policy admits only with --allow-http-webhooks.)
func TestSeedCommandBadSeedChangesNothing(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	none := func(string) (string, bool) { return "", false }
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"seed", "--db", db, "--allow-http-webhooks", writeSeed(t, everyField)}, &out, &errOut, none); code != 0 {
		t.Fatalf("good seed: exit %d: %s", code, errOut.String())
	}
	bad := strings.Replace(strings.Replace(strings.Replace(everyField, "plan_id: 101\n        template_id: 3", "plan_id: 99999\n        template_id: 3", 1),
		seedKey, "third-0123456789abcdef0123456789abcdef", 1), "second-", "fourth-", 1)
	path := writeSeed(t, bad)
	errOut.Reset()
	if code := run(context.Background(), []string{"seed", "--db", db, "--allow-http-webhooks", path}, &out, &errOut, none); code != exitError {
		t.Fatalf("bad seed: exit %d", code)
	}
	if want := path + ":12: accounts[0].servers[1].plan_id:"; !strings.Contains(errOut.String(), want) {
		t.Fatalf("error %q does not name %q", errOut.String(), want)
	}
	// Had the bad seed written its first account, its key would now be taken.
	fixed := strings.Replace(bad, "plan_id: 99999", "plan_id: 101", 1)
	errOut.Reset()
	if code := run(context.Background(), []string{"seed", "--db", db, "--allow-http-webhooks", writeSeed(t, fixed)}, &out, &errOut, none); code != 0 {
		t.Fatalf("the fixed seed: exit %d: %s", code, errOut.String())
	}
	errOut.Reset()
	if code := run(context.Background(), []string{"seed", "--db", db, "--allow-http-webhooks", writeSeed(t, everyField)}, &out, &errOut, none); code != exitError ||
		!strings.Contains(errOut.String(), ":2: accounts[0].api_key: api_key: is already the key of an account") {
		t.Fatalf("a key already in use: exit %d: %s", code, errOut.String())
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatal(err)
	}
}

// TestDevBadSeedNamesItsLine: dev refuses a seed with a mistake, naming file and line.
func TestDevBadSeedNamesItsLine(t *testing.T) {
	path := writeSeed(t, strings.Replace(everyField, "power: off", "power: maybe", 1))
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"dev", "--listen", "127.0.0.1:0", "--seed", path}, &out, &errOut,
		func(string) (string, bool) { return "", false })
	if code != exitError || !strings.Contains(errOut.String(), path+":14: accounts[0].servers[1].power: must be on or off") || out.Len() != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}
