package main

import (
	"flag"

	"github.com/reseller/terraform-provider-reseller/backend/operatorcmd"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// The flags every operator command shares (operate.go, audit.go, and account create,
// rotate-key and topup): --db, --secrets-key-file, and --operator, who runs it for the audit
// trail. backend/operatorcmd opens the database and names the operator.

// newOperatorCommand returns the flag set of the operator command name with its common flags,
// and the command they fill once parsed.
func newOperatorCommand(name string, env lookupEnv) (*flag.FlagSet, *operatorcmd.Command) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	c := &operatorcmd.Command{Name: name, Env: operatorcmd.LookupEnv(env)}
	fs.StringVar(&c.Config.DB, "db", defaultDB, "SQLite file path (or sqlite:PATH) or postgres:// URL; anything else is refused")
	addSecretsFlag(fs, &c.Config, resellerd.Config{})
	fs.StringVar(&c.Who, "operator", "", operatorUsage)
	return fs, c
}

// operatorUsage is --operator's meaning, the same on every command that takes it.
const operatorUsage = "who runs the command, for the audit trail (default: the OS user)"

// operatorFlag adds --operator to fs: who runs the command, as the audit trail records it.
func operatorFlag(fs *flag.FlagSet) *string {
	return fs.String("operator", "", operatorUsage)
}

// operator is who runs command for reason (operatorcmd.Operator).
func operator(given, command, reason string, env lookupEnv) resellerd.Operator {
	return operatorcmd.Operator(given, command, reason, operatorcmd.LookupEnv(env))
}
