package seed

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// settleRounds bounds how many steps a seeded build, power change or snapshot may take before
// the seed is declared failed (they need two or three with no delays).
const settleRounds = 50

// Apply creates accounts through svc, which must run without delays and without background
// workers: Apply moves its own orders and snapshots itself, so on a live database no other
// account's order, delivery or bill moves. Every key is checked before anything is written (a
// key in use fails the seed first); Apply then stops at the first failure, which it returns as
// an *Error.
func Apply(ctx context.Context, svc *service.Service, accounts []Account) error {
	seen := make(map[string]bool, len(accounts))
	for i, a := range accounts {
		if a.APIKey == "" {
			return &Error{Account: i, Err: service.Validation("api_key", "is required")}
		}
		if seen[a.APIKey] {
			return &Error{Account: i, Err: service.Validation("api_key", "is the key of an earlier account of the seed")}
		}
		seen[a.APIKey] = true
		if _, err := svc.Authenticate(ctx, a.APIKey); err == nil {
			return &Error{Account: i, Err: service.Validation("api_key", "is already the key of an account")}
		}
	}
	for i, a := range accounts {
		if err := (applier{svc: svc}).account(ctx, i, a); err != nil {
			return err
		}
	}
	return nil
}

// applier applies a seed's accounts through its service.
type applier struct{ svc *service.Service }

func (p applier) account(ctx context.Context, i int, a Account) error {
	fail := func(part string, index int, err error) error {
		return &Error{Account: i, Part: part, Index: index, Err: err}
	}
	if _, err := p.svc.CreateAccount(ctx, a.NewAccount); err != nil {
		return fail("", 0, err)
	}
	acct, err := p.svc.Authenticate(ctx, a.APIKey)
	if err != nil {
		return fail("", 0, err)
	}
	ids := map[string]int64{}
	for j, sv := range a.Servers {
		id, err := p.server(ctx, acct, sv)
		if err != nil {
			return fail("servers", j, err)
		}
		ids[sv.Name] = id
	}
	for j, sn := range a.Snapshots {
		if err := p.snapshot(ctx, acct, ids, sn); err != nil {
			return fail("snapshots", j, err)
		}
	}
	if a.Webhook != nil {
		url, secret := a.Webhook.URL, a.Webhook.Secret
		if _, err := p.svc.SetWebhook(ctx, acct, service.WebhookRequest{URL: &url, Secret: &secret}); err != nil {
			return fail("webhook", 0, err)
		}
	}
	return nil
}

// server orders one hourly server, waits for its deploy, names it and powers it off if asked.
func (p applier) server(ctx context.Context, acct store.Account, sv Server) (int64, error) {
	if _, err := p.svc.Plan(ctx, acct, sv.PlanID); err != nil {
		return 0, service.Validation("plan_id", "no plan %d in the catalogue (GET /catalog/servers)", sv.PlanID)
	}
	term := "hourly"
	created, err := p.svc.CreateOrder(ctx, acct, service.OrderRequest{ServerID: &sv.PlanID, TemplateID: &sv.TemplateID, Term: &term},
		service.Idempotency{})
	if err != nil {
		return 0, err
	}
	var id int64
	err = settle(ctx, "server "+sv.Name+" deployed", func() (bool, error) {
		if err := p.svc.ProvisionOrder(ctx, created.Order.ID); err != nil {
			return false, err
		}
		o, err := p.svc.Order(ctx, acct, created.Order.ID)
		if err != nil || o.Status == store.OrderPending {
			return false, err
		}
		if o.Status != store.OrderDeployed {
			return false, fmt.Errorf("order %d ended %s", o.ID, o.Status)
		}
		id = o.InstanceID
		return true, nil
	})
	if err != nil {
		return 0, err
	}
	name := sv.Name
	if _, err := p.svc.UpdateInstance(ctx, acct, id, service.InstanceUpdate{Name: &name}); err != nil {
		return 0, err
	}
	if !sv.PowerOff {
		return id, nil
	}
	if _, err := p.svc.RunAction(ctx, acct, id, service.ActionRequest{Action: catalog.ActionPowerOff}); err != nil {
		return 0, err
	}
	return id, settle(ctx, "server "+sv.Name+" powered off", func() (bool, error) {
		in, err := p.svc.Instance(ctx, acct, id, true)
		return err == nil && in.Status == datacenter.StatusOffline, err
	})
}

// snapshot takes a snapshot of a seeded server and waits until it is available.
func (p applier) snapshot(ctx context.Context, acct store.Account, ids map[string]int64, sn Snapshot) error {
	id, ok := ids[sn.Server]
	if !ok {
		return service.Validation("server", "no server named %q in this account's servers", sn.Server)
	}
	name := sn.Name
	snap, err := p.svc.CreateSnapshot(ctx, acct, id, service.SnapshotRequest{Name: &name})
	if err != nil {
		return err
	}
	return settle(ctx, "snapshot "+sn.Name+" available", func() (bool, error) {
		if err := p.svc.AdvanceSnapshot(ctx, snap.ID); err != nil {
			return false, err
		}
		v, err := p.svc.Snapshot(ctx, acct, snap.ID)
		if err != nil || v.Status == store.SnapshotCreating {
			return false, err
		}
		if v.Status != store.SnapshotAvailable {
			return false, fmt.Errorf("snapshot %d ended %s", v.ID, v.Status)
		}
		return true, nil
	})
}

// settle calls step until it says the work is done, at most settleRounds times. Each step moves
// only the seed's own order or snapshot (a power change settles when the instance is read).
func settle(ctx context.Context, what string, step func() (bool, error)) error {
	for range settleRounds {
		ok, err := step()
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	return errors.New("seed: " + what + " did not happen (is a fail rate set on this database?)")
}
