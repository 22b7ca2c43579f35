package service

import (
	"context"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// recordMoves writes every move of a batch in tx, with a handful of statements whatever the
// batch's size (store.BatchQueries): it locks the batch's accounts and reads their balances,
// charges the deploys and writes their instances (and queued app installs), finishes the
// deployed and timed-out orders, emits their events, and ends every other claim with the
// ticket of a build submitted this tick. On PostgreSQL each statement is a round trip: with a
// statement or more per order and table, the batch's round trips, not the database's work,
// would bound the drain. The apps queued on the new servers and the deliveries of the events
// to webhooks are one statement each too; only an order restored from a snapshot reads its
// snapshot alone.
// ErrConflict when an order is no longer pending; the caller then records the moves one by
// one.
func (s *Service) recordMoves(ctx context.Context, tx store.Tx, moves []orderMove, now time.Time) error {
	accounts := make([]int64, len(moves))
	for i, m := range moves {
		accounts[i] = m.order.AccountID
	}
	accts, err := tx.LockAccounts(ctx, accounts)
	if err != nil {
		return fmt.Errorf("service: record batch: %w", err)
	}
	finishes, events, err := s.deployAll(ctx, tx, moves, accts, now)
	if err != nil {
		return err
	}
	var releases []store.OrderRelease
	for _, m := range moves {
		key := store.OrderKey{ID: m.order.ID, AccountID: m.order.AccountID}
		switch {
		case m.machine != nil:
		case m.timeOut != "":
			o := m.order
			finishes = append(finishes, store.OrderFinish{OrderKey: key, Status: store.OrderTimedOut, Reference: m.timeOut})
			e, err := s.newEvent(o.AccountID, EventOrderTimedOut, orderTimedOutData{
				OrderID: o.ID, Status: store.OrderTimedOut, ServerID: o.PlanID, Price: o.Price, Reference: m.timeOut})
			if err != nil {
				return err
			}
			events = append(events, e)
		default:
			releases = append(releases, store.OrderRelease{OrderKey: key, Ticket: m.ticket})
		}
	}
	if err := tx.FinishOrders(ctx, finishes, now); err != nil {
		return fmt.Errorf("service: record batch: %w", err)
	}
	if len(events) > 0 {
		if err := s.emitAll(ctx, tx, events); err != nil {
			return err
		}
	}
	if err := tx.ReleaseOrders(ctx, releases); err != nil {
		return fmt.Errorf("service: record batch: %w", err)
	}
	return nil
}

// deployAll writes the deploys among moves: the first charge of each, paid from its account's
// balance (accts, locked) as far as it goes and booked as debt beyond, which locks the new
// instance as a short renewal does; the instances; and the queued app installs. It returns the
// orders' ends and their order.deployed events, for the caller to write with the rest.
func (s *Service) deployAll(ctx context.Context, tx store.Tx, moves []orderMove, accts map[int64]store.Account,
	now time.Time) ([]store.OrderFinish, []store.Event, error) {
	var deployed []store.Order
	var instances []store.Instance
	var charges []store.LedgerEntry
	for _, m := range moves {
		if m.machine == nil {
			continue
		}
		o := m.order
		in := s.newInstance(o, *m.machine, now)
		if o.SnapshotID != 0 {
			// The disk is the snapshot's, and so are the credentials it holds.
			snap, err := tx.SnapshotByID(ctx, o.SnapshotID)
			if err != nil {
				return nil, nil, fmt.Errorf("service: order %d: %w", o.ID, err)
			}
			in.Username, in.Password, in.Port = snap.Username, snap.Password, snap.Port
		}
		if o.Price > 0 {
			acct, ok := accts[o.AccountID]
			if !ok {
				return nil, nil, fmt.Errorf("service: charge order %d: account %d: %w", o.ID, o.AccountID, store.ErrNotFound)
			}
			e := s.chargeEntry(acct.Balance, o.AccountID, o.Price, store.LedgerOrder, orderRef(o.ID))
			acct.Balance += e.Amount
			accts[o.AccountID] = acct
			charges = append(charges, e)
			lockForDebt(&in, e.Debt, now)
		}
		deployed, instances = append(deployed, o), append(instances, in)
	}
	if len(deployed) == 0 {
		return nil, nil, nil
	}
	if err := tx.AddLedgerEntries(ctx, charges); err != nil {
		return nil, nil, fmt.Errorf("service: charge deploys: %w", err)
	}
	instances, err := tx.CreateInstances(ctx, instances)
	if err != nil {
		return nil, nil, fmt.Errorf("service: deploy: %w", err)
	}
	finishes := make([]store.OrderFinish, len(deployed))
	events := make([]store.Event, len(deployed))
	var installs []store.AppInstall
	for i, o := range deployed {
		in := instances[i]
		installs = append(installs, s.newInstalls(in.ID, s.orderApps(o), o.AppInputs)...)
		finishes[i] = store.OrderFinish{OrderKey: store.OrderKey{ID: o.ID, AccountID: o.AccountID},
			Status: store.OrderDeployed, InstanceID: in.ID}
		events[i], err = s.newEvent(o.AccountID, EventOrderDeployed, orderDeployedData{
			OrderID: o.ID, Status: store.OrderDeployed, InstanceID: in.ID, ServerID: in.PlanID, Price: o.Price})
		if err != nil {
			return nil, nil, err
		}
	}
	if err := tx.AddAppInstalls(ctx, installs); err != nil {
		return nil, nil, fmt.Errorf("service: queue the installs of deploys: %w", err)
	}
	return finishes, events, nil
}
