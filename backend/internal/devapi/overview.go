package devapi

import (
	"context"
	"net/http"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// OverviewReader is the part of Backend GET /_dev/overview reads.
type OverviewReader interface {
	// Overview reads the whole service within limits, across accounts.
	Overview(ctx context.Context, limits service.OverviewLimits) (service.Overview, error)
}

// GET /_dev/overview answers, in the API's envelope, the whole service as the console shows it:
// the service clock, every account (up to service.DefaultOverviewLimits) with its wallet,
// servers against its limit and its balance after each of its last ledger entries, the active
// servers, the pending orders with their age, the active snapshots and the recent webhook
// deliveries. Amounts are USD as the API writes them (exact decimals from micro-USD); no key,
// password, webhook secret or delivery body is shown. It takes no key: /_dev/ is loopback-only
// and mounted by `resellerd dev` alone, and the console reads every account.

// overviewJSON is the data of GET /_dev/overview.
type overviewJSON struct {
	Now           string             `json:"now"` // the service clock, RFC 3339
	Limits        overviewLimitsJSON `json:"limits"`
	Accounts      []accountJSON      `json:"accounts"`
	Servers       []serverJSON       `json:"servers"`
	PendingOrders []pendingOrderJSON `json:"pending_orders"`
	Snapshots     []snapshotJSON     `json:"snapshots"`
	Deliveries    []deliveryJSON     `json:"deliveries"`
}

// overviewLimitsJSON tells the reader where each list stops.
type overviewLimitsJSON struct {
	Accounts      int `json:"accounts"`
	Servers       int `json:"servers"`
	PendingOrders int `json:"pending_orders"`
	Snapshots     int `json:"snapshots"`
	Deliveries    int `json:"deliveries"`
	BalancePoints int `json:"balance_points"`
}

type accountJSON struct {
	ID             int64              `json:"id"`
	Balance        money.Micros       `json:"balance"`
	Available      money.Micros       `json:"available"` // the balance less what pending orders reserve
	Debt           money.Micros       `json:"debt"`
	ActiveServers  int                `json:"active_servers"`
	ServerLimit    int                `json:"server_limit"`
	PendingOrders  int                `json:"pending_orders"`
	OrderLimit     int                `json:"order_limit"`
	Blocked        bool               `json:"blocked"`
	BalanceHistory []balancePointJSON `json:"balance_history"` // oldest first
}

// balancePointJSON is the balance right after a ledger entry, at the entry's service time.
type balancePointJSON struct {
	Time    string       `json:"time"`
	Balance money.Micros `json:"balance"`
}

type serverJSON struct {
	ID          int64        `json:"id"`
	AccountID   int64        `json:"account_id"`
	Name        string       `json:"name"`
	Hostname    string       `json:"hostname"`
	Status      string       `json:"status"`
	PlanID      int64        `json:"plan_id"`
	Plan        string       `json:"plan"`
	HourlyPrice money.Micros `json:"hourly_price"`
	IPv4        *string      `json:"ipv4"`
	Locked      bool         `json:"locked"`
	LockReason  *string      `json:"lock_reason"`
	CreatedAt   string       `json:"created_at"`
}

type pendingOrderJSON struct {
	ID         int64        `json:"id"`
	AccountID  int64        `json:"account_id"`
	Hostname   string       `json:"hostname"`
	PlanID     int64        `json:"plan_id"`
	Plan       string       `json:"plan"`
	Price      money.Micros `json:"price"` // the first charge, reserved while pending
	CreatedAt  string       `json:"created_at"`
	AgeSeconds int64        `json:"age_seconds"` // on the service clock
}

type snapshotJSON struct {
	ID          int64        `json:"id"`
	AccountID   int64        `json:"account_id"`
	InstanceID  int64        `json:"instance_id"`
	Name        string       `json:"name"`
	Status      string       `json:"status"`
	SizeGB      int          `json:"size_gb"`
	HourlyPrice money.Micros `json:"hourly_price"`
	Locked      bool         `json:"locked"`
	CreatedAt   string       `json:"created_at"`
}

type deliveryJSON struct {
	ID         string  `json:"id"`
	AccountID  int64   `json:"account_id"`
	Event      string  `json:"event"`
	Status     string  `json:"status"`
	Attempts   int     `json:"attempts"`
	LastStatus *int    `json:"last_status"` // the HTTP status of the last attempt; null when none answered
	LastError  *string `json:"last_error"`
	CreatedAt  string  `json:"created_at"`
	NextAt     *string `json:"next_at"` // while pending
	FinishedAt *string `json:"finished_at"`
}

func (h handler) overview(w http.ResponseWriter, r *http.Request) {
	var o service.Overview
	err := h.cfg.Do(func(s Backend) error {
		var err error
		o, err = s.Overview(r.Context(), service.DefaultOverviewLimits)
		return err
	})
	if err != nil {
		h.resp.Fail(w, r, err)
		return
	}
	h.resp.OK(w, r, newOverviewJSON(o, service.DefaultOverviewLimits))
}

// newOverviewJSON shows o; every list is [] rather than null when empty.
func newOverviewJSON(o service.Overview, l service.OverviewLimits) overviewJSON {
	out := overviewJSON{Now: stamp(o.Now), Limits: overviewLimitsJSON{Accounts: l.Accounts, Servers: l.Servers,
		PendingOrders: l.Orders, Snapshots: l.Snapshots, Deliveries: l.Deliveries, BalancePoints: l.BalancePoints},
		Accounts: []accountJSON{}, Servers: []serverJSON{}, PendingOrders: []pendingOrderJSON{},
		Snapshots: []snapshotJSON{}, Deliveries: []deliveryJSON{}}
	for _, a := range o.Accounts {
		out.Accounts = append(out.Accounts, newAccountJSON(a))
	}
	for _, s := range o.Servers {
		out.Servers = append(out.Servers, serverJSON{ID: s.ID, AccountID: s.AccountID, Name: s.Name, Hostname: s.Hostname,
			Status: s.Status, PlanID: s.PlanID, Plan: s.Plan.Name.In(catalog.English), HourlyPrice: s.Hourly,
			IPv4: optional(s.IPv4), Locked: s.Locked, LockReason: optional(s.LockReason), CreatedAt: stamp(s.CreatedAt)})
	}
	for _, p := range o.Orders {
		out.PendingOrders = append(out.PendingOrders, pendingOrderJSON{ID: p.ID, AccountID: p.AccountID, Hostname: p.Hostname,
			PlanID: p.PlanID, Plan: p.Plan.Name.In(catalog.English), Price: p.Price, CreatedAt: stamp(p.CreatedAt),
			AgeSeconds: int64(p.Age / time.Second)})
	}
	for _, s := range o.Snapshots {
		out.Snapshots = append(out.Snapshots, snapshotJSON{ID: s.ID, AccountID: s.AccountID, InstanceID: s.InstanceID,
			Name: s.Name, Status: s.Status, SizeGB: s.SizeGB, HourlyPrice: s.Price, Locked: s.Locked, CreatedAt: stamp(s.CreatedAt)})
	}
	for _, d := range o.Deliveries {
		out.Deliveries = append(out.Deliveries, newDeliveryJSON(d))
	}
	return out
}

func newAccountJSON(a service.AccountOverview) accountJSON {
	out := accountJSON{ID: a.Account.ID, Balance: a.Account.Balance, Available: a.Available(), Debt: a.Account.Debt,
		ActiveServers: a.ActiveInstances, ServerLimit: a.Account.ServerLimit, PendingOrders: a.Orders.Pending,
		OrderLimit: a.Account.OrderLimit, Blocked: a.Account.Blocked, BalanceHistory: []balancePointJSON{}}
	for _, p := range a.History {
		out.BalanceHistory = append(out.BalanceHistory, balancePointJSON{Time: stamp(p.At), Balance: p.Balance})
	}
	return out
}

func newDeliveryJSON(d store.Delivery) deliveryJSON {
	out := deliveryJSON{ID: d.ID, AccountID: d.AccountID, Event: d.Event, Status: d.Status, Attempts: d.Attempts,
		LastError: optional(d.LastError), CreatedAt: stamp(d.CreatedAt)}
	if d.LastStatus != 0 {
		out.LastStatus = &d.LastStatus
	}
	if d.Status == store.DeliveryPending {
		next := stamp(d.NextAt)
		out.NextAt = &next
	}
	if !d.FinishedAt.IsZero() {
		finished := stamp(d.FinishedAt)
		out.FinishedAt = &finished
	}
	return out
}

// stamp writes a service time as the API does: RFC 3339 in UTC.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// optional is s, or nil (JSON null) when it is empty.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
