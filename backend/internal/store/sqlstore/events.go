package sqlstore

import (
	"context"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// The events outbox: every state change of the service writes its event here in the same
// transaction, and the delivery worker turns each into webhook deliveries (webhooks.go).

func (q queries) Events(ctx context.Context, accountID int64) ([]store.Event, error) {
	return list(ctx, q, "events", func(r rowScanner) (store.Event, error) {
		var e store.Event
		err := r.Scan(&e.ID, &e.AccountID, &e.Name, &e.Data, at(&e.CreatedAt))
		return e, err
	}, `SELECT id, account_id, name, data, created_at FROM events WHERE account_id = ? ORDER BY created_at, `+seqToken,
		accountID)
}
