package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// AuditTrail: entries read back as written, oldest first, filtered by account and time, a page
// at a time after an id.
func (suite) AuditTrail(t *testing.T, s store.Store) {
	ctx := context.Background()
	add := func(account int64, at time.Time, command string) int64 {
		t.Helper()
		id, err := s.AddAuditEntry(ctx, store.AuditEntry{CreatedAt: at, Operator: "carol", Command: command,
			AccountID: account, InstanceID: account * 10, Reason: "why", Before: `{"blocked":false}`, After: `{"blocked":true}`})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	first := add(1, base, "account block")
	add(2, base.Add(time.Hour), "account verify")
	third := add(1, base.Add(2*time.Hour), "instance lock")
	if _, err := s.AddAuditEntry(ctx, store.AuditEntry{CreatedAt: base, Operator: "x", Command: "secrets rotate"}); err != nil {
		t.Fatal(err)
	}

	all, err := s.AuditEntries(ctx, store.AuditFilter{Limit: -1})
	if err != nil || len(all) != 4 {
		t.Fatalf("all entries: %d, %v; want 4", len(all), err)
	}
	e := all[0]
	if e.ID != first || !e.CreatedAt.Equal(base) || e.Operator != "carol" || e.Command != "account block" || e.AccountID != 1 ||
		e.InstanceID != 10 || e.Reason != "why" || e.Before != `{"blocked":false}` || e.After != `{"blocked":true}` {
		t.Fatalf("first entry read back as %+v", e)
	}
	if all[3].Before != "{}" || all[3].After != "{}" || all[3].AccountID != 0 {
		t.Fatalf("an entry with no state and no account reads back as %+v; want {} and 0", all[3])
	}
	for _, tt := range []struct {
		name string
		f    store.AuditFilter
		want []string
	}{
		{"one account", store.AuditFilter{AccountID: 1, Limit: -1}, []string{"account block", "instance lock"}},
		{"since", store.AuditFilter{Since: base.Add(time.Hour), Limit: -1}, []string{"account verify", "instance lock"}},
		{"account and since", store.AuditFilter{AccountID: 1, Since: base.Add(time.Minute), Limit: -1}, []string{"instance lock"}},
		{"a page", store.AuditFilter{Limit: 2}, []string{"account block", "account verify"}},
		{"after an id", store.AuditFilter{AfterID: third - 1, Limit: 1}, []string{"instance lock"}},
	} {
		got, err := s.AuditEntries(ctx, tt.f)
		if err != nil {
			t.Fatal(err)
		}
		var commands []string
		for _, e := range got {
			commands = append(commands, e.Command)
		}
		if len(commands) != len(tt.want) || (len(commands) > 0 && commands[0] != tt.want[0]) ||
			(len(commands) > 1 && commands[1] != tt.want[1]) {
			t.Errorf("%s: %v, want %v", tt.name, commands, tt.want)
		}
	}
}

// OperatorsAccountReads: the account list a page at a time, an account's settings, and its
// pending orders.
func (suite) OperatorsAccountReads(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, b, c := newAccount(t, s, "key-op-a"), newAccount(t, s, "key-op-b"), newAccount(t, s, "key-op-c")
	page, err := s.AccountsAfter(ctx, a.ID, 1)
	if err != nil || len(page) != 1 || page[0].Account.ID != b.ID {
		t.Fatalf("AccountsAfter(%d, 1) = %+v, %v; want account %d", a.ID, page, err, b.ID)
	}
	if rest, err := s.AccountsAfter(ctx, b.ID, 10); err != nil || len(rest) != 1 || rest[0].Account.ID != c.ID {
		t.Fatalf("AccountsAfter(%d, 10) = %+v, %v; want account %d alone", b.ID, rest, err, c.ID)
	}
	if err := s.SetAccountSettings(ctx, b.ID, store.AccountSettings{ServerLimit: 0, OrderLimit: 2, Language: "en"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Account(ctx, b.ID)
	if err != nil || got.ServerLimit != 0 || got.OrderLimit != 2 || got.Language != "en" {
		t.Fatalf("after SetAccountSettings: %+v, %v", got, err)
	}
	if other, _ := s.Account(ctx, a.ID); other.ServerLimit != 10 || other.Language != "fa" {
		t.Fatalf("another account changed: %+v", other)
	}
	if err := s.SetAccountSettings(ctx, 9999, store.AccountSettings{Language: "en"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("settings of a missing account: %v, want ErrNotFound", err)
	}
	pending := insertOrder(t, s, store.Order{AccountID: a.ID, Status: store.OrderPending, Price: 4000, CreatedAt: base, PlanID: 101, TemplateID: 1})
	insertOrder(t, s, store.Order{AccountID: b.ID, Status: store.OrderPending, Price: 4000, CreatedAt: base, PlanID: 101, TemplateID: 1})
	orders, err := s.AccountPendingOrders(ctx, a.ID, 10)
	if err != nil || len(orders) != 1 || orders[0].ID != pending.ID {
		t.Fatalf("pending orders of account %d: %+v, %v; want order %d alone", a.ID, orders, err, pending.ID)
	}
}
