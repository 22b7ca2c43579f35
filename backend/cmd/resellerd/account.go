package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/reseller/terraform-provider-reseller/backend/internal/cliflag"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/operatorcmd"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
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

func accountCreate(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	fs := flag.NewFlagSet("account create", flag.ContinueOnError)
	db := fs.String("db", defaultDB, "SQLite file path (or sqlite:PATH) or postgres:// URL; anything else is refused")
	balance := &cliflag.USD{Micros: money.USD(100)}
	fs.Var(balance, "balance", "initial balance in USD, recorded as a manual payment")
	var a resellerd.NewAccount
	fs.IntVar(&a.ServerLimit, "server-limit", 10, "maximum active instances")
	fs.IntVar(&a.OrderLimit, "order-limit", 5, "maximum orders provisioning at once")
	fs.StringVar(&a.Language, "language", "fa", "account language: fa or en")
	who := operatorFlag(fs)
	var keys resellerd.Config
	addSecretsFlag(fs, &keys, resellerd.Config{})
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	a.BalanceMicros = int64(balance.Micros)
	return operatorcmd.CreateAccount(ctx, stdout, *db, keys.SecretsKeyFile, operator(*who, "account create", "", env), a)
}

func accountRotateKey(ctx context.Context, args []string, stdout io.Writer, env lookupEnv) error {
	fs := flag.NewFlagSet("account rotate-key", flag.ContinueOnError)
	db := fs.String("db", defaultDB, "SQLite file path (or sqlite:PATH) or postgres:// URL; anything else is refused")
	id := fs.Int64("account", 0, "account id")
	who := operatorFlag(fs)
	var keys resellerd.Config
	addSecretsFlag(fs, &keys, resellerd.Config{})
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	if *id <= 0 {
		return fmt.Errorf("%w: account rotate-key: --account is required", errUsage)
	}
	return operatorcmd.RotateKey(ctx, stdout, *db, keys.SecretsKeyFile, operator(*who, "account rotate-key", "", env), *id)
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
	return operatorcmd.TopUp(ctx, stdout, *db, operator(*who, "account topup", "", env), *id, amount.Micros, *paymentType)
}
