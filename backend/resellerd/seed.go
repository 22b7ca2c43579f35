package resellerd

import (
	"context"

	"github.com/reseller/terraform-provider-reseller/backend/internal/seed"
)

// Seed applies accounts to the database of cfg through the service's own paths (seed.Apply):
// each server is ordered, deployed and charged as an API client's would be, then powered off,
// snapshotted, and the webhook set last (so a receiver sees none of the seeding's events). It
// runs its own backend without delays or background loops on cfg.DB, so no other backend should
// serve the database meanwhile; cfg.FailRate applies unless cfg.KeepFailRate (builds that never
// finish make Seed fail). A webhook must pass cfg's policy (AllowHTTPWebhooks, WebhookAllowCIDRs)
// as it would through the API. Seed does only the work of what it creates: it moves its own
// orders and snapshots and runs no worker, so on a live database no other account's order,
// delivery or bill moves and nothing is purged. Seed stops at the first failure, which it
// returns as a *seed.Error: callers that must change nothing on a bad seed apply it to a scratch
// database first.
func Seed(ctx context.Context, cfg Config, accounts []seed.Account) error {
	cfg.WorkerInterval, cfg.DeployDelay, cfg.CredentialsDelay, cfg.SnapshotDelay = -1, 0, 0, 0
	s, err := New(ctx, cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	return seed.Apply(ctx, s.svc, accounts)
}
