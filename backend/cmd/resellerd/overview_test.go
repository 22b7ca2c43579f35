package main

import (
	"strings"
	"testing"
	"time"
)

// devOverview is the data of GET /_dev/overview, as a test reads it.
type devOverview struct {
	Now      time.Time `json:"now"`
	Accounts []struct {
		ID             int64   `json:"id"`
		Balance        float64 `json:"balance"`
		Available      float64 `json:"available"`
		Debt           float64 `json:"debt"`
		ActiveServers  int     `json:"active_servers"`
		ServerLimit    int     `json:"server_limit"`
		PendingOrders  int     `json:"pending_orders"`
		BalanceHistory []struct {
			Time    time.Time `json:"time"`
			Balance float64   `json:"balance"`
		} `json:"balance_history"`
	} `json:"accounts"`
	Servers []struct {
		ID          int64   `json:"id"`
		AccountID   int64   `json:"account_id"`
		Name        string  `json:"name"`
		Status      string  `json:"status"`
		Plan        string  `json:"plan"`
		HourlyPrice float64 `json:"hourly_price"`
		IPv4        *string `json:"ipv4"`
		Locked      bool    `json:"locked"`
	} `json:"servers"`
	PendingOrders []struct {
		ID         int64   `json:"id"`
		Price      float64 `json:"price"`
		Plan       string  `json:"plan"`
		AgeSeconds int64   `json:"age_seconds"`
	} `json:"pending_orders"`
	Snapshots  []struct{ ID int64 }  `json:"snapshots"`
	Deliveries []struct{ ID string } `json:"deliveries"`
}

// overview reads GET /_dev/overview, failing the test on a secret in it.
func (d *devAPI) overview(t *testing.T) devOverview {
	t.Helper()
	a := d.call(t, "GET", "/_dev/overview", "", "").want(t, 200, "")
	if body := string(a.Data); strings.Contains(body, d.key) || strings.Contains(body, "password") {
		t.Fatalf("the overview shows a key or a password: %s", body)
	}
	var o devOverview
	a.into(t, &o)
	return o
}

// TestDevOverviewFollowsBilling: the overview shows the account's wallet, its server with the
// hourly price and the balance history the ledger gives, on the service clock; an hour on, the
// balance and its last point have dropped by that price.
func TestDevOverviewFollowsBilling(t *testing.T) {
	d := startDevInProcess(t, "--deploy-delay", "0s", "--credentials-delay", "0s")
	_, id := d.deployed(t)
	var plan struct {
		Prices []struct {
			Price float64 `json:"price"`
		} `json:"prices"`
	}
	d.call(t, "GET", "/api/v1/catalog/servers/101", d.key, "").want(t, 200, "").into(t, &plan)
	hourly := plan.Prices[0].Price

	before := d.overview(t)
	d.call(t, "POST", "/_dev/clock", "", `{"advance": "1h"}`).want(t, 200, "")
	o := d.overview(t)
	if o.Now.Sub(before.Now) < time.Hour {
		t.Fatalf("the service clock went from %v to %v over an hour's move", before.Now, o.Now)
	}
	if len(o.Accounts) != 1 || len(o.Servers) != 1 {
		t.Fatalf("overview: %d accounts, %d servers; want 1 and 1", len(o.Accounts), len(o.Servers))
	}
	acct, srv := o.Accounts[0], o.Servers[0]
	if balance := d.balance(t); !near(acct.Balance, balance) || !near(acct.Available, balance) || acct.Debt != 0 ||
		!near(before.Accounts[0].Balance-acct.Balance, hourly) {
		t.Fatalf("account %+v: want the balance %v, an hour of %v below %v", acct, balance, hourly, before.Accounts[0].Balance)
	}
	if acct.ActiveServers != 1 || acct.ServerLimit != 50 || acct.PendingOrders != 0 {
		t.Fatalf("account %+v: want 1 active server of 50, no pending order", acct)
	}
	if srv.ID != id || srv.AccountID != acct.ID || srv.Status != "online" || !near(srv.HourlyPrice, hourly) ||
		srv.Plan == "" || srv.Name == "" || srv.IPv4 == nil || srv.Locked {
		t.Fatalf("server %+v: want instance %d online at %v an hour, with a plan, a name and an IPv4", srv, id, hourly)
	}
	h := acct.BalanceHistory
	if len(h) < 3 || !near(h[len(h)-1].Balance, acct.Balance) || !near(h[len(h)-2].Balance-h[len(h)-1].Balance, hourly) ||
		h[len(h)-1].Time.Before(h[len(h)-2].Time.Add(time.Hour)) {
		t.Fatalf("balance history %+v: want the top-up, the order and an hour's renewal, ending at %v", h, acct.Balance)
	}
}

// TestDevOverviewShowsPendingOrders: an order still building is listed with its plan, its
// reserved price (taken from available) and its age on the service clock.
func TestDevOverviewShowsPendingOrders(t *testing.T) {
	d := startDevInProcess(t, "--deploy-delay", "1h")
	var placed struct {
		OrderID int64 `json:"order_id"`
	}
	d.call(t, "POST", "/api/v1/instances", d.key, `{"server_id": 101, "template_id": 1, "term": "hourly"}`).want(t, 201, "").into(t, &placed)
	d.call(t, "POST", "/_dev/clock", "", `{"advance": "5m"}`).want(t, 200, "")
	o := d.overview(t)
	if len(o.PendingOrders) != 1 || len(o.Servers) != 0 {
		t.Fatalf("overview: %+v pending, %+v servers; want the one order pending", o.PendingOrders, o.Servers)
	}
	p, acct := o.PendingOrders[0], o.Accounts[0]
	if p.ID != placed.OrderID || p.Plan == "" || p.AgeSeconds < 300 || p.AgeSeconds > 330 {
		t.Fatalf("pending order %+v: want order %d, with its plan, about 300 s old", p, placed.OrderID)
	}
	if acct.PendingOrders != 1 || !near(acct.Balance-acct.Available, p.Price) {
		t.Fatalf("account %+v: want one pending order reserving %v", acct, p.Price)
	}
}
