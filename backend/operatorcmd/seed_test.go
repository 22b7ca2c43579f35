package operatorcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

func writeSeed(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "seed.yaml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSeed_aRefusedSeedLeavesTheDatabaseAlone(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "reseller.db")
	// The second account's server has a plan that does not exist: the scratch database refuses
	// it, so the first account is not written to db either.
	bad := writeSeed(t, `accounts:
  - api_key: first-0123456789abcdef0123456789abcdef
    balance: 10
  - api_key: second-0123456789abcdef0123456789abcdef
    balance: 10
    servers:
      - name: web-1
        plan_id: 999999
        template_id: 1
`)
	var out bytes.Buffer
	if err := Seed(ctx, &out, resellerd.Config{DB: db}, bad); err == nil || out.Len() != 0 {
		t.Fatalf("bad seed: err %v, printed %q: want an error and nothing printed", err, out.String())
	}
	if _, err := os.Stat(db); err == nil {
		c := Command{Name: "account list", Config: resellerd.Config{DB: db}, Env: noEnv}
		if err := c.ListAccounts(ctx, &out, true); err != nil || strings.TrimSpace(out.String()) != "[]" {
			t.Fatalf("after a refused seed the database holds %s (%v), want no account", out.String(), err)
		}
	}

	good := writeSeed(t, "accounts:\n  - api_key: first-0123456789abcdef0123456789abcdef\n    balance: 10\n")
	out.Reset()
	if err := Seed(ctx, &out, resellerd.Config{DB: db}, good); err != nil {
		t.Fatal(err)
	}
	if want := "seeded 1 accounts from " + good + "\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}
