package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/reseller/terraform-provider-reseller/backend/internal/preflight"
	"github.com/reseller/terraform-provider-reseller/backend/internal/seedfile"
	"github.com/reseller/terraform-provider-reseller/backend/server"
)

// seedOptions is the parsed command line of `resellerd seed`.
type seedOptions struct {
	File string // the YAML seed file
	// Config holds --db and serve's webhook policy and event retention (addWebhookFlags).
	Config server.Config
}

// parseSeed reads `resellerd seed [flags] FILE`: --db, and serve's webhook flags with serve's
// defaults, so a seed into serve's database obeys the policy serve would (plain-HTTP loopback
// webhooks only with --allow-http-webhooks).
func parseSeed(args []string, env lookupEnv) (seedOptions, error) {
	var o seedOptions
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	fs.StringVar(&o.Config.DB, "db", defaultDB, "SQLite file path or postgres:// URL")
	addWebhookFlags(fs, &o.Config, serveDefaults.Config)
	addSecretsFlag(fs, &o.Config, serveDefaults.Config)
	if len(args) == 0 || strings.HasPrefix(args[len(args)-1], "-") {
		if err := parseFlags(fs, args, env); err != nil {
			return seedOptions{}, err // --help among them: the flags, exit 0
		}
		return seedOptions{}, fmt.Errorf("%w: seed: the seed FILE is required, after the flags", errUsage)
	}
	o.File = args[len(args)-1]
	if err := parseFlags(fs, args[:len(args)-1], env); err != nil {
		return seedOptions{}, err
	}
	return o, validateWebhookFlags("seed", o.Config)
}

// seed runs `resellerd seed [--db ...] FILE`: the seed file's accounts, servers, snapshots and
// webhooks into a database no backend is serving, doing only the work of what it creates (see
// server.Seed). The seed is first applied to a scratch SQLite database under the same webhook
// policy, so a seed the service refuses (a plan that does not exist, a balance too small for its
// servers, a webhook the policy refuses) fails naming its line before the real database is
// touched.
func seed(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	o, err := parseSeed(args, env)
	if err != nil {
		return err
	}
	preflight.DevKeyOnDevDB(&o.Config) // a dev database's secrets are under dev's key, as serve finds them
	f, err := seedfile.Read(o.File)
	if err != nil {
		return err
	}
	scratch, err := os.MkdirTemp("", "resellerd-seed-")
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	defer os.RemoveAll(scratch)
	check := o.Config
	check.DB = filepath.Join(scratch, "check.db")
	if err := server.Seed(ctx, check, f.Accounts); err != nil {
		return f.Explain(err)
	}
	live := o.Config
	live.KeepFailRate = true // the fail rate stays as the database's serve set it
	if err := server.Seed(ctx, live, f.Accounts); err != nil {
		return f.Explain(err)
	}
	_, err = fmt.Fprintf(stdout, "seeded %d accounts from %s\n", len(f.Accounts), o.File)
	return err
}
