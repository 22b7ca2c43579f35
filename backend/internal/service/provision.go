package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// leaseFor bounds how long a worker may hold claimed work. A worker that dies holding a lease
// only delays the work by this much: another takes it over once the lease has passed.
const leaseFor = time.Minute

// workBatch is how many items a worker takes from the store at once.
const workBatch = 100

// build asks the datacenter for the order's machine and returns its ticket, unrecorded.
func (s *Service) build(ctx context.Context, o store.Order) (string, error) {
	plan, ok := s.catalog.Plan(o.PlanID)
	if !ok {
		return "", fmt.Errorf("service: order %d: unknown plan %d", o.ID, o.PlanID)
	}
	tmpl, _ := s.catalog.Template(o.TemplateID)
	return s.dc.Build(ctx, datacenter.BuildSpec{
		OrderID: o.ID, DatacenterID: plan.DatacenterID, LocationID: plan.LocationID, PlanID: plan.ID,
		TemplateID: o.TemplateID, OSType: tmpl.OSType, SnapshotID: o.SnapshotID, Hostname: o.Hostname,
	})
}

// deployIn writes a finished build of o in tx: the instance, the order's end, the first charge
// with its ledger entry, the queued app installs and the order.deployed event. The price was
// reserved when the order was accepted; if other charges have eaten into the balance since, the
// shortfall is booked as debt and the new instance is locked for it, like a short renewal.
// ErrConflict when the order is no longer pending.
func (s *Service) deployIn(ctx context.Context, tx store.Tx, o store.Order, m datacenter.Machine, now time.Time) error {
	plan, _ := s.catalog.Plan(o.PlanID)
	in := store.Instance{
		AccountID: o.AccountID, OrderID: o.ID, Name: o.Hostname, Hostname: o.Hostname,
		PlanID: plan.ID, TemplateID: o.TemplateID, DatacenterID: plan.DatacenterID, LocationID: plan.LocationID,
		Features: o.Features, Status: m.Status, Active: true, Renew: true, MachineRef: m.Ref,
		IPv4: m.IPv4, IPv6: m.IPv6, Username: m.Username, Password: m.Password, Port: m.Port,
		CredentialsAt: m.CredentialsAt, CreatedAt: now, RenewalDue: now.Add(catalog.BillingHour), Paid: o.Price,
	}
	if in.Status == "" {
		in.Status = datacenter.StatusOnline
	}
	if o.SnapshotID != 0 {
		// The disk is the snapshot's, and so are the credentials it holds.
		snap, err := tx.SnapshotByID(ctx, o.SnapshotID)
		if err != nil {
			return err
		}
		in.Username, in.Password, in.Port = snap.Username, snap.Password, snap.Port
	}
	debt, err := s.charge(ctx, tx, o.AccountID, o.Price, store.LedgerOrder, orderRef(o.ID))
	if err != nil {
		return err
	}
	lockForDebt(&in, debt, now)
	if in, err = tx.CreateInstance(ctx, in); err != nil {
		return err
	}
	if err := tx.FinishOrder(ctx, o.ID, store.OrderDeployed, now, in.ID, ""); err != nil {
		return err
	}
	if err := s.queueInstalls(ctx, tx, in.ID, s.orderApps(o), o.AppInputs); err != nil {
		return err
	}
	return s.emit(ctx, tx, o.AccountID, EventOrderDeployed, orderDeployedData{
		OrderID: o.ID, Status: store.OrderDeployed, InstanceID: in.ID, ServerID: plan.ID, Price: o.Price})
}

// timeOut ends an order the datacenter did not finish in its window: nothing is created or
// charged (the reservation ends with the pending status), a support reference is recorded and
// order.timed_out is emitted.
func (s *Service) timeOut(ctx context.Context, o store.Order) error {
	ref, err := datacenter.NewReference(s.random)
	if err != nil {
		return err
	}
	err = s.store.WithTx(ctx, func(tx store.Tx) error { return s.timeOutIn(ctx, tx, o, ref, s.now()) })
	if errors.Is(err, store.ErrConflict) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("service: time out order %d: %w", o.ID, err)
	}
	s.log.InfoContext(ctx, "order timed out", slog.Int64("order_id", o.ID), slog.String("reference", ref))
	return nil
}

// timeOutIn writes the time-out of o in tx (see timeOut); ErrConflict when the order is no
// longer pending.
func (s *Service) timeOutIn(ctx context.Context, tx store.Tx, o store.Order, ref string, now time.Time) error {
	if err := tx.FinishOrder(ctx, o.ID, store.OrderTimedOut, now, 0, ref); err != nil {
		return err
	}
	return s.emit(ctx, tx, o.AccountID, EventOrderTimedOut, orderTimedOutData{
		OrderID: o.ID, Status: store.OrderTimedOut, ServerID: o.PlanID, Price: o.Price, Reference: ref})
}

// TimeOutOrder ends a pending order at once as if its window had passed (an operator action and
// a test hook). An order that is no longer pending is left alone.
func (s *Service) TimeOutOrder(ctx context.Context, orderID int64) error {
	o, err := s.store.OrderByID(ctx, orderID)
	if err != nil {
		return notFoundOr(err, "order", "read order")
	}
	if o.Status != store.OrderPending {
		return fmt.Errorf("service: order %d is %s, not pending", o.ID, o.Status)
	}
	return s.timeOut(ctx, o)
}
