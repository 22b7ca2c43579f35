package main

import (
	"context"
	"flag"
	"fmt"
	"os/user"
	"strings"

	"github.com/reseller/terraform-provider-reseller/backend/server"
)

// The flags and the opening every operator command shares (operate.go, audit.go, and account
// create, rotate-key and topup): --db, --secrets-key-file, and who runs it for the audit trail.

// operatorCommand is an operator command's common flags, filled by parseFlags.
type operatorCommand struct {
	name string // "account block", as the audit trail names it
	cfg  server.Config
	who  *string
	// touchesSecrets marks a command that reads or rewrites rows holding secrets (instance
	// lock and unlock rewrite the server's row; account show reads orders and servers).
	touchesSecrets bool
}

// newOperatorCommand returns the flag set of the operator command name with its common flags.
func newOperatorCommand(name string) (*flag.FlagSet, *operatorCommand) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	c := &operatorCommand{name: name}
	fs.StringVar(&c.cfg.DB, "db", defaultDB, "SQLite file path (or sqlite:PATH) or postgres:// URL; anything else is refused")
	addSecretsFlag(fs, &c.cfg, server.Config{})
	c.who = operatorFlag(fs)
	return fs, c
}

// operatorFlag adds --operator to fs: who runs the command, as the audit trail records it.
func operatorFlag(fs *flag.FlagSet) *string {
	return fs.String("operator", "", "who runs the command, for the audit trail (default: the OS user)")
}

// operator is who runs command for reason: --operator (or RESELLER_OPERATOR), else the OS
// user, else $USER, else "unknown".
func operator(given, command, reason string, env lookupEnv) server.Operator {
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
	return server.Operator{Name: name, Command: command, Reason: reason}
}

// as is who runs c, for reason.
func (c *operatorCommand) as(reason string, env lookupEnv) server.Operator {
	return operator(*c.who, c.name, reason, env)
}

// open opens the database for the command beside a running serve: no workers, the fail rate
// left as serve set it. Without --secrets-key-file, a command that touches no secret opens any
// database; one that touches rows holding secrets (touchesSecrets) opens a database whose
// secrets are stored plain, as serve without a key file keeps them, and is refused, naming
// --secrets-key-file, on one whose secrets are encrypted.
func (c *operatorCommand) open(ctx context.Context) (*server.Server, error) {
	if _, _, err := server.ParseDB(c.cfg.DB); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", errUsage, c.name, err)
	}
	cfg := c.cfg
	cfg.WorkerInterval, cfg.KeepFailRate = -1, true
	cfg.NoSecrets = cfg.SecretsKeyFile == "" && !c.touchesSecrets
	return server.New(ctx, cfg)
}
