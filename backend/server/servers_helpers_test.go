package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

type credentialsView struct {
	Username *string `json:"username"`
	Password *string `json:"password"`
	Port     *int    `json:"port"`
	IPv4     *string `json:"ipv4"`
	IPv6     *string `json:"ipv6"`
	Pending  bool    `json:"pending"`
}

type trafficView struct {
	Enabled        bool    `json:"enabled"`
	Included       int     `json:"included"`
	Used           int     `json:"used"`
	Overage        int     `json:"overage"`
	AllowOverage   bool    `json:"allow_overage"`
	CycleStartDate *string `json:"cycle_start_date"`
}

type instanceView struct {
	ID              int64    `json:"id"`
	Name            string   `json:"name"`
	Status          *string  `json:"status"`
	Active          bool     `json:"active"`
	Hostname        *string  `json:"hostname"`
	ServerProductID int64    `json:"server_product_id"`
	IPv4            *string  `json:"ipv4"`
	IPv6            *string  `json:"ipv6"`
	Term            *string  `json:"term"`
	RenewalDue      *string  `json:"renewal_due"`
	Renew           bool     `json:"renew"`
	Locked          bool     `json:"locked"`
	LockReason      *string  `json:"lock_reason"`
	CreatedAt       *string  `json:"created_at"`
	ExpiredAt       *string  `json:"expired_at"`
	DatacenterID    *int64   `json:"datacenter_id"`
	LocationID      *int64   `json:"location_id"`
	TemplateID      *int64   `json:"template_id"`
	Costs           float64  `json:"costs"`
	PaidAmount      float64  `json:"paid_amount"`
	Actions         []string `json:"actions"`
	Snapshots       bool     `json:"snapshots"`
	Note            *string  `json:"note"`
	ServerProduct   *struct {
		ID     int64  `json:"id"`
		Name   string `json:"name"`
		CPU    int    `json:"cpu"`
		Memory int    `json:"memory"`
		Disk   int    `json:"disk"`
	} `json:"server_product"`
	Location *struct {
		ID int64 `json:"id"`
	} `json:"location"`
	Datacenter *struct {
		ID int64 `json:"id"`
	} `json:"datacenter"`
	Template *struct {
		ID     int64  `json:"id"`
		OSType string `json:"os_type"`
	} `json:"template"`
	Traffic     *trafficView     `json:"traffic"`
	Credentials *credentialsView `json:"credentials"`
	Apps        []struct {
		AppID  string `json:"app_id"`
		Name   string `json:"name"`
		Status string `json:"status"`
	} `json:"apps"`
	IPChangeCost   float64  `json:"ip_change_cost"`
	ActiveFeatures []string `json:"active_features"`
	OrderID        int64    `json:"order_id"`
	Recurring      float64  `json:"recurring"`
}

type orderView struct {
	OrderID    int64         `json:"order_id"`
	Status     string        `json:"status"`
	Success    bool          `json:"success"`
	CreatedAt  *string       `json:"created_at"`
	FinishedAt *string       `json:"finished_at"`
	Server     *instanceView `json:"server"`
	Reference  *string       `json:"reference"`
}

type createdView struct {
	OrderID int64    `json:"order_id"`
	Price   float64  `json:"price"`
	Apps    []string `json:"apps"`
}

// funded creates an account with limits high enough that only limit tests meet them.
func (e *env) funded(t *testing.T, balanceMicros int64) CreatedAccount {
	t.Helper()
	a, err := e.srv.CreateAccount(context.Background(), NewAccount{BalanceMicros: balanceMicros, ServerLimit: 100, OrderLimit: 100})
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
func (e *env) placed(t *testing.T, key, body string) createdView {
	t.Helper()
	r := e.order(t, key, "", body)
	r.wantStatus(t, http.StatusCreated, "")
	var c createdView
	r.data(t, &c)
	return c
}

// getOrder reads an order.
func (e *env) getOrder(t *testing.T, key string, id int64) orderView {
	t.Helper()
	r := e.do(t, request{Path: fmt.Sprintf("/orders/%d", id), Key: key})
	r.wantStatus(t, http.StatusOK, "")
	var o orderView
	r.data(t, &o)
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
func (e *env) getInstance(t *testing.T, key string, id int64) instanceView {
	t.Helper()
	r := e.do(t, request{Path: fmt.Sprintf("/instances/%d", id), Key: key})
	r.wantStatus(t, http.StatusOK, "")
	var v instanceView
	r.data(t, &v)
	return v
}

// action posts an action body to an instance.
func (e *env) action(t *testing.T, key string, id int64, body string) response {
	t.Helper()
	return e.do(t, request{Method: http.MethodPost, Path: fmt.Sprintf("/instances/%d/actions", id), Key: key, Body: body})
}

// wantMessage fails unless the error message mentions every word.
func (r response) wantMessage(t *testing.T, words ...string) {
	t.Helper()
	for _, w := range words {
		if r.Body.Error == nil || !strings.Contains(r.Body.Error.Message, w) {
			t.Fatalf("error message of %s does not mention %q", r.Raw, w)
		}
	}
}

// ledger returns the account's balance, debt and ledger as the store has them.
func (e *env) ledger(t *testing.T, accountID int64) (store.Account, []store.LedgerEntry) {
	t.Helper()
	ctx := context.Background()
	acct, err := e.srv.store.Account(ctx, accountID)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := e.srv.store.LedgerEntries(ctx, accountID)
	if err != nil {
		t.Fatal(err)
	}
	return acct, entries
}

// events returns the names of the account's events, oldest first.
func (e *env) events(t *testing.T, accountID int64) []store.Event {
	t.Helper()
	evs, err := e.srv.store.Events(context.Background(), accountID)
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
