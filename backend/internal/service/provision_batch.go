package service

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// Deploys move in batches: one transaction claims a batch of due orders, the datacenter is asked
// about all of them at once, and one more transaction records what became of each: its ticket,
// or its deploy (instance, charge, finished order, queued installs, order.deployed event), or
// its time-out (finished order, order.timed_out event), and the end of every claim. A batch
// takes two commits whatever its size, where moving the orders one at a time would take four or
// five each: commits, not the datacenter, bound the drain, and this is what lets the worker keep
// up with admission (bench/README.md has the figures).
const (
	// provisionPerTick bounds the due orders one ProvisionDue reads, so a tick of a long queue
	// still ends and lets the loop's other steps run.
	provisionPerTick = 2000
	// provisionBatchSize is how many orders one batch moves: one transaction's worth. On
	// SQLite a batch holds the single writer while it runs, and POST /instances waits behind
	// it, so a batch stays small enough that an order waits for at most one short batch; bigger
	// batches, or several at once, drain no faster and hold admission up longer.
	provisionBatchSize = 50
	// provisionPollers is how many datacenter calls a batch makes at once.
	provisionPollers = 16
)

// orderMove is what a batch found out about one claimed order and will record.
type orderMove struct {
	order   store.Order
	ticket  string              // a build submitted in this batch, to record
	machine *datacenter.Machine // the finished build: deploy it
	timeOut string              // the support reference of an order whose window has passed
}

// ProvisionDue moves every due pending order forward once, in batches (see provisionBatch) run
// in lanes (see provisionLanes): submit its build, poll the build, deploy a finished one, or
// time out one whose window has passed. It is the provisioning worker's step; all its state is in the store, so a restarted
// backend picks up where the last one stopped.
func (s *Service) ProvisionDue(ctx context.Context) error {
	orders, err := s.store.DueOrders(ctx, s.now(), provisionPerTick)
	if err != nil {
		return fmt.Errorf("service: due orders: %w", err)
	}
	return s.provisionLanes(ctx, orders)
}

// ProvisionOrder moves the one order id forward once, as ProvisionDue moves every due order,
// and does nothing to an order that is no longer pending or that another worker holds.
// `resellerd seed` drives its own orders with it, so seeding a live database moves no other
// account's order.
func (s *Service) ProvisionOrder(ctx context.Context, id int64) error {
	o, err := s.store.OrderByID(ctx, id)
	if err != nil {
		return fmt.Errorf("service: order %d: %w", id, err)
	}
	if o.Status != store.OrderPending {
		return nil
	}
	return s.provisionBatch(ctx, []store.Order{o})
}

// provisionBatch claims the due orders, asks the datacenter about each and records the outcome
// of all of them in one transaction. If that transaction fails (an order finished by another
// worker after its claim ran out, or a bad row), the claims are dropped and the orders moved one
// by one, so one order cannot hold up the others. A crash anywhere leaves each order either as it
// was, claimed until its lease runs out, or moved with everything its move writes.
func (s *Service) provisionBatch(ctx context.Context, due []store.Order) error {
	now := s.now()
	claimed, err := s.claimOrders(ctx, due, now)
	if err != nil || len(claimed) == 0 {
		return err
	}
	moves := s.pollBuilds(ctx, claimed, now)
	if err = s.record(ctx, moves, now); err == nil {
		return nil
	}
	s.log.WarnContext(ctx, "provision batch failed; recording its orders one by one", slog.Int("orders", len(moves)), slog.Any("error", err))
	for _, m := range moves {
		s.recordAlone(ctx, m, now)
	}
	return nil
}

// recordAlone records one move of a failed batch in a transaction of its own, so a failing
// order holds back no other. Should that fail too, the ticket of a build submitted this tick is
// still kept with the claim dropped: the order is moved at the next tick and the datacenter is
// never asked twice for its machine.
func (s *Service) recordAlone(ctx context.Context, m orderMove, now time.Time) {
	err := s.record(ctx, []orderMove{m}, now)
	if err == nil || errors.Is(err, store.ErrConflict) { // ErrConflict: another worker finished it first
		return
	}
	s.log.ErrorContext(ctx, "provision order", slog.Int64("order_id", m.order.ID), slog.Any("error", err))
	keep := []orderMove{{order: m.order, ticket: m.ticket}} // only the ticket and the release
	if err := s.record(context.WithoutCancel(ctx), keep, now); err != nil {
		s.log.ErrorContext(ctx, "release order", slog.Int64("order_id", m.order.ID), slog.Any("error", err))
	}
}

// record writes moves in one transaction (recordMoves) and then logs the orders it timed out.
func (s *Service) record(ctx context.Context, moves []orderMove, now time.Time) error {
	if err := s.store.WithTx(ctx, func(tx store.Tx) error { return s.recordMoves(ctx, tx, moves, now) }); err != nil {
		return err
	}
	for _, m := range moves {
		if m.timeOut != "" {
			s.log.InfoContext(ctx, "order timed out", slog.Int64("order_id", m.order.ID), slog.String("reference", m.timeOut))
		}
	}
	return nil
}

// claimOrders takes the lease of the due orders with one statement and returns those it got,
// sorted by account then id: every batch transaction then locks accounts in the same order, so
// two replicas' batches cannot deadlock on PostgreSQL.
func (s *Service) claimOrders(ctx context.Context, due []store.Order, now time.Time) ([]store.Order, error) {
	due = slices.Clone(due)
	slices.SortFunc(due, func(a, b store.Order) int {
		return cmp.Or(cmp.Compare(a.AccountID, b.AccountID), cmp.Compare(a.ID, b.ID))
	})
	keys := make([]store.OrderKey, len(due))
	for i, o := range due {
		keys[i] = store.OrderKey{ID: o.ID, AccountID: o.AccountID}
	}
	var ids []int64
	err := s.store.WithTx(ctx, func(tx store.Tx) error {
		var err error
		ids, err = tx.ClaimOrders(ctx, keys, now, now.Add(s.workLease))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("service: claim orders: %w", err)
	}
	return slices.DeleteFunc(due, func(o store.Order) bool { return !slices.Contains(ids, o.ID) }), nil
}

// pollBuilds asks the datacenter about every claimed order, provisionPollers at a time: submit
// the build of an order without one, poll it, and note a finished build or a passed window. A
// datacenter error leaves the order as it is, to be asked again at the next tick.
func (s *Service) pollBuilds(ctx context.Context, orders []store.Order, now time.Time) []orderMove {
	moves := make([]orderMove, len(orders))
	held := s.heldAccounts(ctx, orders)
	slots := make(chan struct{}, provisionPollers)
	var wg sync.WaitGroup
	for i, o := range orders {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			moves[i] = s.pollBuild(ctx, o, now, held[o.AccountID])
		}()
	}
	wg.Wait()
	for i := range moves { // references after the calls, not from each poller
		if moves[i].timeOut != "" {
			ref, err := datacenter.NewReference(s.random)
			if err != nil {
				moves[i].timeOut = "" // asked again at the next tick
				s.log.ErrorContext(ctx, "order reference", slog.Any("error", err))
				continue
			}
			moves[i].timeOut = ref
		}
	}
	return moves
}

// heldAccounts are the accounts of orders whose builds are not submitted yet that may not start
// one now: blocked accounts (see pollBuild). An account that cannot be read is held too, for
// this tick: its order is asked about again at the next.
func (s *Service) heldAccounts(ctx context.Context, orders []store.Order) map[int64]bool {
	held := map[int64]bool{}
	for _, o := range orders {
		if o.Ticket != "" {
			continue
		}
		if _, seen := held[o.AccountID]; seen {
			continue
		}
		acct, err := s.store.Account(ctx, o.AccountID)
		if err != nil {
			s.log.WarnContext(ctx, "read account of order", slog.Int64("order_id", o.ID), slog.Any("error", err))
		}
		held[o.AccountID] = err != nil || acct.Blocked
	}
	return held
}

// pollBuild is what provision does for one order, without writing: the move to record. The
// build of an order of a held (blocked) account is not submitted: the order waits, its money
// reserved, until the account is unblocked, or times out at the end of its window as any
// order does (nothing charged). A build already submitted goes on.
func (s *Service) pollBuild(ctx context.Context, o store.Order, now time.Time, held bool) orderMove {
	m := orderMove{order: o}
	deadline := o.CreatedAt.Add(s.orderWindow)
	if o.Ticket == "" && now.Before(deadline) && !held {
		ticket, err := s.build(ctx, o)
		if err != nil {
			s.log.WarnContext(ctx, "submit build; retrying", slog.Int64("order_id", o.ID), slog.Any("error", err))
		} else {
			m.ticket, m.order.Ticket = ticket, ticket
		}
	}
	if m.order.Ticket != "" {
		b, err := s.dc.Poll(ctx, m.order.Ticket)
		if err != nil {
			s.log.WarnContext(ctx, "poll build", slog.Int64("order_id", o.ID), slog.Any("error", err))
		} else if b.Done && s.runDeployHook(ctx, o.ID, b.Machine) {
			m.machine = &b.Machine
			return m
		}
	}
	if !now.Before(deadline) {
		m.timeOut = "pending" // the reference is drawn by pollBuilds
	}
	return m
}
