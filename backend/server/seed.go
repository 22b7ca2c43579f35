package server

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

// SeedAccount is one account of a seed file (`resellerd dev --seed`, `resellerd seed`): its
// fixed key and wallet, the servers already running, their snapshots and the webhook.
type SeedAccount struct {
	NewAccount // APIKey is required here
	Servers    []SeedServer
	Snapshots  []SeedSnapshot
	Webhook    *SeedWebhook
}

// SeedServer is a server that is running when the seed has been applied.
type SeedServer struct {
	Name       string
	PlanID     int64
	TemplateID int64
	PowerOff   bool
}

// SeedSnapshot is an available snapshot of the seeded server named Server.
type SeedSnapshot struct {
	Name   string
	Server string
}

// SeedWebhook is the account's webhook.
type SeedWebhook struct {
	URL    string
	Secret string
}

// SeedError says which part of a seed failed: account Account (0-based), and within it Part
// ("servers", "snapshots", "webhook"; empty for the account's own fields) at Index.
type SeedError struct {
	Account int
	Part    string
	Index   int
	Err     error
}

func (e *SeedError) Error() string {
	if e.Part == "" {
		return fmt.Sprintf("account %d: %v", e.Account, e.Err)
	}
	return fmt.Sprintf("account %d: %s %d: %v", e.Account, e.Part, e.Index, e.Err)
}

func (e *SeedError) Unwrap() error { return e.Err }

// seedSettleRounds bounds how many steps a seeded build, power change or snapshot may take
// before the seed is declared failed (they need two or three with no delays).
const seedSettleRounds = 50

// Seed applies accounts to the database of cfg through the service's own paths: each server is
// ordered, deployed and charged as an API client's would be, then powered off, snapshotted, and
// the webhook set last (so a receiver sees none of the seeding's events). It runs its own
// backend without delays or background loops on cfg.DB, so no other backend should serve the
// database meanwhile; cfg.FailRate applies unless cfg.KeepFailRate (builds that never finish
// make Seed fail). A webhook must pass cfg's policy (AllowHTTPWebhooks, WebhookAllowCIDRs) as it
// would through the API. Seed does only the work of what it creates: it moves its own orders and
// snapshots and runs no worker, so on a live database no other account's order, delivery or
// bill moves and nothing is purged. Seed stops at the first failure, which it returns as a
// *SeedError: callers that must change nothing on a bad seed apply it to a scratch database first.
func Seed(ctx context.Context, cfg Config, accounts []SeedAccount) error {
	cfg.WorkerInterval, cfg.DeployDelay, cfg.CredentialsDelay, cfg.SnapshotDelay = -1, 0, 0, 0
	s, err := New(ctx, cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	seen := make(map[string]bool, len(accounts))
	for i, a := range accounts { // every key first: a key in use fails the seed before any write
		if a.APIKey == "" {
			return &SeedError{Account: i, Err: service.Validation("api_key", "is required")}
		}
		if seen[a.APIKey] {
			return &SeedError{Account: i, Err: service.Validation("api_key", "is the key of an earlier account of the seed")}
		}
		seen[a.APIKey] = true
		if _, err := s.svc.Authenticate(ctx, a.APIKey); err == nil {
			return &SeedError{Account: i, Err: service.Validation("api_key", "is already the key of an account")}
		}
	}
	for i, a := range accounts {
		if err := s.seedAccount(ctx, i, a); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) seedAccount(ctx context.Context, i int, a SeedAccount) error {
	fail := func(part string, index int, err error) error {
		return &SeedError{Account: i, Part: part, Index: index, Err: err}
	}
	if _, err := s.CreateAccount(ctx, a.NewAccount); err != nil {
		return fail("", 0, err)
	}
	acct, err := s.svc.Authenticate(ctx, a.APIKey)
	if err != nil {
		return fail("", 0, err)
	}
	ids := map[string]int64{}
	for j, sv := range a.Servers {
		id, err := s.seedServer(ctx, acct, sv)
		if err != nil {
			return fail("servers", j, err)
		}
		ids[sv.Name] = id
	}
	for j, sn := range a.Snapshots {
		if err := s.seedSnapshot(ctx, acct, ids, sn); err != nil {
			return fail("snapshots", j, err)
		}
	}
	if a.Webhook != nil {
		url, secret := a.Webhook.URL, a.Webhook.Secret
		if _, err := s.svc.SetWebhook(ctx, acct, service.WebhookRequest{URL: &url, Secret: &secret}); err != nil {
			return fail("webhook", 0, err)
		}
	}
	return nil
}

// seedServer orders one hourly server, waits for its deploy, names it and powers it off if asked.
func (s *Server) seedServer(ctx context.Context, acct store.Account, sv SeedServer) (int64, error) {
	if _, err := s.svc.Plan(ctx, acct, sv.PlanID); err != nil {
		return 0, service.Validation("plan_id", "no plan %d in the catalogue (GET /catalog/servers)", sv.PlanID)
	}
	term := "hourly"
	created, err := s.svc.CreateOrder(ctx, acct, service.OrderRequest{ServerID: &sv.PlanID, TemplateID: &sv.TemplateID, Term: &term},
		service.Idempotency{})
	if err != nil {
		return 0, err
	}
	var id int64
	err = s.settle(ctx, "server "+sv.Name+" deployed", func() (bool, error) {
		if err := s.svc.ProvisionOrder(ctx, created.Order.ID); err != nil {
			return false, err
		}
		o, err := s.svc.Order(ctx, acct, created.Order.ID)
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
	if _, err := s.svc.UpdateInstance(ctx, acct, id, service.InstanceUpdate{Name: &name}); err != nil {
		return 0, err
	}
	if !sv.PowerOff {
		return id, nil
	}
	if _, err := s.svc.RunAction(ctx, acct, id, service.ActionRequest{Action: catalog.ActionPowerOff}); err != nil {
		return 0, err
	}
	return id, s.settle(ctx, "server "+sv.Name+" powered off", func() (bool, error) {
		in, err := s.svc.Instance(ctx, acct, id, true)
		return err == nil && in.Status == datacenter.StatusOffline, err
	})
}

// seedSnapshot takes a snapshot of a seeded server and waits until it is available.
func (s *Server) seedSnapshot(ctx context.Context, acct store.Account, ids map[string]int64, sn SeedSnapshot) error {
	id, ok := ids[sn.Server]
	if !ok {
		return service.Validation("server", "no server named %q in this account's servers", sn.Server)
	}
	name := sn.Name
	snap, err := s.svc.CreateSnapshot(ctx, acct, id, service.SnapshotRequest{Name: &name})
	if err != nil {
		return err
	}
	return s.settle(ctx, "snapshot "+sn.Name+" available", func() (bool, error) {
		if err := s.svc.AdvanceSnapshot(ctx, snap.ID); err != nil {
			return false, err
		}
		v, err := s.svc.Snapshot(ctx, acct, snap.ID)
		if err != nil || v.Status == store.SnapshotCreating {
			return false, err
		}
		if v.Status != store.SnapshotAvailable {
			return false, fmt.Errorf("snapshot %d ended %s", v.ID, v.Status)
		}
		return true, nil
	})
}

// settle calls step until it says the work is done, at most seedSettleRounds times. Each step
// moves only the seed's own order or snapshot (a power change settles when the instance is read).
func (s *Server) settle(ctx context.Context, what string, step func() (bool, error)) error {
	for range seedSettleRounds {
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
