package main

import (
	"context"
	"fmt"
	"io"
)

// auditCommand runs `resellerd audit [--account N] [--since 24h] [--json]`
// (operatorcmd.Command.Audit; the entries as operatorview renders them).
func auditCommand(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	fs, c := newOperatorCommand("audit", env)
	id := fs.Int64("account", 0, "only the entries about this account (its servers' locks included)")
	since := fs.Duration("since", 0, "only the entries of this last while (24h, 30m); 0: all")
	asJSON := fs.Bool("json", false, "print one JSON document (an array of entries) instead of a table")
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	if *id < 0 {
		return fmt.Errorf("%w: audit: --account must be a positive id", errUsage)
	}
	if *since < 0 {
		return fmt.Errorf("%w: audit: --since must not be negative", errUsage)
	}
	return c.Audit(ctx, stdout, *id, *since, *asJSON)
}
