package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/reseller/terraform-provider-reseller/backend/internal/cliflag"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// lookupEnv is os.LookupEnv; tests pass a map.
type lookupEnv func(string) (string, bool)

const usage = `usage:
  resellerd serve --listen 127.0.0.1:8080 [--alt-listen 127.0.0.1:8081] [--db PATH_OR_URL]
                  [--deploy-delay 3s] [--credentials-delay 1s] [--order-window 10m]
                  [--fail-rate 0] [--allow-http-webhooks] [--rate-limit-scale 1]
                  [--tls-cert FILE --tls-key FILE] [--webhook-allow-cidr CIDR,...] [--retain-events 168h]
                  [--log-format text|json] [--log-level debug|info|warn|error]
                  [--metrics-listen ADDR] [--trusted-proxies CIDR,...] [--secrets-key-file FILE]
                  [--machines sim|sandbox] [--machines-dir ./data/machines] [--machines-cidr 198.18.0.0/16]
                  [--machines-image DIR] [--machines-image-for ID=DIR,...] [--machines-egress]
                  [--machines-egress-allow-cidr CIDR,...] [--machines-pids-max 4096]
                  [--public-url URL] [--console-ttl 10m]
  resellerd dev [--listen 127.0.0.1:8080] [--env-file FILE] [--seed FILE] [--db PATH] [--state FILE]
                [--journal-size 1000] [--dev-allowed-hosts NAME,...] [serve's flags]
      # a fresh temporary database with one account; prints the export lines to use it;
      # --db opens only a database dev created (marked as a dev database) or a new file;
      # --state FILE loads the service from FILE when it exists and writes it back at exit
  resellerd seed [--db ...] [--allow-http-webhooks] [--webhook-allow-cidr CIDR,...] [--retain-events 168h]
                 [--secrets-key-file FILE] FILE
      # the seed's accounts into any database, under serve's webhook policy; only its own work
  resellerd secrets rotate [--db ...] --secrets-key-file FILE [--batch-size 200]
      # re-encrypt every secret under the key file's first key, beside a running serve;
      # safe to stop and to run again
  resellerd account create [--db ...] [--balance 100] [--server-limit 10] [--order-limit 5] [--language fa]
  resellerd account rotate-key [--db ...] --account N
  resellerd account topup [--db ...] --account N --amount 50 [--payment-type card]
  resellerd account list [--db ...] [--json] | show [--db ...] --account N [--json]
  resellerd account block [--db ...] --account N --reason TEXT | unblock --account N | verify --account N
  resellerd account set [--db ...] --account N [--server-limit N] [--order-limit N] [--apps on|off] [--language fa|en]
  resellerd instance lock [--db ...] --instance N --reason debt|traffic|abuse|TEXT | unlock --instance N
  resellerd instance set [--db ...] --instance N [--traffic-included GB] [--allow-overage on|off] --reason TEXT [--json]
  resellerd audit [--db ...] [--account N] [--since 24h] [--json]
      # operating it for customers: beside a running serve, seen by every replica at once;
      # every change (and account create, topup, rotate-key, secrets rotate) is in the audit
      # trail, by --operator (RESELLER_OPERATOR, else the OS user)
  resellerd image build --out DIR [--suite bookworm] [--include PKG,...] [--apps wordpress,mysql] [--mirror URL]
      # a Debian root filesystem for --machines-image(-for), from this host's apt sources
      # (mmdebstrap, installed with apt-get where missing); progress on stderr
  resellerd --version

Every flag can also be set with RESELLER_<FLAG> (upper case, dashes as underscores);
a flag on the command line wins. "resellerd COMMAND --help" lists a command's flags with
their defaults and variables.
`

// errUsage marks mistakes in the command line, answered with exit code 2 and the usage text.
// It is cliflag's, which devserver, preflight and operatorcmd wrap too, so the --db and --state
// files dev refuses are answered the same way.
var errUsage = cliflag.ErrUsage

// run is the whole program, minus process plumbing, so tests can call it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, env lookupEnv) int {
	err := dispatch(ctx, args, stdout, stderr, env)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, new(cliflag.HelpRequest)):
		var h cliflag.HelpRequest
		errors.As(err, &h)
		cliflag.WriteHelp(stdout, h.FlagSet)
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage)
		return exitOK
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "resellerd: %v\n\n%s", err, usage)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "resellerd: %v\n", err)
		return exitError
	}
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer, env lookupEnv) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: no command", errUsage)
	}
	switch args[0] {
	case "serve":
		opts, err := parseServe(args[1:], env)
		if err != nil {
			return err
		}
		out := &lockedWriter{w: stderr}
		logger, err := newLogger(out, opts.Log)
		if err != nil {
			return err
		}
		access, err := newAccessLog(out, opts.Log)
		if err != nil {
			return err
		}
		defer access.Close() // after serve has closed the server: every queued line is written
		opts.Config.AccessLog = access
		return serve(ctx, opts, logger, nil)
	case "dev":
		opts, err := parseDev(args[1:], env)
		if err != nil {
			return err
		}
		logger, err := newLogger(stderr, opts.Log)
		if err != nil {
			return err
		}
		return dev(ctx, opts, stdout, logger)
	case "seed":
		return seed(ctx, args[1:], stdout, env)
	case "account":
		return account(ctx, args[1:], stdout, env)
	case "secrets":
		return secretsCommand(ctx, args[1:], stdout, env)
	case "instance":
		return instanceCommand(ctx, args[1:], stdout, env)
	case "audit":
		return auditCommand(ctx, args[1:], stdout, env)
	case "image":
		return imageCommand(ctx, args[1:], stderr, env)
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "resellerd %s\n", version)
		return nil
	case "help", "-h", "--help":
		return flag.ErrHelp
	default:
		return fmt.Errorf("%w: unknown command %q", errUsage, args[0])
	}
}

// parseFlags parses args into fs, then fills each flag not given on the command line from its
// RESELLER_ variable (cliflag.Parse); a mistake is a usage error, exit 2.
func parseFlags(fs *flag.FlagSet, args []string, env lookupEnv) error {
	return cliflag.Parse(fs, args, cliflag.LookupEnv(env), errUsage)
}

// envName is the variable of a flag: --rate-limit-scale reads RESELLER_RATE_LIMIT_SCALE.
func envName(flagName string) string { return cliflag.EnvName(flagName) }
