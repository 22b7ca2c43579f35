package apitest

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// funded creates an account with limits high enough that only limit tests meet them.
func (e *env) funded(t *testing.T, balanceMicros int64) resellerd.CreatedAccount {
	t.Helper()
	a, err := e.srv.CreateAccount(context.Background(), resellerd.NewAccount{BalanceMicros: balanceMicros, ServerLimit: 100, OrderLimit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// runDue runs every worker once at the clock's time.
func (e *env) runDue(t *testing.T) {
	t.Helper()
	if err := e.srv.RunDue(context.Background()); err != nil {
		t.Fatalf("RunDue: %v", err)
	}
}

// order posts an order; idem is the Idempotency-Key ("" sends none).
func (e *env) order(t *testing.T, key, idem, body string) response {
	t.Helper()
	r := request{Method: http.MethodPost, Path: "/instances", Key: key, Body: body}
	if idem != "" {
		r.Header = map[string]string{"Idempotency-Key": idem}
	}
	return e.do(t, r)
}

// placed posts an order that must be accepted and returns it.
func (e *env) placed(t *testing.T, key, body string) api.CreatedOrderView {
	t.Helper()
	r := e.order(t, key, "", body)
	r.WantStatus(t, http.StatusCreated, "")
	var c api.CreatedOrderView
	r.Data(t, &c)
	return c
}

// getOrder reads an order.
func (e *env) getOrder(t *testing.T, key string, id int64) api.OrderView {
	t.Helper()
	r := e.do(t, request{Path: fmt.Sprintf("/orders/%d", id), Key: key})
	r.WantStatus(t, http.StatusOK, "")
	var o api.OrderView
	r.Data(t, &o)
	return o
}

// deployed orders body, runs the workers (delays are 0 unless the env says otherwise) and
// returns the new instance's id.
func (e *env) deployed(t *testing.T, key, body string) int64 {
	t.Helper()
	c := e.placed(t, key, body)
	e.runDue(t)
	o := e.getOrder(t, key, c.OrderID)
	if o.Status != "deployed" || o.Server == nil {
		t.Fatalf("order %d is %s, want deployed with a server", c.OrderID, o.Status)
	}
	return o.Server.ID
}

// getInstance reads an instance detail.
func (e *env) getInstance(t *testing.T, key string, id int64) api.InstanceDetailView {
	t.Helper()
	r := e.do(t, request{Path: fmt.Sprintf("/instances/%d", id), Key: key})
	r.WantStatus(t, http.StatusOK, "")
	var v api.InstanceDetailView
	r.Data(t, &v)
	return v
}

// action posts an action body to an instance.
func (e *env) action(t *testing.T, key string, id int64, body string) response {
	t.Helper()
	return e.do(t, request{Method: http.MethodPost, Path: fmt.Sprintf("/instances/%d/actions", id), Key: key, Body: body})
}

// ledger returns the account's balance, debt and ledger as the store has them.
func (e *env) ledger(t *testing.T, accountID int64) (store.Account, []store.LedgerEntry) {
	t.Helper()
	ctx := context.Background()
	acct, err := e.database(t).Account(ctx, accountID)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := e.database(t).LedgerEntries(ctx, accountID)
	if err != nil {
		t.Fatal(err)
	}
	return acct, entries
}

// events returns the names of the account's events, oldest first.
func (e *env) events(t *testing.T, accountID int64) []store.Event {
	t.Helper()
	evs, err := e.database(t).Events(context.Background(), accountID)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// eventNames lists the names of events.
func eventNames(evs []store.Event) []string {
	out := make([]string, 0, len(evs))
	for _, e := range evs {
		out = append(out, e.Name)
	}
	return out
}

// wantReconciled fails unless the ledger sums to the balance and the debt.
func (e *env) wantReconciled(t *testing.T, accountID int64) {
	t.Helper()
	acct, entries := e.ledger(t, accountID)
	var balance, debt money.Micros
	for _, en := range entries {
		balance += en.Amount
		debt += en.Debt
	}
	if balance != acct.Balance || debt != acct.Debt {
		t.Fatalf("ledger sums to balance %v debt %v; account has balance %v debt %v", balance, debt, acct.Balance, acct.Debt)
	}
	if acct.Balance < 0 || acct.Debt < 0 {
		t.Fatalf("balance %v, debt %v: neither may be negative", acct.Balance, acct.Debt)
	}
}

const ubuntuOn101 = `{"server_id": 101, "template_id": 1, "term": "hourly"}`
