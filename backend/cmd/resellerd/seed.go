package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/reseller/terraform-provider-reseller/backend/operatorcmd"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// seedOptions is the parsed command line of `resellerd seed`.
type seedOptions struct {
	File string // the YAML seed file
	// Config holds --db and serve's webhook policy and event retention (addWebhookFlags).
	Config resellerd.Config
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
// webhooks into a database no backend is serving, checked first on a scratch database
// (operatorcmd.Seed).
func seed(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	o, err := parseSeed(args, env)
	if err != nil {
		return err
	}
	return operatorcmd.Seed(ctx, stdout, o.Config, o.File)
}
