package resellerd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
)

// RotateProgress is what RotateSecrets reports after each batch: the column it works on (as
// "table.column"), how many of its values it encrypted again so far, and whether the column is
// done.
type RotateProgress struct {
	Column   string
	Resealed int
	Done     bool
}

// RotateResult is what a finished RotateSecrets did.
type RotateResult struct {
	Resealed int    // values encrypted again (under another key before, or plain)
	KeyID    string // the id of the key every secret is now under: the first of the key file
}

// RotateSecrets encrypts again, under the first key of cfg.SecretsKeyFile, every secret of
// cfg.DB that is not under it yet (sqlstore.RotateSecrets): batch values a transaction (0: a
// default), online beside the serve processes of the database, safe to interrupt through ctx
// and to run again. The key file must decrypt the database's secrets, as New requires; report,
// when not nil, is told after each batch.
func RotateSecrets(ctx context.Context, cfg Config, batch int, report func(RotateProgress)) (RotateResult, error) {
	return RotateSecretsBy(ctx, Operator{}, cfg, batch, report)
}

// RotateSecretsBy is RotateSecrets run by op: once every secret is under the first key, op's
// entry (how many values were encrypted again, and the key's id, which says nothing of the key)
// goes to the audit trail. The rotation is many transactions, each safe to repeat, so the
// entry has one of its own, written when the rotation has finished; a zero op writes none.
func RotateSecretsBy(ctx context.Context, op Operator, cfg Config, batch int, report func(RotateProgress)) (RotateResult, error) {
	if cfg.SecretsKeyFile == "" {
		return RotateResult{}, errors.New("server: rotate secrets: --secrets-key-file is required: the new key first, the keys that encrypted the database after it")
	}
	keys, err := cfg.keyring()
	if err != nil {
		return RotateResult{}, err
	}
	st, err := openStore(ctx, cfg.DB, cfg.Logger, keys)
	if err != nil {
		return RotateResult{}, err
	}
	defer st.Close()
	n, err := st.RotateSecrets(ctx, batch, func(p sqlstore.RotateProgress) {
		if report != nil {
			report(RotateProgress{Column: p.Column, Resealed: p.Resealed, Done: p.Done})
		}
	})
	if err != nil {
		return RotateResult{Resealed: n}, fmt.Errorf("server: rotate secrets (%d encrypted again before it stopped; run it again to go on): %w", n, err)
	}
	res := RotateResult{Resealed: n, KeyID: keys.FirstID()}
	if op.Command == "" {
		return res, nil
	}
	after, err := json.Marshal(map[string]any{"resealed": n, "key_id": res.KeyID})
	if err != nil {
		return res, fmt.Errorf("server: rotate secrets: audit entry: %w", err)
	}
	now := withDefaults(cfg).Clock.Now()
	err = st.WithTx(ctx, func(tx store.Tx) error {
		_, err := tx.AddAuditEntry(ctx, store.AuditEntry{CreatedAt: now, Operator: op.Name, Command: op.Command,
			Reason: op.Reason, After: string(after)})
		return err
	})
	if err != nil {
		return res, fmt.Errorf("server: rotate secrets: every secret is under key %s, but its audit entry failed: %w", res.KeyID, err)
	}
	return res, nil
}
