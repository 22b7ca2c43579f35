package service

import (
	"context"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// OverviewLimits bound each list of an Overview; a field of zero or less takes its
// DefaultOverviewLimits value.
type OverviewLimits struct {
	Accounts      int // accounts, lowest id first
	Servers       int // active servers, newest first
	Orders        int // pending orders, oldest first
	Snapshots     int // active snapshots, newest first
	Deliveries    int // pending deliveries, and as many finished ones
	BalancePoints int // balance points per account
}

// DefaultOverviewLimits are what a developer's test run holds many times over, small enough
// that a look every second stays cheap.
var DefaultOverviewLimits = OverviewLimits{Accounts: 50, Servers: 200, Orders: 100, Snapshots: 100, Deliveries: 50,
	BalancePoints: 200}

// withDefaults fills the unset limits.
func (l OverviewLimits) withDefaults() OverviewLimits {
	d := DefaultOverviewLimits
	for _, f := range []struct{ v, def *int }{{&l.Accounts, &d.Accounts}, {&l.Servers, &d.Servers},
		{&l.Orders, &d.Orders}, {&l.Snapshots, &d.Snapshots}, {&l.Deliveries, &d.Deliveries},
		{&l.BalancePoints, &d.BalancePoints}} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	return l
}

// Overview is the whole service at one moment of its clock, across accounts: what the console
// of `resellerd dev` shows. Its lists come from separate reads, so a change made between two of
// them may show in one list a second before the other.
type Overview struct {
	Now        time.Time
	Accounts   []AccountOverview
	Servers    []ServerOverview
	Orders     []PendingOrderOverview
	Snapshots  []SnapshotOverview
	Deliveries []store.Delivery // pending ones first (due first), then finished ones (last first)
}

// AccountOverview is an account with its counts and its recent balances.
type AccountOverview struct {
	store.AccountCounts
	// History is the balance after each of the account's last ledger entries, oldest first.
	History []store.BalancePoint
}

// ServerOverview is an active server with its plan and what an hour of it costs.
type ServerOverview struct {
	store.Instance
	Status string // the status now (a reboot that has settled shows where it ended)
	Plan   catalog.Plan
	Hourly money.Micros // plan and features: what each renewal charges
}

// PendingOrderOverview is an order still provisioning and how long it has been.
type PendingOrderOverview struct {
	store.Order
	Plan catalog.Plan
	Age  time.Duration
}

// SnapshotOverview is an active snapshot with its status now.
type SnapshotOverview struct {
	store.Snapshot
	Status string
}

// Overview reads the whole service within limits: a fixed number of bounded statements
// (store.Overview), whatever the number of accounts and servers. It is for `resellerd dev`
// only; the API never shows one account another's rows.
func (s *Service) Overview(ctx context.Context, limits OverviewLimits) (Overview, error) {
	limits = limits.withDefaults()
	now := s.now()
	out := Overview{Now: now}
	accounts, err := s.accountOverviews(ctx, limits)
	if err != nil {
		return Overview{}, err
	}
	out.Accounts = accounts
	instances, err := s.store.ActiveInstances(ctx, limits.Servers)
	if err != nil {
		return Overview{}, overviewError("servers", err)
	}
	for _, in := range instances {
		plan, _ := s.catalog.Plan(in.PlanID)
		out.Servers = append(out.Servers, ServerOverview{Instance: in, Status: in.Next.StatusAt(in.Status, now), Plan: plan,
			Hourly: s.hourlyPrice(in.PlanID, in.Features)})
	}
	orders, err := s.store.PendingOrders(ctx, limits.Orders)
	if err != nil {
		return Overview{}, overviewError("orders", err)
	}
	for _, o := range orders {
		plan, _ := s.catalog.Plan(o.PlanID)
		out.Orders = append(out.Orders, PendingOrderOverview{Order: o, Plan: plan, Age: max(now.Sub(o.CreatedAt), 0)})
	}
	snapshots, err := s.store.ActiveSnapshots(ctx, limits.Snapshots)
	if err != nil {
		return Overview{}, overviewError("snapshots", err)
	}
	for _, snap := range snapshots {
		out.Snapshots = append(out.Snapshots, SnapshotOverview{Snapshot: snap, Status: snap.Next.StatusAt(snap.Status, now)})
	}
	if out.Deliveries, err = s.store.RecentDeliveries(ctx, limits.Deliveries); err != nil {
		return Overview{}, overviewError("deliveries", err)
	}
	return out, nil
}

// accountOverviews reads the accounts and, in one more statement, their balance histories.
func (s *Service) accountOverviews(ctx context.Context, limits OverviewLimits) ([]AccountOverview, error) {
	counts, err := s.store.AccountsWithCounts(ctx, limits.Accounts)
	if err != nil {
		return nil, overviewError("accounts", err)
	}
	ids := make([]int64, len(counts))
	for i, c := range counts {
		ids[i] = c.Account.ID
	}
	points, err := s.store.BalanceHistory(ctx, ids, limits.BalancePoints)
	if err != nil {
		return nil, overviewError("balance history", err)
	}
	byAccount := map[int64][]store.BalancePoint{}
	for _, p := range points {
		byAccount[p.AccountID] = append(byAccount[p.AccountID], p)
	}
	out := make([]AccountOverview, len(counts))
	for i, c := range counts {
		out[i] = AccountOverview{AccountCounts: c, History: byAccount[c.Account.ID]}
	}
	return out, nil
}

func overviewError(what string, err error) error {
	return Internal(fmt.Errorf("service: overview: %s: %w", what, err))
}
