package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// DefaultWorkLease bounds how long a worker may hold claimed work (Config.WorkLease). A worker
// that dies holding a lease only delays the work by this much: another takes it over once the
// lease has passed.
const DefaultWorkLease = time.Minute

// workBatch is how many items a worker takes from the store at once.
const workBatch = 100

// build asks the datacenter for the order's machine and returns its ticket, unrecorded.
func (s *Service) build(ctx context.Context, o store.Order) (string, error) {
	plan, ok := s.catalog.Plan(o.PlanID)
	if !ok {
		return "", fmt.Errorf("service: order %d: unknown plan %d", o.ID, o.PlanID)
	}
	tmpl, _ := s.catalog.Template(o.TemplateID)
	password, err := s.snapshotPassword(ctx, o.SnapshotID)
	if err != nil {
		return "", fmt.Errorf("service: order %d: %w", o.ID, err)
	}
	return s.dc.Build(ctx, datacenter.BuildSpec{
		OrderID: o.ID, DatacenterID: plan.DatacenterID, LocationID: plan.LocationID, PlanID: plan.ID,
		TemplateID: o.TemplateID, OSType: tmpl.OSType, SnapshotID: o.SnapshotID, Hostname: o.Hostname,
		SnapshotPassword: password,
	})
}

// snapshotPassword is the root password a build from snapshot id keeps (BuildSpec's
// SnapshotPassword): "" for a build from a template (id 0) and for a snapshot no longer
// stored, whose machine then gets a new one.
func (s *Service) snapshotPassword(ctx context.Context, id int64) (string, error) {
	if id == 0 {
		return "", nil
	}
	snap, err := s.store.SnapshotByID(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("read snapshot %d: %w", id, err)
	}
	return snap.Password, nil
}

// newInstance is the instance a finished build m of o becomes, deployed at now. The price was
// reserved when the order was accepted; its charge is booked by recordMoves, which locks the
// instance for debt when other charges have eaten into the balance since (like a short
// renewal).
func (s *Service) newInstance(o store.Order, m datacenter.Machine, now time.Time) store.Instance {
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
	return in
}

// timeOut ends an order the datacenter did not finish in its window: nothing is created or
// charged (the reservation ends with the pending status), a support reference is recorded and
// order.timed_out is emitted.
func (s *Service) timeOut(ctx context.Context, o store.Order) error {
	ref, err := datacenter.NewReference(s.random)
	if err != nil {
		return err
	}
	err = s.record(ctx, []orderMove{{order: o, timeOut: ref}}, s.now())
	if err != nil && !errors.Is(err, store.ErrConflict) {
		return fmt.Errorf("service: time out order %d: %w", o.ID, err)
	}
	return nil
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
