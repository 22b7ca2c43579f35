package seedfile

import (
	"errors"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/seed"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
)

const key = "k-0123456789abcdef0123456789abcdef"

// full has every field once.
var full = `accounts:
  - api_key: ` + key + `
    balance: 12.50
    server_limit: 3
    order_limit: 2
    language: en
    servers:
      - name: web-1
        plan_id: 101
        template_id: 1
      - name: web-2
        plan_id: 102
        template_id: 3
        power: off
    snapshots:
      - name: golden
        server: web-2
    webhook:
      url: http://127.0.0.1:9/hook
      secret: s-0123456789abcdef
`

func TestParseEveryField(t *testing.T) {
	f, err := Parse("seed.yaml", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	a := f.Accounts[0]
	if a.APIKey != key || a.Balance != 12_500_000 || a.ServerLimit != 3 || a.OrderLimit != 2 || a.Language != "en" {
		t.Fatalf("account fields: %+v", a.NewAccount)
	}
	want := []seed.Server{{Name: "web-1", PlanID: 101, TemplateID: 1}, {Name: "web-2", PlanID: 102, TemplateID: 3, PowerOff: true}}
	if len(a.Servers) != 2 || a.Servers[0] != want[0] || a.Servers[1] != want[1] {
		t.Fatalf("servers: %+v", a.Servers)
	}
	if len(a.Snapshots) != 1 || a.Snapshots[0] != (seed.Snapshot{Name: "golden", Server: "web-2"}) {
		t.Fatalf("snapshots: %+v", a.Snapshots)
	}
	if a.Webhook == nil || *a.Webhook != (seed.Webhook{URL: "http://127.0.0.1:9/hook", Secret: "s-0123456789abcdef"}) {
		t.Fatalf("webhook: %+v", a.Webhook)
	}
}

// TestBadSeedNamesLineAndField: each mistake is reported at its line, naming its field.
func TestBadSeedNamesLineAndField(t *testing.T) {
	cases := []struct{ name, from, to, want string }{
		{"short key", key, "short", "seed.yaml:2: accounts[0].api_key: must be at least 32"},
		{"balance", "12.50", "-3", "seed.yaml:3: accounts[0].balance:"},
		{"balance text", "12.50", "lots", "seed.yaml:3: accounts[0].balance:"},
		{"server_limit", "server_limit: 3", "server_limit: 0", "seed.yaml:4: accounts[0].server_limit: must be a positive integer"},
		{"order_limit", "order_limit: 2", "order_limit: x", "seed.yaml:5: accounts[0].order_limit:"},
		{"language", "language: en", "language: de", "seed.yaml:6: accounts[0].language: must be fa or en"},
		{"server name", "name: web-2", "name: web-1", "seed.yaml:11: accounts[0].servers[1].name:"},
		{"plan_id", "plan_id: 102", "plan_id: -1", "seed.yaml:12: accounts[0].servers[1].plan_id: must be a positive integer"},
		{"template_id", "        template_id: 1\n", "", "seed.yaml:8: accounts[0].servers[0].template_id: is required"},
		{"power", "power: off", "power: sleepy", "seed.yaml:14: accounts[0].servers[1].power: must be on or off"},
		{"snapshot server", "server: web-2", "server: db", "seed.yaml:17: accounts[0].snapshots[0].server: no server named"},
		{"webhook secret", "      secret: s-0123456789abcdef\n", "", "seed.yaml:19: accounts[0].webhook.secret: is required"},
		{"unknown field", "language: en", "lang: en", "seed.yaml:6: accounts[0].lang: unknown field"},
		{"no accounts", full, "accounts: []\n", "seed.yaml:1: accounts: is required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(full, c.from, c.to, 1)
			if src == full {
				t.Fatal("the case changes nothing")
			}
			_, err := Parse("seed.yaml", []byte(src))
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error %v, want it to start with %q", err, c.want)
			}
		})
	}
	two := full + "  - api_key: " + key + "\n"
	if _, err := Parse("seed.yaml", []byte(two)); err == nil || !strings.HasPrefix(err.Error(), "seed.yaml:21: accounts[1].api_key: is also the key of accounts[0]") {
		t.Fatalf("duplicate key: %v", err)
	}
}

// TestExplainNamesTheLine: a failure only the service finds (a plan that does not exist) is
// reported at the line of the field the service names.
func TestExplainNamesTheLine(t *testing.T) {
	f, err := Parse("seed.yaml", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		err  error
		want string
	}{
		{&seed.Error{Account: 0, Part: "servers", Index: 1, Err: service.Validation("server_id", "no such plan")}, "seed.yaml:12: accounts[0].servers[1].plan_id: server_id: no such plan"},
		{&seed.Error{Account: 0, Part: "webhook", Err: service.Validation("url", "must be https")}, "seed.yaml:19: accounts[0].webhook.url:"},
		{&seed.Error{Account: 0, Part: "snapshots", Index: 0, Err: errors.New("snapshot 1 ended failed")}, "seed.yaml:16: accounts[0].snapshots[0]: snapshot 1 ended failed"},
		{&seed.Error{Account: 0, Err: service.Validation("balance", "too large")}, "seed.yaml:3: accounts[0].balance:"},
	}
	for _, c := range cases {
		if got := f.Explain(c.err).Error(); !strings.HasPrefix(got, c.want) {
			t.Errorf("Explain = %q, want prefix %q", got, c.want)
		}
	}
}

// TestExampleSeedHasEveryField: examples/seed.yaml, which the docs point to as the seed with
// every field, parses and sets each of them, so it cannot drift from the format.
func TestExampleSeedHasEveryField(t *testing.T) {
	f, err := Read("../../../examples/seed.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Accounts) == 0 {
		t.Fatal("no accounts")
	}
	a := f.Accounts[0]
	if a.APIKey == "" || a.Balance == 0 || a.ServerLimit == 0 || a.OrderLimit == 0 || a.Language == "" {
		t.Errorf("the first account leaves an account field unset: %+v", a.NewAccount)
	}
	powerOff := false
	for _, s := range a.Servers {
		powerOff = powerOff || s.PowerOff
		if s.Name == "" || s.PlanID == 0 || s.TemplateID == 0 {
			t.Errorf("server %+v leaves a field unset", s)
		}
	}
	if !powerOff || len(a.Snapshots) == 0 || a.Snapshots[0].Server == "" || a.Webhook == nil || a.Webhook.Secret == "" {
		t.Errorf("the first account does not show power: off, a snapshot and a webhook: %+v", a)
	}
}
