// Package client is the provider's only HTTP speaker for the Reseller API: one typed method per
// endpoint (endpoints.go), the JSON envelope decoded once, errors as *APIError, and the retry,
// backoff and failover rules applied in one place (retry.go) so resources never loop on their own.
package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Defaults applied by New to zero Config fields.
const (
	defaultMinBackoff = 500 * time.Millisecond
	defaultMaxBackoff = 30 * time.Second
	defaultLanguage   = "en"
	defaultUserAgent  = "terraform-provider-reseller/dev"

	// maxRetryAfter caps how long one Retry-After may make us wait. The API's limits are per
	// minute, so a longer value is a fault, and Terraform users should not see a silent stall.
	maxRetryAfter = 2 * time.Minute

	// maxResponseBytes bounds a response body read into memory; the largest real answer (the
	// whole plan catalogue) is far below it.
	maxResponseBytes = 32 << 20
)

// Config is what the provider block hands to New. Zero values get the documented defaults, so
// tests only set what they exercise.
type Config struct {
	// Endpoint is the API base address including the version prefix, e.g.
	// "http://127.0.0.1:8080/api/v1". Required; absolute http or https; trailing slashes dropped.
	Endpoint string
	// AltEndpoint is an optional second base address reaching the same API and account; it is
	// used when Endpoint fails at the network level (see Client for the exact rule).
	AltEndpoint string
	// APIKey is sent as "Authorization: Bearer". It may be empty only for GET /health; the
	// provider rejects a missing key before building a client.
	APIKey string
	// Language is "en" (default) or "fa", sent as Accept-Language on every request so names
	// and descriptions come back in the user's language.
	Language string
	// MaxRetries is how many times a failed request may be repeated after the first attempt;
	// 0 disables retries. Switching to AltEndpoint inside an attempt is not a retry.
	MaxRetries int
	// UserAgent identifies the provider build; default "terraform-provider-reseller/dev".
	UserAgent string
	// HTTPClient is used for every request; nil gets a client with dial, TLS and header timeouts.
	HTTPClient *http.Client
	// MinBackoff and MaxBackoff bound the exponential backoff; zero means 500ms and 30s.
	MinBackoff, MaxBackoff time.Duration
	// DetailedRefresh makes DetailedRefresh report true: resources then read every instance's
	// detail on refresh instead of its summary from the shared list.
	DetailedRefresh bool
	// RateLimitScale multiplies the client-side request budgets, which mirror the API's
	// documented per-minute limits (pacing.go); 0 (the zero value) sends without pacing. The
	// provider sets 1 unless told otherwise.
	RateLimitScale float64
}

// Client calls the Reseller API. It is safe for concurrent use by every resource of a provider.
//
// Retries: a request is repeated, at most MaxRetries times, when the answer is 429 (after its
// Retry-After), or when it is 502/503/504 or a network error and the request is replayable (GET, PUT,
// PATCH, DELETE, or marked retrySafe, or carrying an Idempotency-Key), or when it is 500 and the
// request carries an Idempotency-Key (its outcome unknown, the key makes a repeat safe); a plain
// POST is repeated only after a 429 or a dial error, the two cases where the server certainly did
// not process it.
//
// Failover: when an attempt gets no HTTP response from the preferred endpoint because of a dial
// error (for any request) or any other network error (for replayable requests only), and
// AltEndpoint is set, the same attempt is sent at once to the other endpoint. Whichever endpoint
// last returned an HTTP response, of any status, becomes the preferred one for every later
// request of this Client (sticky), until it too fails at the network level.
type Client struct {
	endpoints  []string     // [primary] or [primary, alt], without trailing slash
	preferred  atomic.Int32 // index into endpoints of the one that last answered
	apiKey     string
	language   string
	userAgent  string
	maxRetries int
	minBackoff time.Duration
	maxBackoff time.Duration
	httpClient *http.Client

	// view is the shared short-lived copy of the account's lists (account_view.go); every
	// write through this Client drops it.
	view            *accountView
	detailedRefresh bool
	// pacer holds back requests that would exceed the API's limits; nil when pacing is off.
	pacer *pacer

	// wait blocks for d or until ctx ends; jitter picks a random duration in [0, d). Both are
	// fields so tests can observe waits without spending real seconds.
	wait   func(ctx context.Context, d time.Duration) error
	jitter func(d time.Duration) time.Duration
}

// MaxRetries is the retry budget the Client was made with (max_retries): how often a request is
// sent again after a failure that allows it. Callers that repeat a request themselves, where
// the Client cannot (a create without an Idempotency-Key), hold to the same budget.
func (c *Client) MaxRetries() int { return c.maxRetries }

// request is one API call as endpoints.go describes it; Client.do turns it into HTTP.
type request struct {
	method string
	path   string // relative to the endpoint, starting with "/"
	query  url.Values
	body   any // JSON-encoded once; nil sends no body
	// retrySafe marks a POST that changes nothing (POST /quote), so 502/503 and network
	// errors may be retried like a GET.
	retrySafe bool
	// idempotencyKey is sent as Idempotency-Key; the server deduplicates on it, so the
	// request is replayable.
	idempotencyKey string
}

// New validates cfg and returns a Client. It makes no request, so a provider can be configured
// while the API is down.
func New(cfg Config) (*Client, error) {
	primary, err := parseEndpoint("endpoint", cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	endpoints := []string{primary}
	if cfg.AltEndpoint != "" {
		alt, err := parseEndpoint("alt_endpoint", cfg.AltEndpoint)
		if err != nil {
			return nil, err
		}
		endpoints = append(endpoints, alt)
	}
	if err := validateTuning(cfg); err != nil {
		return nil, err
	}
	c := &Client{
		endpoints:  endpoints,
		apiKey:     cfg.APIKey,
		language:   withDefault(cfg.Language, defaultLanguage),
		userAgent:  withDefault(cfg.UserAgent, defaultUserAgent),
		maxRetries: cfg.MaxRetries,
		minBackoff: cfg.MinBackoff,
		maxBackoff: cfg.MaxBackoff,
		httpClient: cfg.HTTPClient,
		wait:       Sleep,
		jitter:     fullJitter,

		detailedRefresh: cfg.DetailedRefresh,
	}
	c.view = newAccountView(c)
	if cfg.RateLimitScale > 0 {
		c.pacer = newPacer(cfg.RateLimitScale)
	}
	if c.minBackoff == 0 {
		c.minBackoff = defaultMinBackoff
	}
	if c.maxBackoff == 0 {
		c.maxBackoff = max(defaultMaxBackoff, c.minBackoff)
	}
	if c.httpClient == nil {
		c.httpClient = defaultHTTPClient()
	}
	return c, nil
}

// parseEndpoint checks raw with CheckEndpoint and returns it without trailing slashes so paths
// can be appended; name is the setting it came from.
func parseEndpoint(name, raw string) (string, error) {
	if raw == "" {
		return "", fmt.Errorf("%s is required", name)
	}
	if err := CheckEndpoint(raw); err != nil {
		return "", fmt.Errorf("%s is not a usable URL: %w", name, err) // raw may hold credentials
	}
	u, _ := url.Parse(raw) // CheckEndpoint parsed it
	return strings.TrimRight(u.String(), "/"), nil
}

// CheckEndpoint reports what is wrong with raw as an API base URL, or nil when nothing is: it
// must be an absolute http(s) URL with a host and nothing but a path after it. Credentials are
// refused because the API key authenticates. The provider checks its endpoint settings with
// this at plan time, so a typo shows on the attribute rather than as a network error.
func CheckEndpoint(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("it cannot be parsed: %w", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("it must be an absolute http:// or https:// URL (the scheme must be http or https, got %q)", u.Scheme)
	case u.Host == "":
		return errors.New("it has no host")
	case u.User != nil:
		return errors.New("it must not contain credentials; set api_key instead")
	case u.RawQuery != "" || u.Fragment != "":
		return errors.New("it must not have a query or fragment")
	}
	return nil
}

// Languages are the languages the API names things in (its lang parameter).
var Languages = []string{"en", "fa"}

// validateTuning rejects settings that would make retries or names behave surprisingly.
func validateTuning(cfg Config) error {
	if cfg.Language != "" && !slices.Contains(Languages, cfg.Language) {
		return fmt.Errorf("language %q is not supported; use one of %q", cfg.Language, Languages)
	}
	if cfg.MaxRetries < 0 {
		return fmt.Errorf("max_retries must not be negative, got %d", cfg.MaxRetries)
	}
	if cfg.RateLimitScale < 0 {
		return fmt.Errorf("rate_limit_scale must not be negative, got %g", cfg.RateLimitScale)
	}
	if cfg.MinBackoff < 0 || cfg.MaxBackoff < 0 {
		return errors.New("backoff durations must not be negative")
	}
	if cfg.MinBackoff > 0 && cfg.MaxBackoff > 0 && cfg.MinBackoff > cfg.MaxBackoff {
		return fmt.Errorf("min backoff %s is longer than max backoff %s", cfg.MinBackoff, cfg.MaxBackoff)
	}
	return nil
}

func withDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// defaultHTTPClient bounds every network phase, so a black-holed endpoint fails (and fails over)
// instead of hanging a Terraform run; the overall deadline stays with the caller's context.
func defaultHTTPClient() *http.Client {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	transport.TLSHandshakeTimeout = 10 * time.Second
	transport.ResponseHeaderTimeout = 90 * time.Second
	transport.ExpectContinueTimeout = time.Second
	return &http.Client{Transport: transport, Timeout: 3 * time.Minute}
}
