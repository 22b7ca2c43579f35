package operatorcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/cliflag"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

func noEnv(string) (string, bool) { return "", false }

func TestOperator(t *testing.T) {
	op := Operator("  alice ", "account block", "debt", noEnv)
	if op != (resellerd.Operator{Name: "alice", Command: "account block", Reason: "debt"}) {
		t.Errorf("given: %+v", op)
	}
	u, err := user.Current()
	if err != nil || u.Username == "" {
		t.Skip("no OS user here to fall back on")
	}
	if got := Operator(" ", "audit", "", noEnv).Name; got != u.Username {
		t.Errorf("not given: %q, want the OS user %q", got, u.Username)
	}
}

func TestOpen_badDBIsAUsageErrorNamingTheCommand(t *testing.T) {
	_, err := Command{Name: "account list", Config: resellerd.Config{DB: "mysql://x"}, Env: noEnv}.Open(context.Background())
	if !errors.Is(err, cliflag.ErrUsage) || !strings.HasPrefix(strings.TrimPrefix(err.Error(), cliflag.ErrUsage.Error()), ": account list: ") {
		t.Errorf("err = %v, want a usage error of account list", err)
	}
	err = CreateAccount(context.Background(), &bytes.Buffer{}, "mysql://x", "", Operator("ops", "account create", "", noEnv), resellerd.NewAccount{})
	if !errors.Is(err, cliflag.ErrUsage) {
		t.Errorf("account create: err = %v, want a usage error", err)
	}
}

// TestCommandsOnADatabase runs every command this package holds on one SQLite database, in
// the order an operator would, and reads back what each printed.
func TestCommandsOnADatabase(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "reseller.db")
	op := func(cmd string) resellerd.Operator { return Operator("ops", cmd, "", noEnv) }
	var out bytes.Buffer

	a := resellerd.NewAccount{BalanceMicros: int64(money.USD(20)), ServerLimit: 3, OrderLimit: 2, Language: "en"}
	if err := CreateAccount(ctx, &out, db, "", op("account create"), a); err != nil {
		t.Fatal(err)
	}
	var created struct {
		AccountID int64  `json:"account_id"`
		APIKey    string `json:"api_key"`
	}
	if err := json.Unmarshal(out.Bytes(), &created); err != nil || created.AccountID <= 0 || created.APIKey == "" {
		t.Fatalf("account create printed %q (%v), want its id and key", out.String(), err)
	}
	id := created.AccountID

	out.Reset()
	if err := RotateKey(ctx, &out, db, "", op("account rotate-key"), id); err != nil {
		t.Fatal(err)
	}
	if key := strings.TrimSpace(out.String()); key == "" || key == created.APIKey {
		t.Errorf("rotate-key printed %q, want a new key", key)
	}

	out.Reset()
	if err := TopUp(ctx, &out, db, op("account topup"), id, money.USD(5), "card"); err != nil {
		t.Fatal(err)
	}
	if want := "credited 5 USD (card) to account " + itoa(id) + "\n"; out.String() != want {
		t.Errorf("topup printed %q, want %q", out.String(), want)
	}

	c := Command{Name: "account block", Config: resellerd.Config{DB: db}, Who: "carol", Env: noEnv}
	out.Reset()
	yes := true
	if err := c.ChangeAccount(ctx, &out, id, resellerd.AccountChange{Blocked: &yes}, "debt"); err != nil {
		t.Fatal(err)
	}
	if want := "account " + itoa(id) + ": blocked\n"; out.String() != want {
		t.Errorf("block printed %q, want %q", out.String(), want)
	}

	out.Reset()
	c.Name = "account list"
	if err := c.ListAccounts(ctx, &out, true); err != nil {
		t.Fatal(err)
	}
	var accts []struct {
		ID      int64           `json:"id"`
		Balance json.RawMessage `json:"balance"`
		Blocked bool            `json:"blocked"`
	}
	if err := json.Unmarshal(out.Bytes(), &accts); err != nil || len(accts) != 1 || accts[0].ID != id || !accts[0].Blocked || string(accts[0].Balance) != "25" {
		t.Errorf("list printed %s (%v), want the blocked account with 25 USD", out.String(), err)
	}

	out.Reset()
	c.Name, c.TouchesSecrets = "account show", true
	if err := c.ShowAccount(ctx, &out, id, false); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^` + itoa(id) + ` +25 +0 +0/3 +2 +yes +no `).MatchString(out.String()) {
		t.Errorf("show printed:\n%s\nwant the account's row", out.String())
	}

	out.Reset()
	c.Name, c.TouchesSecrets = "audit", false
	if err := c.Audit(ctx, &out, id, time.Hour, true); err != nil {
		t.Fatal(err)
	}
	var entries []struct {
		Operator string `json:"operator"`
		Command  string `json:"command"`
		Reason   string `json:"reason"`
	}
	if err := json.Unmarshal(out.Bytes(), &entries); err != nil || len(entries) != 4 {
		t.Fatalf("audit printed %s (%v), want create, rotate-key, topup and block", out.String(), err)
	}
	if last := entries[3]; last.Operator != "carol" || last.Command != "account block" || last.Reason != "debt" {
		t.Errorf("last entry = %+v, want carol's account block for debt", last)
	}
}

func TestLockInstance_unknownInstanceChangesNothing(t *testing.T) {
	db := filepath.Join(t.TempDir(), "reseller.db")
	c := Command{Name: "instance lock", Config: resellerd.Config{DB: db}, Who: "ops", Env: noEnv, TouchesSecrets: true}
	var out bytes.Buffer
	if err := c.LockInstance(context.Background(), &out, 404, true, "abuse"); err == nil || out.Len() != 0 {
		t.Errorf("lock of no instance: err %v, printed %q: want an error and nothing printed", err, out.String())
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }
