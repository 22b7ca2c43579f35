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
// left as serve set it. Without --secrets-key-file it opens a database whose secrets are
// encrypted too, and fails only if it would read one (instance lock and account show read
// servers and orders, which hold some: give them serve's key file).
func (c *operatorCommand) open(ctx context.Context) (*server.Server, error) {
	if _, _, err := server.ParseDB(c.cfg.DB); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", errUsage, c.name, err)
	}
	cfg := c.cfg
	cfg.WorkerInterval, cfg.KeepFailRate, cfg.NoSecrets = -1, true, c.cfg.SecretsKeyFile == ""
	return server.New(ctx, cfg)
}
