package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/devserver"
	"github.com/reseller/terraform-provider-reseller/backend/internal/console"
	"github.com/reseller/terraform-provider-reseller/backend/internal/httpserve"
	"github.com/reseller/terraform-provider-reseller/backend/preflight"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// defaultDB is where the SQLite database lives unless --db says otherwise.
const defaultDB = "./data/reseller.db"

// serveOptions is the parsed command line of `resellerd serve`.
type serveOptions struct {
	Listen    string
	AltListen string
	Pprof     string // loopback address serving net/http/pprof; empty: none
	TLSCert   string // PEM certificate file; with TLSKey every listener serves HTTPS
	TLSKey    string // PEM private key file of TLSCert
	// MetricsListen is the address serving Prometheus /metrics; empty: none.
	MetricsListen string
	// StrictKeyFile refuses to start on a --secrets-key-file group or others may read, which
	// is otherwise only warned about (preflight.KeyFile).
	StrictKeyFile bool
	Log           logOptions
	Config        resellerd.Config
}

func parseServe(args []string, env lookupEnv) (serveOptions, error) {
	var o serveOptions
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addServeFlags(fs, &o, serveDefaults)
	if err := parseFlags(fs, args, env); err != nil {
		return serveOptions{}, err
	}
	return o, o.validate()
}

// serveDefaults are the defaults of `resellerd serve`; `resellerd dev` registers the same flags
// with defaults of its own.
var serveDefaults = serveOptions{
	Listen: "127.0.0.1:8080",
	Config: resellerd.Config{
		DB: defaultDB, DeployDelay: 3 * time.Second, CredentialsDelay: time.Second,
		OrderWindow: 10 * time.Minute, WorkLease: time.Minute, RateLimitScale: 1, RetainEvents: 168 * time.Hour,
		Machines: defaultMachines, ConsoleTTL: console.DefaultTTL,
	},
	Log: defaultLog,
}

// addServeFlags registers every flag of `resellerd serve` on fs, filling o, with the defaults
// def. Every command that runs the API (serve, dev) takes all of them.
func addServeFlags(fs *flag.FlagSet, o *serveOptions, def serveOptions) {
	fs.StringVar(&o.Listen, "listen", def.Listen, "address of the API")
	fs.StringVar(&o.AltListen, "alt-listen", def.AltListen, "second address serving the same API (the spec's {alt_base_url})")
	fs.StringVar(&o.Config.DB, "db", def.Config.DB, "SQLite file path (or sqlite:PATH) or postgres:// URL; anything else is refused")
	fs.DurationVar(&o.Config.DeployDelay, "deploy-delay", def.Config.DeployDelay, "time the simulated datacenter takes to build a server, and to make a snapshot image")
	fs.DurationVar(&o.Config.CredentialsDelay, "credentials-delay", def.Config.CredentialsDelay, "time credentials stay pending after a build; also the length of reboots, rebuilds, resizes, snapshot restores and each app install stage")
	fs.DurationVar(&o.Config.OrderWindow, "order-window", def.Config.OrderWindow, "time after which a pending order times out")
	fs.DurationVar(&o.Config.WorkLease, "work-lease", def.Config.WorkLease, "time a worker holds claimed work (orders, app installs, deliveries) before another may take it over: what a crashed process had claimed waits this long")
	fs.Float64Var(&o.Config.FailRate, "fail-rate", def.Config.FailRate, "share of simulated builds that never finish (orders time out), of snapshot images that fail and of datacenter operations that fail with 502, 0 to 1")
	fs.Float64Var(&o.Config.RateLimitScale, "rate-limit-scale", def.Config.RateLimitScale, "multiplies every rate limit; 0 disables them")
	fs.StringVar(&o.Pprof, "pprof", def.Pprof, "loopback address serving net/http/pprof (profiling; off when empty)")
	addSafeFlags(fs, o, def)
	addTLSFlags(fs, o, def)
	addLogFlags(fs, &o.Log, def.Log)
	addMetricsFlags(fs, o, def)
	addMachinesFlags(fs, &o.Config.Machines, def.Config.Machines)
	addConsoleFlags(fs, &o.Config, def.Config)
}

func (o serveOptions) validate() error {
	c := o.Config
	switch {
	case o.Listen == "":
		return fmt.Errorf("%w: serve: --listen is required", errUsage)
	case c.FailRate < 0 || c.FailRate > 1:
		return fmt.Errorf("%w: serve: --fail-rate must be from 0 to 1", errUsage)
	case c.RateLimitScale < 0:
		return fmt.Errorf("%w: serve: --rate-limit-scale must not be negative", errUsage)
	case c.DeployDelay < 0 || c.CredentialsDelay < 0 || c.OrderWindow <= 0:
		return fmt.Errorf("%w: serve: delays must not be negative and --order-window must be positive", errUsage)
	case c.WorkLease < time.Second:
		return fmt.Errorf("%w: serve: --work-lease must be at least 1s", errUsage)
	}
	if _, _, err := resellerd.ParseDB(c.DB); err != nil {
		return fmt.Errorf("%w: serve: %w", errUsage, err)
	}
	if err := o.validateMachines("serve"); err != nil {
		return err
	}
	if err := o.validateConsole("serve"); err != nil {
		return err
	}
	if err := o.validateSafe(); err != nil {
		return err
	}
	if err := o.validateTLS(); err != nil {
		return err
	}
	return o.Log.validate()
}

// serve runs the API on --listen (and --alt-listen) until ctx ends, then shuts down gracefully.
// ready, when not nil, is told the bound addresses once the listeners are open: the API's, then
// the metrics listener's when --metrics-listen is set.
func serve(ctx context.Context, o serveOptions, logger *slog.Logger, ready func([]net.Addr)) error {
	o.Config.Logger = logger
	if _, err := o.tlsConfig(); err != nil {
		return err // before opening the database: a bad certificate changes nothing
	}
	if err := preflight.KeyFile(logger, o.Config.SecretsKeyFile, o.StrictKeyFile); err != nil {
		return err
	}
	if err := preflight.Machines("serve", o.Config); err != nil {
		return err // before opening the database
	}
	devserver.WarnIfDevDB(logger, o.Config.DB)
	preflight.DevKeyOnDevDB(&o.Config)
	srv, err := resellerd.New(ctx, o.Config)
	if err != nil {
		return err // no plain-text warning before it: the database may be encrypted, and serve refused
	}
	defer srv.Close()
	preflight.WarnPlainSecrets(logger, o.Config)
	return serveHandler(ctx, o, srv.Handler(), srv.MetricsHandler(), logger, func(addrs []net.Addr) {
		if err := srv.SetPublicURL(listenerURL(endpointScheme(o), addrs[0])); err != nil {
			logger.Error("public URL", slog.Any("error", err))
		}
		if ready != nil {
			ready(addrs)
		}
	})
}

// serveHandler serves h on --listen (and --alt-listen), with --pprof and metrics on
// --metrics-listen, until ctx ends, then shuts down gracefully (backend/internal/httpserve).
// `resellerd dev` serves its own handler through it.
func serveHandler(ctx context.Context, o serveOptions, h, metrics http.Handler, logger *slog.Logger, ready func([]net.Addr)) error {
	tlsConfig, err := o.tlsConfig()
	if err != nil {
		return err
	}
	if err := preflight.Pprof(o.Pprof); err != nil {
		return err
	}
	return httpserve.Serve(ctx, httpserve.Config{Listen: o.Listen, AltListen: o.AltListen, Pprof: o.Pprof,
		MetricsListen: o.MetricsListen, TLS: tlsConfig, DB: resellerd.RedactDB(o.Config.DB)}, h, metrics, logger, ready)
}

// addMetricsFlags registers --metrics-listen on fs.
func addMetricsFlags(fs *flag.FlagSet, o *serveOptions, def serveOptions) {
	fs.StringVar(&o.MetricsListen, "metrics-listen", def.MetricsListen,
		"address serving Prometheus /metrics (and /livez, /readyz), apart from the API; off when empty")
}
