package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
	"github.com/reseller/terraform-provider-reseller/backend/operatorcmd"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// secretsCommand runs `resellerd secrets SUBCOMMAND`.
func secretsCommand(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: secrets: no subcommand (rotate)", errUsage)
	}
	switch args[0] {
	case "rotate":
		return secretsRotate(ctx, args[1:], stdout, env)
	default:
		return fmt.Errorf("%w: secrets: unknown subcommand %q", errUsage, args[0])
	}
}

// secretsRotate runs `resellerd secrets rotate --db ... --secrets-key-file FILE`: every secret
// of the database not under the file's first key is encrypted again under it (server.
// RotateSecrets), while serve keeps running. It reports each column as it finishes, and a
// long one every operatorcmd.RotateReportEvery.
func secretsRotate(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	fs := flag.NewFlagSet("secrets rotate", flag.ContinueOnError)
	var cfg resellerd.Config
	fs.StringVar(&cfg.DB, "db", defaultDB, "SQLite file path (or sqlite:PATH) or postgres:// URL; anything else is refused")
	addSecretsFlag(fs, &cfg, resellerd.Config{})
	batch := fs.Int("batch-size", sqlstore.DefaultRotateBatch, "values encrypted again per transaction")
	who := operatorFlag(fs)
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	switch {
	case cfg.SecretsKeyFile == "":
		return fmt.Errorf("%w: secrets rotate: --secrets-key-file is required (the new key on its first line, the keys that encrypted the database after it)", errUsage)
	case *batch <= 0:
		return fmt.Errorf("%w: secrets rotate: --batch-size must be positive", errUsage)
	}
	if _, _, err := resellerd.ParseDB(cfg.DB); err != nil {
		return fmt.Errorf("%w: secrets rotate: %w", errUsage, err)
	}
	return operatorcmd.RotateSecrets(ctx, stdout, operator(*who, "secrets rotate", "", env), cfg, *batch)
}
