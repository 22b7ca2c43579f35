package operatorcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/cliflag"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/seedfile"
	"github.com/reseller/terraform-provider-reseller/backend/preflight"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// The administrative commands that came before the operator commands: account create,
// rotate-key and topup, and secrets rotate, each in the audit trail too; and seed.

// openKeyed opens the database db for one administrative command with the key file keyFile
// (--secrets-key-file), which the commands that write an API key need once the database has a
// key: its API key hashes are keyed by a secret only the key file opens. Without one the
// command reads and writes no secret (NoSecrets), or uses dev's built-in key on a dev database.
// No workers: the command only writes the account; a running serve does the rest. The fail
// rate stays as serve set it.
func openKeyed(ctx context.Context, db, keyFile string) (*resellerd.Server, error) {
	if _, _, err := resellerd.ParseDB(db); err != nil {
		return nil, fmt.Errorf("%w: %w", cliflag.ErrUsage, err)
	}
	cfg := resellerd.Config{DB: db, WorkerInterval: -1, KeepFailRate: true, SecretsKeyFile: keyFile, NoSecrets: keyFile == ""}
	preflight.DevKeyOnDevDB(&cfg)
	return resellerd.New(ctx, cfg)
}

// withKeyed opens db with keyFile, runs do on it and closes it.
func withKeyed(ctx context.Context, db, keyFile string, do func(*resellerd.Server) error) error {
	srv, err := openKeyed(ctx, db, keyFile)
	if err != nil {
		return err
	}
	defer srv.Close()
	return do(srv)
}

// CreateAccount runs `account create` on db: account a, by op. Its API key is printed this
// once, as {"account_id": N, "api_key": "..."}; only its hash is stored.
func CreateAccount(ctx context.Context, w io.Writer, db, keyFile string, op resellerd.Operator, a resellerd.NewAccount) error {
	return withKeyed(ctx, db, keyFile, func(srv *resellerd.Server) error {
		created, err := srv.CreateAccountBy(ctx, op, a)
		if err != nil {
			return err
		}
		key, err := json.Marshal(created.APIKey)
		if err != nil {
			return fmt.Errorf("account create: %w", err)
		}
		_, err = fmt.Fprintf(w, "{\"account_id\": %d, \"api_key\": %s}\n", created.ID, key)
		return err
	})
}

// RotateKey runs `account rotate-key` on db: account id's new API key, printed this once.
func RotateKey(ctx context.Context, w io.Writer, db, keyFile string, op resellerd.Operator, id int64) error {
	return withKeyed(ctx, db, keyFile, func(srv *resellerd.Server) error {
		key, err := srv.RotateKeyBy(ctx, op, id)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, key)
		return err
	})
}

// TopUp runs `account topup` on db: amount credited to account id as a payment of paymentType.
func TopUp(ctx context.Context, w io.Writer, db string, op resellerd.Operator, id int64, amount money.Micros, paymentType string) error {
	return withKeyed(ctx, db, "", func(srv *resellerd.Server) error {
		if err := srv.TopUpBy(ctx, op, id, int64(amount), paymentType); err != nil {
			return err
		}
		_, err := fmt.Fprintf(w, "credited %s USD (%s) to account %d\n", amount, paymentType, id)
		return err
	})
}

// RotateReportEvery is how often RotateSecrets reports a column it is still working on.
const RotateReportEvery = 5 * time.Second

// RotateSecrets runs `secrets rotate`: every secret of cfg's database not under the key file's
// first key is encrypted again under it (resellerd.RotateSecretsBy), batch values a transaction,
// while serve keeps running. It reports each column as it finishes, and a long one every
// RotateReportEvery, then the total.
func RotateSecrets(ctx context.Context, w io.Writer, op resellerd.Operator, cfg resellerd.Config, batch int) error {
	last := time.Now()
	res, err := resellerd.RotateSecretsBy(ctx, op, cfg, batch, func(p resellerd.RotateProgress) {
		if p.Done || time.Since(last) >= RotateReportEvery {
			last = time.Now()
			state := "so far"
			if p.Done {
				state = "done"
			}
			fmt.Fprintf(w, "%s: %d encrypted again (%s)\n", p.Column, p.Resealed, state)
		}
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "rotated: %d values encrypted again; every secret is under key %s, the first of %s\n",
		res.Resealed, res.KeyID, cfg.SecretsKeyFile)
	return err
}

// Seed runs `resellerd seed`: the seed file's accounts, servers, snapshots and webhooks into
// cfg's database, no backend serving it, doing only the work of what it creates (see
// resellerd.Seed). The seed is first applied to a scratch SQLite database under the same webhook
// policy, so a seed the service refuses (a plan that does not exist, a balance too small for
// its servers, a webhook the policy refuses) fails naming its line before the real database is
// touched.
func Seed(ctx context.Context, w io.Writer, cfg resellerd.Config, file string) error {
	preflight.DevKeyOnDevDB(&cfg) // a dev database's secrets are under dev's key, as serve finds them
	f, err := seedfile.Read(file)
	if err != nil {
		return err
	}
	scratch, err := os.MkdirTemp("", "resellerd-seed-")
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	defer os.RemoveAll(scratch)
	check := cfg
	check.DB = filepath.Join(scratch, "check.db")
	if err := resellerd.Seed(ctx, check, f.Accounts); err != nil {
		return f.Explain(err)
	}
	live := cfg
	live.KeepFailRate = true // the fail rate stays as the database's serve set it
	if err := resellerd.Seed(ctx, live, f.Accounts); err != nil {
		return f.Explain(err)
	}
	_, err = fmt.Fprintf(w, "seeded %d accounts from %s\n", len(f.Accounts), file)
	return err
}
