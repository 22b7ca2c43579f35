// Package operatorcmd is what resellerd's operator commands do once cmd/resellerd has parsed
// their flags (backend/docs/operating-for-customers.md): who the operator is, for the audit
// trail; opening the database beside a running serve; and each command's call to the server
// and its output, rendered by operatorview. It sits beside backend/resellerd, not under
// backend/internal, because it opens a server (resellerd.New) and calls its operator hooks.
package operatorcmd

import (
	"context"
	"fmt"
	"io"
	"os/user"
	"strings"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/cliflag"
	"github.com/reseller/terraform-provider-reseller/backend/operatorview"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// LookupEnv is os.LookupEnv; tests pass a map.
type LookupEnv func(string) (string, bool)

// Operator is who runs command for reason: given (--operator, or RESELLER_OPERATOR), else the
// OS user, else $USER, else "unknown".
func Operator(given, command, reason string, env LookupEnv) resellerd.Operator {
	name := strings.TrimSpace(given)
	if name == "" {
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
	}
	if name == "" {
		name, _ = env("USER")
	}
	if name == "" {
		name = "unknown"
	}
	return resellerd.Operator{Name: name, Command: command, Reason: reason}
}

// Command is one operator command with its common flags parsed.
type Command struct {
	Name   string           // "account block", as the audit trail names it
	Config resellerd.Config // --db and --secrets-key-file
	Who    string           // --operator
	Env    LookupEnv
	// TouchesSecrets marks a command that reads or rewrites rows holding secrets (instance
	// lock and unlock rewrite the server's row; account show reads orders and servers).
	TouchesSecrets bool
}

// As is who runs c, for reason.
func (c Command) As(reason string) resellerd.Operator {
	return Operator(c.Who, c.Name, reason, c.Env)
}

// Open opens the database for the command beside a running serve: no workers, the fail rate
// left as serve set it. Without --secrets-key-file, a command that touches no secret opens any
// database; one that touches rows holding secrets (TouchesSecrets) opens a database whose
// secrets are stored plain, as serve without a key file keeps them, and is refused, naming
// --secrets-key-file, on one whose secrets are encrypted. A --db that is no database is a
// usage error (cliflag.ErrUsage).
func (c Command) Open(ctx context.Context) (*resellerd.Server, error) {
	if _, _, err := resellerd.ParseDB(c.Config.DB); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", cliflag.ErrUsage, c.Name, err)
	}
	cfg := c.Config
	cfg.WorkerInterval, cfg.KeepFailRate = -1, true
	cfg.NoSecrets = cfg.SecretsKeyFile == "" && !c.TouchesSecrets
	return resellerd.New(ctx, cfg)
}

// with opens the database, runs do on it and closes it.
func (c Command) with(ctx context.Context, do func(*resellerd.Server) error) error {
	srv, err := c.Open(ctx)
	if err != nil {
		return err
	}
	defer srv.Close()
	return do(srv)
}

// ListAccounts runs `account list`: every account, as a table or one JSON array.
func (c Command) ListAccounts(ctx context.Context, w io.Writer, asJSON bool) error {
	return c.with(ctx, func(srv *resellerd.Server) error {
		accts, err := srv.Accounts(ctx)
		if err != nil {
			return err
		}
		return operatorview.WriteAccounts(w, accts, asJSON)
	})
}

// ShowAccount runs `account show`: account id with its pending orders and locked servers.
func (c Command) ShowAccount(ctx context.Context, w io.Writer, id int64, asJSON bool) error {
	return c.with(ctx, func(srv *resellerd.Server) error {
		d, err := srv.Account(ctx, id)
		if err != nil {
			return err
		}
		return operatorview.WriteAccountDetail(w, d, asJSON)
	})
}

// ChangeAccount makes ch on account id, for reason, and says what it did in one line.
func (c Command) ChangeAccount(ctx context.Context, w io.Writer, id int64, ch resellerd.AccountChange, reason string) error {
	return c.with(ctx, func(srv *resellerd.Server) error {
		if err := srv.UpdateAccount(ctx, c.As(reason), id, ch); err != nil {
			return err
		}
		_, err := fmt.Fprintf(w, "account %d: %s\n", id, operatorview.DescribeChange(ch))
		return err
	})
}

// LockInstance runs `instance lock` (lock true, for reason) or `instance unlock` on instance id
// and says what it left in one line.
func (c Command) LockInstance(ctx context.Context, w io.Writer, id int64, lock bool, reason string) error {
	return c.with(ctx, func(srv *resellerd.Server) error {
		var err error
		if lock {
			err = srv.LockInstanceBy(ctx, c.As(reason), id)
		} else {
			err = srv.UnlockInstanceBy(ctx, c.As(reason), id)
		}
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "instance %d: %s\n", id, operatorview.LockState(lock, reason))
		return err
	})
}

// Audit runs `resellerd audit`: the entries about account (0: all) of the last since (0: all
// of them), oldest first, as a table or one JSON array.
func (c Command) Audit(ctx context.Context, w io.Writer, account int64, since time.Duration, asJSON bool) error {
	return c.with(ctx, func(srv *resellerd.Server) error {
		f := resellerd.AuditFilter{AccountID: account}
		if since > 0 {
			f.Since = time.Now().Add(-since)
		}
		entries, err := srv.AuditEntries(ctx, f)
		if err != nil {
			return err
		}
		return operatorview.WriteAudit(w, entries, asJSON)
	})
}

// SetInstanceTraffic runs `instance set`: instance id's traffic allowance, for reason, and
// prints its traffic as it then stands.
func (c Command) SetInstanceTraffic(ctx context.Context, w io.Writer, id int64, ch resellerd.TrafficChange, reason string, asJSON bool) error {
	return c.with(ctx, func(srv *resellerd.Server) error {
		t, err := srv.SetInstanceTrafficBy(ctx, c.As(reason), id, ch)
		if err != nil {
			return err
		}
		return operatorview.WriteTraffic(w, t, asJSON)
	})
}
