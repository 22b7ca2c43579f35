// Package acctest is the support code of the provider's acceptance tests: provider factories,
// pre-checks, and StartBackend, which runs a fresh in-process backend per test so tests can run
// in parallel without sharing state or environment variables.
package acctest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/provider"
)

// ProviderVersion is the version the provider reports in acceptance tests.
const ProviderVersion = "acctest"

// ProtoV6ProviderFactories serves the provider in-process to the terraform binary.
var ProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	provider.TypeName: providerserver.NewProtocol6WithError(provider.New(ProviderVersion)()),
}

// PreCheck fails the test with a clear message when the terraform binary cannot be found, and
// turns off Terraform's update check, which would try to reach the network.
func PreCheck(t *testing.T) {
	t.Helper()
	if os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
		if _, err := exec.LookPath("terraform"); err != nil {
			t.Fatalf("acceptance tests need the terraform binary on PATH (or TF_ACC_TERRAFORM_PATH): %v", err)
		}
	}
	if os.Getenv("CHECKPOINT_DISABLE") == "" {
		// Not t.Setenv: parallel tests may not call it. The value is the same for every test.
		_ = os.Setenv("CHECKPOINT_DISABLE", "1")
	}
}

// DefaultBalanceUSD is the wallet of the account StartBackend creates unless told otherwise.
const DefaultBalanceUSD = 100

// Backend is a running in-process backend with one funded account.
type Backend struct {
	// URL is the API base URL, ending in /api/v1.
	URL string
	// APIKey is the key of the account created for the test.
	APIKey string
	// AccountID is that account's id.
	AccountID int64
	// Server is the backend itself, for operator actions (top-ups, blocking, KYC).
	Server *resellerd.Server
	// RateLimitScale is the backend's rate-limit scale (0: limits off); ProviderConfig paces
	// the provider with the same scale.
	RateLimitScale float64

	requests *requestLog
	cfg      resellerd.Config
	ts       *httptest.Server
}

type options struct {
	balanceMicros int64
	serverLimit   int
	orderLimit    int
	language      string
	kycVerified   bool
	config        []func(*resellerd.Config)
}

// Option changes how StartBackend sets up the backend or the account.
type Option func(*options)

// WithBalance sets the account's initial wallet in USD (default DefaultBalanceUSD).
func WithBalance(usd float64) Option {
	return func(o *options) { o.balanceMicros = int64(usd*1e6 + 0.5) }
}

// WithLimits sets the account's server and order limits.
func WithLimits(servers, orders int) Option {
	return func(o *options) { o.serverLimit, o.orderLimit = servers, orders }
}

// WithAccountLanguage sets the account's own language setting.
func WithAccountLanguage(lang string) Option {
	return func(o *options) { o.language = lang }
}

// WithKYCVerified marks the account's identity check as done before the test starts.
func WithKYCVerified() Option {
	return func(o *options) { o.kycVerified = true }
}

// WithServerConfig lets a test adjust the backend configuration (delays, fail rate) before the
// server starts. Several are applied in order.
func WithServerConfig(fn func(*resellerd.Config)) Option {
	return func(o *options) { o.config = append(o.config, fn) }
}

// WithDelays sets how long the simulated datacenter takes to build a server and, after that, to
// deliver its credentials (each app install stage takes the credentials delay too).
func WithDelays(deploy, credentials time.Duration) Option {
	return WithServerConfig(func(c *resellerd.Config) { c.DeployDelay, c.CredentialsDelay = deploy, credentials })
}

// WithAppStepDelay sets how long each stage of an app install takes (resellerd.Config.AppStepDelay;
// by default the credentials delay of WithDelays).
func WithAppStepDelay(d time.Duration) Option {
	return WithServerConfig(func(c *resellerd.Config) { c.AppStepDelay = d })
}

// WithOrderWindow sets how long an order may stay pending before it times out.
func WithOrderWindow(d time.Duration) Option {
	return WithServerConfig(func(c *resellerd.Config) { c.OrderWindow = d })
}

// WithFailRate sets the share (0 to 1) of simulated builds that never finish (their orders time
// out) and of datacenter operations that fail.
func WithFailRate(rate float64) Option {
	return WithServerConfig(func(c *resellerd.Config) { c.FailRate = rate })
}

// WithSnapshotDelay sets how long a snapshot stays creating before its image is available
// (resellerd.Config.SnapshotDelay; 0 takes the deploy delay).
func WithSnapshotDelay(d time.Duration) Option {
	return WithServerConfig(func(c *resellerd.Config) { c.SnapshotDelay = d })
}

// WithRealLimits runs the backend at the API's documented rate limits (RateLimitScale 1) instead
// of with limits off; the provider block of ProviderConfig then paces at the same limits.
func WithRealLimits() Option {
	return WithServerConfig(func(c *resellerd.Config) { c.RateLimitScale = 1 })
}

// WithHTTPWebhooks lets the account register a plain http:// webhook URL on a loopback host, such
// as a Receiver's (resellerd.Config.AllowHTTPWebhooks).
func WithHTTPWebhooks() Option {
	return WithServerConfig(func(c *resellerd.Config) { c.AllowHTTPWebhooks = true })
}

// StartBackend starts a fresh backend with its own SQLite database in t.TempDir(), rate limits
// off and short provisioning delays, serves it on a loopback port and creates a funded account.
// Everything is closed when the test ends.
//
// Without TF_ACC set the test is skipped here, like resource.Test would, so plain `go test`
// runs start no backend.
func StartBackend(t *testing.T, opts ...Option) *Backend {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance tests run only with TF_ACC=1")
	}
	o := options{balanceMicros: DefaultBalanceUSD * 1_000_000, serverLimit: 10, orderLimit: 5, language: "en"}
	for _, opt := range opts {
		opt(&o)
	}

	cfg := resellerd.Config{
		DB:               filepath.Join(t.TempDir(), "reseller.db"),
		DeployDelay:      200 * time.Millisecond,
		CredentialsDelay: 100 * time.Millisecond,
		OrderWindow:      time.Minute,
		RateLimitScale:   0,
		Logger:           testLogger(),
	}
	for _, fn := range o.config {
		fn(&cfg)
	}

	ctx := context.Background()
	b := &Backend{cfg: cfg, RateLimitScale: cfg.RateLimitScale, requests: newRequestLog()}
	if err := b.serve(nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.stop(t) })
	srv := b.Server

	acct, err := srv.CreateAccount(ctx, resellerd.NewAccount{
		BalanceMicros: o.balanceMicros,
		ServerLimit:   o.serverLimit,
		OrderLimit:    o.orderLimit,
		Language:      o.language,
	})
	if err != nil {
		t.Fatalf("creating the test account: %v", err)
	}
	if o.kycVerified {
		if err := srv.SetKYCVerified(ctx, acct.ID, true); err != nil {
			t.Fatalf("marking the test account as KYC verified: %v", err)
		}
	}

	b.URL, b.APIKey, b.AccountID = b.ts.URL+"/api/v1", acct.APIKey, acct.ID
	return b
}

// Restart closes the backend, as a crash in the middle of an apply would look to the provider
// (open connections are cut, workers stop), and starts a new one on the same SQLite file and
// the same address. It must not run at the same time as another method of b; it may run on a
// goroutine of its own (it reports rather than stops the test).
func (b *Backend) Restart(t *testing.T) error {
	return b.RestartAfter(t, 0)
}

// RestartAfter is Restart with the backend down for down in between: nothing listens on its
// address meanwhile, so clients meet refused connections (a slow restart, a failover).
func (b *Backend) RestartAfter(t *testing.T, down time.Duration) error {
	addr := b.ts.Listener.Addr().String()
	b.stop(t)
	time.Sleep(down)
	l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", addr)
	if err != nil {
		return fmt.Errorf("restarting the backend: listening again on %s: %w", addr, err)
	}
	return b.serve(l)
}

// serve starts a backend on b.cfg and serves it on l, or on a fresh loopback port when l is nil.
func (b *Backend) serve(l net.Listener) error {
	srv, err := resellerd.New(context.Background(), b.cfg)
	if err != nil {
		if l != nil {
			_ = l.Close()
		}
		return fmt.Errorf("starting the backend: %w", err)
	}
	ts := httptest.NewUnstartedServer(b.requests.wrap(srv.Handler()))
	if l != nil {
		_ = ts.Listener.Close()
		ts.Listener = l
	}
	ts.Start()
	// Console URLs (--machines sandbox) point at this listener, as serve's do at its own.
	if err := srv.SetPublicURL(ts.URL); err != nil {
		ts.Close()
		_ = srv.Close()
		return fmt.Errorf("starting the backend: %w", err)
	}
	b.Server, b.ts = srv, ts
	return nil
}

// stop cuts the open connections, stops serving, then closes the backend, so no request
// reaches a closed server.
func (b *Backend) stop(t *testing.T) {
	b.ts.CloseClientConnections()
	b.ts.Close()
	if err := b.Server.Close(); err != nil {
		t.Errorf("closing the backend: %v", err)
	}
}

// testLogger discards the backend's logs unless RESELLER_ACCTEST_LOG is set, in which case they
// go to stderr. (t.Log cannot be used: workers may log after the test has finished.)
func testLogger() *slog.Logger {
	if os.Getenv("RESELLER_ACCTEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// ProviderConfig returns a provider block pointing at this backend, in English.
func (b *Backend) ProviderConfig() string {
	return b.ProviderConfigLanguage("en")
}

// ProviderConfigLanguage returns a provider block pointing at this backend in the given
// language. max_retries is kept low as the backend is local; the provider paces at the
// backend's own rate-limit scale (none when limits are off), so tests wait for nothing the
// backend would not refuse.
func (b *Backend) ProviderConfigLanguage(lang string) string {
	return fmt.Sprintf(`
provider "reseller" {
  endpoint         = %s
  api_key          = %s
  language         = %s
  max_retries      = 2
  rate_limit_scale = %s
}
`, strconv.Quote(b.URL), strconv.Quote(b.APIKey), strconv.Quote(lang), strconv.FormatFloat(b.RateLimitScale, 'g', -1, 64))
}

// Client returns an API client for this backend's account in the given language, so tests can
// derive expected values from the backend instead of copying numbers from the seed.
func (b *Backend) Client(t *testing.T, lang string) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{
		Endpoint:   b.URL,
		APIKey:     b.APIKey,
		Language:   lang,
		MaxRetries: 2,
		UserAgent:  "terraform-provider-reseller/" + ProviderVersion,
	})
	if err != nil {
		t.Fatalf("creating a test client: %v", err)
	}
	return c
}
