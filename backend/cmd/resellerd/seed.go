package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/reseller/terraform-provider-reseller/backend/internal/seedfile"
	"github.com/reseller/terraform-provider-reseller/backend/server"
)

// seed runs `resellerd seed [--db ...] FILE`: the seed file's accounts, servers, snapshots and
// webhooks into a database no backend is serving. The seed is first applied to a scratch SQLite
// database, so a seed the service refuses (a plan that does not exist, a balance too small for
// its servers) fails naming its line before the real database is touched.
func seed(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	db := fs.String("db", defaultDB, "SQLite file path or postgres:// URL")
	if len(args) == 0 || strings.HasPrefix(args[len(args)-1], "-") {
		if err := parseFlags(fs, args, env); err != nil {
			return err // --help among them: the flags, exit 0
		}
		return fmt.Errorf("%w: seed: the seed FILE is required, after the flags", errUsage)
	}
	path := args[len(args)-1]
	if err := parseFlags(fs, args[:len(args)-1], env); err != nil {
		return err
	}
	f, err := seedfile.Read(path)
	if err != nil {
		return err
	}
	scratch, err := os.MkdirTemp("", "resellerd-seed-")
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	defer os.RemoveAll(scratch)
	if err := server.Seed(ctx, server.Config{DB: filepath.Join(scratch, "check.db")}, f.Accounts); err != nil {
		return f.Explain(err)
	}
	// The fail rate stays as the database's serve set it.
	if err := server.Seed(ctx, server.Config{DB: *db, KeepFailRate: true}, f.Accounts); err != nil {
		return f.Explain(err)
	}
	_, err = fmt.Fprintf(stdout, "seeded %d accounts from %s\n", len(f.Accounts), path)
	return err
}
