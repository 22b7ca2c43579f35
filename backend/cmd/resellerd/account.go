package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/reseller/terraform-provider-reseller/backend/internal/cliflag"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/server"
)

// account runs `resellerd account SUBCOMMAND`.
func account(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: account: no subcommand (create, rotate-key, topup, list, show, block, unblock, verify, set)", errUsage)
	}
	switch args[0] {
	case "create":
		return accountCreate(ctx, args[1:], stdout, env)
	case "rotate-key":
		return accountRotateKey(ctx, args[1:], stdout, env)
	case "topup":
		return accountTopUp(ctx, args[1:], stdout, env)
	case "list":
		return accountList(ctx, args[1:], stdout, env)
	case "show":
		return accountShow(ctx, args[1:], stdout, env)
	case "block", "unblock", "verify":
		return accountChange(ctx, args[0], args[1:], stdout, env)
	case "set":
		return accountSet(ctx, args[1:], stdout, env)
	default:
		return fmt.Errorf("%w: account: unknown subcommand %q", errUsage, args[0])
	}
}

// openServer opens the database for one administrative command.
func openServer(ctx context.Context, db string) (*server.Server, error) {
	return openServerKeyed(ctx, db, "")
}

// openServerKeyed opens the database for one administrative command with the key file keyFile
// (--secrets-key-file), which the commands that write an API key need once the database has a
// key: its API key hashes are keyed by a secret only the key file opens. Without one the
// command reads and writes no secret (NoSecrets), or uses dev's built-in key on a dev database.
func openServerKeyed(ctx context.Context, db, keyFile string) (*server.Server, error) {
	if _, _, err := server.ParseDB(db); err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	// No workers: the command only writes the account; a running serve does the rest. The fail
	// rate stays as serve set it.
	cfg := server.Config{DB: db, WorkerInterval: -1, KeepFailRate: true, SecretsKeyFile: keyFile, NoSecrets: keyFile == ""}
	devKeyOnDevDB(&cfg)
	return server.New(ctx, cfg)
}

func accountCreate(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	fs := flag.NewFlagSet("account create", flag.ContinueOnError)
	db := fs.String("db", defaultDB, "SQLite file path (or sqlite:PATH) or postgres:// URL; anything else is refused")
	balance := &cliflag.USD{Micros: money.USD(100)}
	fs.Var(balance, "balance", "initial balance in USD, recorded as a manual payment")
	var a server.NewAccount
	fs.IntVar(&a.ServerLimit, "server-limit", 10, "maximum active instances")
	fs.IntVar(&a.OrderLimit, "order-limit", 5, "maximum orders provisioning at once")
	fs.StringVar(&a.Language, "language", "fa", "account language: fa or en")
	who := operatorFlag(fs)
	var keys server.Config
	addSecretsFlag(fs, &keys, server.Config{})
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	a.BalanceMicros = int64(balance.Micros)
	srv, err := openServerKeyed(ctx, *db, keys.SecretsKeyFile)
	if err != nil {
		return err
	}
	defer srv.Close()
	created, err := srv.CreateAccountBy(ctx, operator(*who, "account create", "", env), a)
	if err != nil {
		return err
	}
	key, err := json.Marshal(created.APIKey)
	if err != nil {
		return fmt.Errorf("account create: %w", err)
	}
	// The key is shown this once; only its hash is stored.
	_, err = fmt.Fprintf(stdout, "{\"account_id\": %d, \"api_key\": %s}\n", created.ID, key)
	return err
}

func accountRotateKey(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	fs := flag.NewFlagSet("account rotate-key", flag.ContinueOnError)
	db := fs.String("db", defaultDB, "SQLite file path (or sqlite:PATH) or postgres:// URL; anything else is refused")
	id := fs.Int64("account", 0, "account id")
	who := operatorFlag(fs)
	var keys server.Config
	addSecretsFlag(fs, &keys, server.Config{})
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	if *id <= 0 {
		return fmt.Errorf("%w: account rotate-key: --account is required", errUsage)
	}
	srv, err := openServerKeyed(ctx, *db, keys.SecretsKeyFile)
	if err != nil {
		return err
	}
	defer srv.Close()
	key, err := srv.RotateKeyBy(ctx, operator(*who, "account rotate-key", "", env), *id)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, key)
	return err
}

func accountTopUp(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	fs := flag.NewFlagSet("account topup", flag.ContinueOnError)
	db := fs.String("db", defaultDB, "SQLite file path (or sqlite:PATH) or postgres:// URL; anything else is refused")
	id := fs.Int64("account", 0, "account id")
	amount := &cliflag.USD{}
	fs.Var(amount, "amount", "USD to credit")
	paymentType := fs.String("payment-type", "card", "card, bank_transfer, crypto, voucher or manual")
	who := operatorFlag(fs)
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	if *id <= 0 {
		return fmt.Errorf("%w: account topup: --account is required", errUsage)
	}
	if amount.Micros <= 0 {
		return fmt.Errorf("%w: account topup: --amount must be positive", errUsage)
	}
	srv, err := openServer(ctx, *db)
	if err != nil {
		return err
	}
	defer srv.Close()
	if err := srv.TopUpBy(ctx, operator(*who, "account topup", "", env), *id, int64(amount.Micros), *paymentType); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "credited %s USD (%s) to account %d\n", amount.Micros, *paymentType, *id)
	return err
}
