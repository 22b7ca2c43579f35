package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/devserver"
	"github.com/reseller/terraform-provider-reseller/backend/internal/devapi"
	"github.com/reseller/terraform-provider-reseller/backend/preflight"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// devOptions is the parsed command line of `resellerd dev`: every serve flag, and its own.
type devOptions struct {
	serveOptions
	EnvFile string // written with the two export lines once the API listens
	Seed    string // YAML seed file; empty: one fresh account
	State   string // file the service is loaded from at start when it exists and written back to at exit
	devControlOptions
}

// devDefaults are serve's flags as `resellerd dev` starts them: a temporary database (DB empty),
// builds in about a second, plain-HTTP loopback webhooks, the spec's rate limits.
var devDefaults = serveOptions{
	Listen: "127.0.0.1:8080",
	Config: resellerd.Config{
		DeployDelay: 500 * time.Millisecond, CredentialsDelay: 200 * time.Millisecond,
		OrderWindow: 10 * time.Minute, WorkLease: serveDefaults.Config.WorkLease, RateLimitScale: 1, AllowHTTPWebhooks: true,
		RetainEvents: serveDefaults.Config.RetainEvents, ConsoleTTL: serveDefaults.Config.ConsoleTTL,
		Machines: resellerd.MachinesConfig{Mode: resellerd.MachinesSim, CIDR: resellerd.DefaultMachinesCIDR, PidsMax: resellerd.DefaultMachinesPidsMax}, // Dir: dev's temporary directory
	},
	Log: defaultLog,
}

// devFlags are the flags of `resellerd dev`, filling o: every flag of serve and dev's own.
func devFlags(o *devOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("dev", flag.ContinueOnError)
	addServeFlags(fs, &o.serveOptions, devDefaults)
	fs.StringVar(&o.EnvFile, "env-file", "", "file the two export lines are written to once the API is ready")
	fs.StringVar(&o.Seed, "seed", "", "YAML seed file with the accounts, servers, snapshots and webhooks to start with")
	fs.StringVar(&o.State, "state", "", "file the whole service (database and clock; with --machines sandbox the machines' disks too, in FILE.machines/) "+
		"is loaded from at start when it exists, instead of --seed, and written back to atomically on a clean exit")
	addDevControlFlags(fs, &o.devControlOptions)
	return fs
}

func parseDev(args []string, env lookupEnv) (devOptions, error) {
	var o devOptions
	fs := devFlags(&o)
	if err := parseFlags(fs, args, withoutDBVariable(env)); err != nil {
		return devOptions{}, err
	}
	if o.State != "" && o.Config.DB != "" {
		// --state keeps the service across runs already; a --db beside it would be a second copy
		// of it, and which of the two wins at start would surprise one way or the other.
		return devOptions{}, fmt.Errorf("%w: dev: --state and --db together: --state FILE keeps the service across runs on its own; give one of them", errUsage)
	}
	if o.Config.DB == "" {
		o.Config.DB = devserver.TemporaryDB // chosen by dev; validate only wants it not empty
	}
	if err := o.validate(); err != nil {
		return devOptions{}, err
	}
	if err := o.validateControl(); err != nil {
		return devOptions{}, err
	}
	if _, ok := devserver.SQLitePath(o.Config.DB); !ok {
		// POST /_dev/reset starts again from a new file; a shared PostgreSQL database is serve's.
		return devOptions{}, fmt.Errorf("%w: dev: --db must be a SQLite path (sqlite:PATH or a file); run serve on PostgreSQL", errUsage)
	}
	return o, nil
}

// withoutDBVariable is env without RESELLER_DB: dev takes its database only from --db on its
// command line, so a shell or container set up for serve (the image sets RESELLER_DB) never
// hands dev serve's database, which POST /_dev/reset would delete.
func withoutDBVariable(env lookupEnv) lookupEnv {
	return func(name string) (string, bool) {
		if name == envName("db") {
			return "", false
		}
		return env(name)
	}
}

// dev runs `resellerd dev` (backend/devserver) on serve's listeners.
func dev(ctx context.Context, o devOptions, stdout io.Writer, logger *slog.Logger) error {
	if err := preflight.KeyFile(logger, o.Config.SecretsKeyFile, o.StrictKeyFile); err != nil {
		return err
	}
	return devserver.Run(ctx, devserver.Options{
		Config: o.Config, EnvFile: o.EnvFile, Seed: o.Seed, State: o.State,
		JournalSize: o.JournalSize, MaxCheckpoints: o.MaxCheckpoints, MaxCheckpointBytes: o.MaxCheckpointBytes,
		CheckMachines: func(c resellerd.Config) error { return preflight.Machines("dev", c) },
		Guard:         o.guardConfig(logger), Scheme: endpointScheme(o.serveOptions), Version: version,
	}, stdout, logger, func(ctx context.Context, h, metrics http.Handler, ready func([]net.Addr)) error {
		return serveHandler(ctx, o.serveOptions, h, metrics, logger, ready)
	})
}

// endpointScheme is how clients reach the listeners o describes: https with --tls-cert.
func endpointScheme(o serveOptions) string {
	if o.TLSCert != "" {
		return "https"
	}
	return "http"
}

// devControlOptions are the flags of `resellerd dev` that shape its test-control API.
type devControlOptions struct {
	// DevAllowedHosts are Host names /_dev/ accepts besides loopback and the listeners' hosts
	// (--dev-allowed-hosts): the name a container is published or reached under.
	DevAllowedHosts []string
	// JournalSize is how many requests and webhook deliveries the journal keeps (0: off).
	JournalSize int
	// MaxCheckpoints and MaxCheckpointBytes bound the checkpoints kept at once, in number and
	// in bytes on disk: a looping script would otherwise fill the disk.
	MaxCheckpoints     int
	MaxCheckpointBytes int64
}

// addDevControlFlags registers the flags of devControlOptions on fs.
func addDevControlFlags(fs *flag.FlagSet, o *devControlOptions) {
	fs.Var((*devserver.HostList)(&o.DevAllowedHosts), "dev-allowed-hosts",
		"Host names (`NAME,...`) the test-control API /_dev/ accepts besides loopback names and addresses and --listen's host, such as the name of a container reached under another name; any other Host gets 403 (DNS rebinding)")
	fs.IntVar(&o.JournalSize, "journal-size", devapi.DefaultJournalSize,
		"requests and webhook deliveries the request journal (GET /_dev/requests) keeps, the oldest dropped first; 0 turns it off")
	fs.IntVar(&o.MaxCheckpoints, "max-checkpoints", devapi.DefaultMaxCheckpoints,
		"checkpoints (POST /_dev/checkpoints) kept at once; the next save is refused 409 checkpoint_limit until one is deleted")
	fs.Int64Var(&o.MaxCheckpointBytes, "max-checkpoint-bytes", devapi.DefaultMaxCheckpointBytes,
		"bytes the checkpoints may take on disk together; a save that would go over is refused 409 checkpoint_limit")
}

func (o devControlOptions) validateControl() error {
	switch {
	case o.JournalSize < 0 || o.JournalSize > devapi.MaxJournalSize:
		return fmt.Errorf("%w: dev: --journal-size must be from 0 (off) to %d", errUsage, devapi.MaxJournalSize)
	case o.MaxCheckpoints < 1:
		return fmt.Errorf("%w: dev: --max-checkpoints must be at least 1", errUsage)
	case o.MaxCheckpointBytes < 1:
		return fmt.Errorf("%w: dev: --max-checkpoint-bytes must be at least 1", errUsage)
	}
	return nil
}

// guardConfig is what dev's test-control API accepts: loopback, the hosts of o's listeners and
// the allowed hosts.
func (o devOptions) guardConfig(logger *slog.Logger) devapi.GuardConfig {
	cfg := devapi.GuardConfig{AllowedHosts: o.DevAllowedHosts, Logger: logger}
	for _, addr := range []string{o.Listen, o.AltListen} {
		if host, _, err := net.SplitHostPort(addr); err == nil {
			cfg.ListenHosts = append(cfg.ListenHosts, host)
		}
	}
	return cfg
}
