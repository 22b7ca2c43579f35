package main

import (
	"context"
	"fmt"
	"io"

	"github.com/reseller/terraform-provider-reseller/backend/internal/cliflag"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// Operating resellerd for customers (backend/docs/operating-for-customers.md): `resellerd
// account list|show|block|unblock|verify|set` and `resellerd instance lock|unlock|set`. Each runs
// beside a running serve on the same database; every replica sees a change at its next request.
// Here are their flags; backend/operatorcmd does the rest.

// accountList runs `resellerd account list [--json]`.
func accountList(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	fs, c := newOperatorCommand("account list", env)
	asJSON := fs.Bool("json", false, "print one JSON document (an array of accounts) instead of a table")
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	return c.ListAccounts(ctx, stdout, *asJSON)
}

// accountShow runs `resellerd account show --account N [--json]`.
func accountShow(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	fs, c := newOperatorCommand("account show", env)
	c.TouchesSecrets = true
	id := fs.Int64("account", 0, "account id")
	asJSON := fs.Bool("json", false, "print one JSON document instead of tables")
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	if err := requireID(c.Name, "--account", *id); err != nil {
		return err
	}
	return c.ShowAccount(ctx, stdout, *id, *asJSON)
}

// requireID refuses a missing or non-positive id flag (exit 2, naming it).
func requireID(command, flagName string, id int64) error {
	if id <= 0 {
		return fmt.Errorf("%w: %s: %s is required (a positive id)", errUsage, command, flagName)
	}
	return nil
}

// accountChange runs `resellerd account block|unblock|verify`: one switch of the account,
// turned as fixed by the command. block requires --reason; the others take one.
func accountChange(ctx context.Context, command string, args []string, stdout io.Writer, env lookupEnv) error {
	fs, c := newOperatorCommand("account "+command, env)
	id := fs.Int64("account", 0, "account id")
	reason := fs.String("reason", "", "why, for the audit trail (required by block)")
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	if err := requireID(c.Name, "--account", *id); err != nil {
		return err
	}
	var ch resellerd.AccountChange
	yes, no := true, false
	switch command {
	case "block":
		if *reason == "" {
			return fmt.Errorf("%w: %s: --reason is required (debt, abuse, ...: the audit trail keeps it)", errUsage, c.Name)
		}
		ch.Blocked = &yes
	case "unblock":
		ch.Blocked = &no
	case "verify":
		ch.Verified = &yes
	}
	return c.ChangeAccount(ctx, stdout, *id, ch, *reason)
}

// accountSet runs `resellerd account set --account N [--server-limit N] [--order-limit N]
// [--apps on|off] [--language fa|en]`: every flag given, in one change.
func accountSet(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	fs, c := newOperatorCommand("account set", env)
	id := fs.Int64("account", 0, "account id")
	reason := fs.String("reason", "", "why, for the audit trail")
	var serverLimit, orderLimit cliflag.OptionalInt
	fs.Var(&serverLimit, "server-limit", "active servers and pending orders at most (server_limit; 0 admits no new one)")
	fs.Var(&orderLimit, "order-limit", "orders provisioning at once at most (api_order_limit)")
	apps := cliflag.OptionalChoice{Choices: []string{"on", "off"}}
	fs.Var(&apps, "apps", "on or off: whether the account may order and install one-click apps")
	language := cliflag.OptionalChoice{Choices: []string{"fa", "en"}}
	fs.Var(&language, "language", "fa or en")
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	if err := requireID(c.Name, "--account", *id); err != nil {
		return err
	}
	ch := resellerd.AccountChange{ServerLimit: serverLimit.V, OrderLimit: orderLimit.V, Language: language.V}
	if apps.V != nil {
		on := *apps.V == "on"
		ch.AppsEnabled = &on
	}
	if ch == (resellerd.AccountChange{}) {
		return fmt.Errorf("%w: %s: nothing to change: give --server-limit, --order-limit, --apps or --language", errUsage, c.Name)
	}
	return c.ChangeAccount(ctx, stdout, *id, ch, *reason)
}

// instanceCommand runs `resellerd instance SUBCOMMAND`.
func instanceCommand(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: instance: no subcommand (lock, unlock, set)", errUsage)
	}
	switch args[0] {
	case "lock", "unlock":
		return instanceLock(ctx, args[0], args[1:], stdout, env)
	case "set":
		return instanceSet(ctx, args[1:], stdout, env)
	default:
		return fmt.Errorf("%w: instance: unknown subcommand %q", errUsage, args[0])
	}
}

// instanceLock runs `resellerd instance lock --instance N --reason TEXT` and `instance unlock
// --instance N`: actions on a locked server answer 409 instance_locked; reads and DELETE work.
func instanceLock(ctx context.Context, command string, args []string, stdout io.Writer, env lookupEnv) error {
	fs, c := newOperatorCommand("instance "+command, env)
	c.TouchesSecrets = true
	id := fs.Int64("instance", 0, "instance id")
	reason := fs.String("reason", "", "debt, traffic, abuse or any text: the lock's reason, as the API shows it (required by lock)")
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	if err := requireID(c.Name, "--instance", *id); err != nil {
		return err
	}
	if command == "lock" && *reason == "" {
		return fmt.Errorf("%w: %s: --reason is required (debt, traffic, abuse or any text)", errUsage, c.Name)
	}
	return c.LockInstance(ctx, stdout, *id, command == "lock", *reason)
}

// instanceSet runs `resellerd instance set --instance N [--traffic-included GB] [--allow-overage
// on|off] --reason TEXT [--json]`: the server's traffic allowance, in place of its plan's.
func instanceSet(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	fs, c := newOperatorCommand("instance set", env)
	c.TouchesSecrets = true // rewrites the server's row
	id := fs.Int64("instance", 0, "instance id")
	reason := fs.String("reason", "", "why, for the audit trail (required)")
	var included cliflag.OptionalInt
	fs.Var(&included, "traffic-included", "GB of traffic a 30-day cycle includes (0: unlimited), in place of the plan's")
	overage := cliflag.OptionalChoice{Choices: []string{"on", "off"}}
	fs.Var(&overage, "allow-overage", "on: traffic past the allowance is billed at the plan's overage_price; off: it locks the server until the next cycle")
	asJSON := fs.Bool("json", false, "print the server's traffic as one JSON document instead of a line")
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	if err := requireID(c.Name, "--instance", *id); err != nil {
		return err
	}
	if included.V != nil && *included.V > resellerd.MaxTrafficIncludedGB {
		return fmt.Errorf("%w: %s: --traffic-included must be at most %d (GB)", errUsage, c.Name, resellerd.MaxTrafficIncludedGB)
	}
	ch := resellerd.TrafficChange{IncludedGB: included.V}
	if overage.V != nil {
		on := *overage.V == "on"
		ch.AllowOverage = &on
	}
	if ch.IncludedGB == nil && ch.AllowOverage == nil {
		return fmt.Errorf("%w: %s: nothing to change: give --traffic-included or --allow-overage", errUsage, c.Name)
	}
	if *reason == "" {
		return fmt.Errorf("%w: %s: --reason is required (the audit trail keeps it)", errUsage, c.Name)
	}
	return c.SetInstanceTraffic(ctx, stdout, *id, ch, *reason, *asJSON)
}
