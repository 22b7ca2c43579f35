package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

const testKey = "rk_live_5f3c9a1b7d2e4f60a8b9c0d1e2f3a4b5"

// recorded is what the stub server saw of one request.
type recorded struct {
	method, path, rawQuery string
	header                 http.Header
	body                   string
}

// stub is an API server answering the n-th request with steps[n] (the last step repeats).
type stub struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	reqs  []recorded
	steps []http.HandlerFunc
}

func newStub(t *testing.T, steps ...http.HandlerFunc) *stub {
	t.Helper()
	s := &stub{t: t, steps: steps}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *stub) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, recorded{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), string(body)})
	step := s.steps[min(n, len(s.steps)-1)]
	s.mu.Unlock()
	step(w, r)
}

func (s *stub) requests() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.reqs...)
}

// endpoint is the stub's base address with the API's version prefix.
func (s *stub) endpoint() string { return s.srv.URL + "/api/v1" }

// ok answers a success envelope.
func ok(data any, meta any) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"success": true, "data": data, "meta": meta}, nil)
	}
}

// apiError answers an error envelope; extra fields (reference, request_id) go into `error`.
func apiError(status int, code, message string, extra map[string]string, header map[string]string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		e := map[string]any{"code": code, "message": message}
		for k, v := range extra {
			e[k] = v
		}
		writeJSON(w, status, map[string]any{"success": false, "error": e}, header)
	}
}

// raw answers status with a literal body and content type.
func raw(status int, contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// hangup closes the connection without answering: a network error after the request was sent.
func hangup(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

func writeJSON(w http.ResponseWriter, status int, v any, header map[string]string) {
	for k, val := range header {
		w.Header().Set(k, val)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// closedEndpoint returns the base address of a port nobody listens on: dialing it is refused.
func closedEndpoint(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatalf("close listener: %v", err)
	}
	return "http://" + addr + "/api/v1"
}

// countingTransport counts round trips per host, including those that fail to connect.
type countingTransport struct {
	mu     sync.Mutex
	counts map[string]int
	next   http.RoundTripper
}

func newCountingClient(t *testing.T) (*http.Client, *countingTransport) {
	t.Helper()
	tr := &http.Transport{DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	ct := &countingTransport{counts: map[string]int{}, next: tr}
	// The stubs answer at once (or hang up); the timeout only keeps a broken test from hanging.
	return &http.Client{Transport: ct, Timeout: time.Minute}, ct
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.counts[r.URL.Host]++
	c.mu.Unlock()
	return c.next.RoundTrip(r)
}

func (c *countingTransport) count(host string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[host]
}

func hostOf(t *testing.T, endpoint string) string {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatalf("parse %q: %v", endpoint, err)
	}
	return u.Host
}

// newClient builds a client with fast backoff; cfg fields that are set win.
func newClient(t *testing.T, cfg client.Config) *client.Client {
	t.Helper()
	if cfg.APIKey == "" {
		cfg.APIKey = testKey
	}
	if cfg.MinBackoff == 0 {
		cfg.MinBackoff = time.Millisecond
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = 5 * time.Millisecond
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient, _ = newCountingClient(t)
	}
	c, err := client.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// recordWaits makes c record its waits instead of sleeping, with no jitter.
func recordWaits(c *client.Client) *[]time.Duration {
	var mu sync.Mutex
	waits := &[]time.Duration{}
	c.SetJitterForTest(func(time.Duration) time.Duration { return 0 })
	c.SetWaitForTest(func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		*waits = append(*waits, d)
		return ctx.Err()
	})
	return waits
}

func TestNew_validation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cfg     client.Config
		wantErr string
	}{
		{"valid", client.Config{Endpoint: "http://127.0.0.1:8080/api/v1"}, ""},
		{"valid https with alt", client.Config{Endpoint: "https://api.example.com/api/v1/", AltEndpoint: "https://alt.example.com/api/v1"}, ""},
		{"missing endpoint", client.Config{}, "endpoint is required"},
		{"relative endpoint", client.Config{Endpoint: "/api/v1"}, "absolute http:// or https://"},
		{"other scheme", client.Config{Endpoint: "ftp://example.com/api/v1"}, "absolute http:// or https://"},
		{"no host", client.Config{Endpoint: "http:///api/v1"}, "has no host"},
		{"credentials in URL", client.Config{Endpoint: "http://user:pw@example.com/api/v1"}, "must not contain credentials"},
		{"query in URL", client.Config{Endpoint: "http://example.com/api/v1?x=1"}, "query or fragment"},
		{"bad alt endpoint", client.Config{Endpoint: "http://example.com/api/v1", AltEndpoint: "example.org"}, "alt_endpoint"},
		{"bad language", client.Config{Endpoint: "http://example.com", Language: "de"}, `language "de"`},
		{"negative retries", client.Config{Endpoint: "http://example.com", MaxRetries: -1}, "max_retries"},
		{"min above max backoff", client.Config{Endpoint: "http://example.com", MinBackoff: time.Second, MaxBackoff: time.Millisecond}, "min backoff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := client.New(tt.cfg)
			if tt.wantErr == "" {
				if err != nil || c == nil {
					t.Fatalf("New: got (%v, %v), want a client", c, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("New error: got %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestHeadersAndURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		language      string
		userAgent     string
		wantLanguage  string
		wantUserAgent string
	}{
		{"defaults", "", "", "en", "terraform-provider-reseller/dev"},
		{"persian and versioned agent", "fa", "terraform-provider-reseller/1.2.3", "fa", "terraform-provider-reseller/1.2.3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStub(t, ok([]any{}, nil), ok(map[string]any{"cost": 1.5}, nil))
			c := newClient(t, client.Config{
				Endpoint:  s.endpoint() + "/", // trailing slash must be trimmed
				Language:  tt.language,
				UserAgent: tt.userAgent,
			})
			ctx := context.Background()
			if _, err := c.ListLocations(ctx, 3); err != nil {
				t.Fatalf("ListLocations: %v", err)
			}
			if _, err := c.Quote(ctx, client.QuoteRequest{ServerID: 7}); err != nil {
				t.Fatalf("Quote: %v", err)
			}
			reqs := s.requests()
			if len(reqs) != 2 {
				t.Fatalf("requests: got %d, want 2", len(reqs))
			}
			get, post := reqs[0], reqs[1]
			if get.path != "/api/v1/locations" || get.rawQuery != "datacenter_id=3" {
				t.Errorf("GET URL: got %s?%s, want /api/v1/locations?datacenter_id=3", get.path, get.rawQuery)
			}
			for _, r := range reqs {
				want := map[string]string{
					"Authorization":   "Bearer " + testKey,
					"Accept":          "application/json",
					"Accept-Language": tt.wantLanguage,
					"User-Agent":      tt.wantUserAgent,
				}
				for k, v := range want {
					if got := r.header.Get(k); got != v {
						t.Errorf("%s %s header %s: got %q, want %q", r.method, r.path, k, got, v)
					}
				}
			}
			if got := get.header.Get("Content-Type"); got != "" {
				t.Errorf("GET Content-Type: got %q, want none", got)
			}
			if got := post.header.Get("Content-Type"); got != "application/json" {
				t.Errorf("POST Content-Type: got %q, want application/json", got)
			}
			if got := post.header.Get("Idempotency-Key"); got != "" {
				t.Errorf("POST /quote Idempotency-Key: got %q, want none", got)
			}
			if !strings.Contains(post.body, `"server_id":7`) {
				t.Errorf("POST body: got %s, want it to carry server_id 7", post.body)
			}
		})
	}
}

func TestEnvelopeDecoding(t *testing.T) {
	t.Parallel()
	type item struct {
		ID int64 `json:"id"`
	}
	tests := []struct {
		name       string
		step       http.HandlerFunc
		wantItems  []item
		wantPage   *client.Page
		wantReplay bool
		wantReqID  string
	}{
		{
			name:      "data without meta",
			step:      ok([]item{{1}, {2}}, nil),
			wantItems: []item{{1}, {2}},
		},
		{
			name:      "meta page",
			step:      ok([]item{{5}}, map[string]any{"page": map[string]int{"total": 7, "limit": 1, "offset": 4}}),
			wantItems: []item{{5}},
			wantPage:  &client.Page{Total: 7, Limit: 1, Offset: 4},
		},
		{
			name:       "idempotent replay",
			step:       ok([]item{{9}}, map[string]any{"idempotent_replay": true}),
			wantItems:  []item{{9}},
			wantReplay: true,
		},
		{
			name: "null data and request id header",
			step: func(w http.ResponseWriter, _ *http.Request) {
				writeJSON(w, http.StatusOK, map[string]any{"success": true, "data": nil}, map[string]string{"X-Request-ID": "req-77"})
			},
			wantReqID: "req-77",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStub(t, tt.step)
			c := newClient(t, client.Config{Endpoint: s.endpoint()})
			var got []item
			meta, err := c.DoForTest(context.Background(), client.TestRequest{Method: http.MethodGet, Path: "/things"}, &got)
			if err != nil {
				t.Fatalf("do: %v", err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.wantItems) {
				t.Errorf("data: got %v, want %v", got, tt.wantItems)
			}
			if fmt.Sprint(meta.Page) != fmt.Sprint(tt.wantPage) {
				t.Errorf("meta.page: got %+v, want %+v", meta.Page, tt.wantPage)
			}
			if meta.IdempotentReplay != tt.wantReplay {
				t.Errorf("meta.idempotent_replay: got %v, want %v", meta.IdempotentReplay, tt.wantReplay)
			}
			if meta.RequestID != tt.wantReqID {
				t.Errorf("meta.RequestID: got %q, want %q", meta.RequestID, tt.wantReqID)
			}
			if (tt.wantPage != nil || tt.wantReplay) && len(meta.Raw) == 0 {
				t.Errorf("meta.Raw: got empty, want the raw meta object")
			}
		})
	}
}

func TestEndpointMethodDecodes(t *testing.T) {
	t.Parallel()
	s := newStub(t, ok(map[string]any{
		"id": 42, "api_key_hint": "rk_live", "webhook_configured": true,
		"server_limit": 10, "api_order_limit": 5, "language": "en",
	}, nil))
	c := newClient(t, client.Config{Endpoint: s.endpoint()})
	acct, err := c.GetAccount(context.Background())
	if err != nil {
		t.Fatalf("GetAccount: %v", err)
	}
	if acct.ID != 42 || acct.ServerLimit != 10 || !acct.WebhookConfigured || acct.APIKeyHint == nil || *acct.APIKeyHint != "rk_live" {
		t.Errorf("account: got %+v, want id 42, limit 10, webhook configured, hint rk_live", acct)
	}
}

func TestNonEnvelopeSuccessIsAnError(t *testing.T) {
	t.Parallel()
	s := newStub(t, raw(http.StatusOK, "text/html", "<html><body>Welcome to nginx!</body></html>"))
	c := newClient(t, client.Config{Endpoint: s.endpoint(), MaxRetries: 3})
	_, err := c.GetAccount(context.Background())
	if err == nil || !strings.Contains(err.Error(), "not a Reseller API envelope") || !strings.Contains(err.Error(), "Welcome to nginx") {
		t.Fatalf("error: got %v, want a 'not a Reseller API envelope' error quoting the body", err)
	}
	if _, isAPI := client.AsAPIError(err); isAPI {
		t.Errorf("AsAPIError: got true for a 200 answer, want false")
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("attempts: got %d, want 1 (a 200 is never retried)", n)
	}
}

func TestErrorDecoding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		step        http.HandlerFunc
		want        client.APIError
		msgContains string
		errContains []string
	}{
		{
			name: "envelope with request id",
			step: apiError(http.StatusPaymentRequired, client.CodeInsufficientBalance, "Balance too low",
				map[string]string{"request_id": "req-9"}, nil),
			want: client.APIError{Status: 402, Code: "insufficient_balance", Message: "Balance too low", RequestID: "req-9"},
			errContains: []string{
				"GET /account: insufficient_balance: Balance too low (HTTP 402, request ID req-9)",
			},
		},
		{
			name: "provider error with reference",
			step: apiError(http.StatusBadGateway, client.CodeProviderError, "Datacenter did not answer",
				map[string]string{"request_id": "req-1", "reference": "RX7K2P"}, nil),
			want:        client.APIError{Status: 502, Code: "provider_error", Message: "Datacenter did not answer", RequestID: "req-1", Reference: "RX7K2P"},
			errContains: []string{"provider_error", "request ID req-1", "support reference RX7K2P"},
		},
		{
			name: "request id only in header",
			step: apiError(http.StatusNotFound, client.CodeNotFound, "Instance not found", nil,
				map[string]string{"X-Request-ID": "hdr-5"}),
			want:        client.APIError{Status: 404, Code: "not_found", Message: "Instance not found", RequestID: "hdr-5"},
			errContains: []string{"request ID hdr-5"},
		},
		{
			name: "rate limited with retry-after",
			step: apiError(http.StatusTooManyRequests, client.CodeRateLimited, "Too many requests", nil,
				map[string]string{"Retry-After": "5"}),
			want: client.APIError{Status: 429, Code: "rate_limited", Message: "Too many requests", RetryAfter: 5 * time.Second},
		},
		{
			name:        "proxy html page",
			step:        raw(http.StatusBadGateway, "text/html", "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>nginx</body></html>"),
			want:        client.APIError{Status: 502},
			msgContains: "not a Reseller API error (Content-Type text/html)",
			errContains: []string{"HTTP 502 Bad Gateway: ", "<title>502 Bad Gateway</title>"},
		},
		{
			name:        "empty body",
			step:        raw(http.StatusInternalServerError, "", ""),
			want:        client.APIError{Status: 500},
			msgContains: "empty body",
			errContains: []string{"HTTP 500 Internal Server Error"},
		},
		{
			name:        "json that is not an envelope",
			step:        raw(http.StatusNotFound, "application/json", `{"detail":"Not Found"}`),
			want:        client.APIError{Status: 404},
			msgContains: `{\"detail\":\"Not Found\"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStub(t, tt.step)
			c := newClient(t, client.Config{Endpoint: s.endpoint(), MaxRetries: 0})
			_, err := c.GetAccount(context.Background())
			apiErr, isAPI := client.AsAPIError(err)
			if !isAPI {
				t.Fatalf("AsAPIError(%v): got false, want true", err)
			}
			got := *apiErr
			if tt.msgContains != "" {
				if !strings.Contains(got.Message, tt.msgContains) {
					t.Errorf("Message: got %q, want it to contain %q", got.Message, tt.msgContains)
				}
				got.Message = ""
			}
			if got != tt.want {
				t.Errorf("APIError: got %+v, want %+v", got, tt.want)
			}
			for _, want := range tt.errContains {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Error(): got %q, want it to contain %q", err.Error(), want)
				}
			}
		})
	}
}

func TestErrorHelpers(t *testing.T) {
	t.Parallel()
	notFound := &client.APIError{Status: 404, Code: client.CodeNotFound, Message: "gone"}
	locked := &client.APIError{Status: 409, Code: client.CodeInstanceLocked, Message: "locked"}
	bare404 := &client.APIError{Status: 404, Message: "not an API body"}
	tests := []struct {
		name         string
		err          error
		wantNotFound bool
		wantLocked   bool
		wantAPI      *client.APIError
	}{
		{"nil", nil, false, false, nil},
		{"plain error", errors.New("boom"), false, false, nil},
		{"not found", notFound, true, false, notFound},
		{"wrapped not found", fmt.Errorf("read instance 5: %w", notFound), true, false, notFound},
		{"bare 404 without code", bare404, true, false, bare404},
		{"locked", fmt.Errorf("power on: %w", locked), false, true, locked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := client.IsNotFound(tt.err); got != tt.wantNotFound {
				t.Errorf("IsNotFound: got %v, want %v", got, tt.wantNotFound)
			}
			if got := client.IsCode(tt.err, client.CodeInstanceLocked); got != tt.wantLocked {
				t.Errorf("IsCode(instance_locked): got %v, want %v", got, tt.wantLocked)
			}
			got, isAPI := client.AsAPIError(tt.err)
			if got != tt.wantAPI || isAPI != (tt.wantAPI != nil) {
				t.Errorf("AsAPIError: got (%v, %v), want (%v, %v)", got, isAPI, tt.wantAPI, tt.wantAPI != nil)
			}
		})
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		retryAfter func() string
		wantMin    time.Duration
		wantMax    time.Duration
	}{
		{"delay seconds", func() string { return "7" }, 7 * time.Second, 7 * time.Second},
		{"http date", func() string { return time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat) }, 28 * time.Second, 30 * time.Second},
		{"capped", func() string { return "86400" }, 2 * time.Minute, 2 * time.Minute},
		{"absent falls back to backoff", func() string { return "" }, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			limited := func(w http.ResponseWriter, r *http.Request) {
				header := map[string]string{}
				if v := tt.retryAfter(); v != "" {
					header["Retry-After"] = v
				}
				apiError(http.StatusTooManyRequests, client.CodeRateLimited, "slow down", nil, header)(w, r)
			}
			s := newStub(t, limited, ok(map[string]any{"balance": 12.5}, nil))
			c := newClient(t, client.Config{Endpoint: s.endpoint(), MaxRetries: 3})
			waits := recordWaits(c)
			bal, err := c.GetBalance(context.Background())
			if err != nil {
				t.Fatalf("GetBalance: %v", err)
			}
			if bal.Balance != 12.5 {
				t.Errorf("balance: got %v, want 12.5", bal.Balance)
			}
			if n := len(s.requests()); n != 2 {
				t.Errorf("attempts: got %d, want 2", n)
			}
			if len(*waits) != 1 || (*waits)[0] < tt.wantMin || (*waits)[0] > tt.wantMax {
				t.Errorf("waits: got %v, want one in [%s, %s]", *waits, tt.wantMin, tt.wantMax)
			}
		})
	}
}

func TestBackoffGrowsAndIsCapped(t *testing.T) {
	t.Parallel()
	s := newStub(t, raw(http.StatusServiceUnavailable, "text/plain", "busy"))
	c := newClient(t, client.Config{Endpoint: s.endpoint(), MaxRetries: 5, MinBackoff: time.Second, MaxBackoff: 5 * time.Second})
	var waits []time.Duration
	c.SetJitterForTest(func(d time.Duration) time.Duration { return d }) // the ceiling, to see it
	c.SetWaitForTest(func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	})
	_, err := c.GetAccount(context.Background())
	if err == nil || !strings.Contains(err.Error(), "giving up after 6 attempts") {
		t.Fatalf("error: got %v, want 'giving up after 6 attempts'", err)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	if fmt.Sprint(waits) != fmt.Sprint(want) {
		t.Errorf("backoff ceilings: got %v, want %v", waits, want)
	}
}

func TestRetriesThenSuccess(t *testing.T) {
	t.Parallel()
	s := newStub(t,
		raw(http.StatusBadGateway, "text/html", "<h1>bad gateway</h1>"),
		apiError(http.StatusServiceUnavailable, "unavailable", "try later", nil, nil),
		ok(map[string]any{"id": 3}, nil),
	)
	c := newClient(t, client.Config{Endpoint: s.endpoint(), MaxRetries: 4})
	acct, err := c.GetAccount(context.Background())
	if err != nil {
		t.Fatalf("GetAccount: %v", err)
	}
	if acct.ID != 3 {
		t.Errorf("account id: got %d, want 3", acct.ID)
	}
	if n := len(s.requests()); n != 3 {
		t.Errorf("attempts: got %d, want 3", n)
	}
}

func TestRetryPolicyAndMaxRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		req          client.TestRequest
		status       int
		maxRetries   int
		wantAttempts int
	}{
		{"GET 503 retried", client.TestRequest{Method: http.MethodGet}, 503, 3, 4},
		{"PUT 502 retried", client.TestRequest{Method: http.MethodPut, Body: map[string]string{"url": "https://x"}}, 502, 3, 4},
		{"PATCH 503 retried", client.TestRequest{Method: http.MethodPatch, Body: map[string]string{"name": "a"}}, 503, 3, 4},
		{"DELETE 502 retried", client.TestRequest{Method: http.MethodDelete}, 502, 3, 4},
		{"retry-safe POST 503 retried", client.TestRequest{Method: http.MethodPost, RetrySafe: true, Body: map[string]int{"server_id": 1}}, 503, 3, 4},
		{"keyed POST 502 retried", client.TestRequest{Method: http.MethodPost, IdempotencyKey: "k1", Body: map[string]int{"server_id": 1}}, 502, 3, 4},
		{"plain POST 502 not retried", client.TestRequest{Method: http.MethodPost, Body: map[string]string{"action": "reboot"}}, 502, 3, 1},
		{"plain POST 503 not retried", client.TestRequest{Method: http.MethodPost}, 503, 3, 1},
		{"plain POST 429 retried", client.TestRequest{Method: http.MethodPost}, 429, 3, 4},
		{"GET 500 not retried", client.TestRequest{Method: http.MethodGet}, 500, 3, 1},
		{"keyed POST 500 retried", client.TestRequest{Method: http.MethodPost, IdempotencyKey: "k1", Body: map[string]int{"server_id": 1}}, 500, 3, 4},
		{"plain POST 500 not retried", client.TestRequest{Method: http.MethodPost, Body: map[string]int{"server_id": 1}}, 500, 3, 1},
		{"GET 404 not retried", client.TestRequest{Method: http.MethodGet}, 404, 3, 1},
		{"GET 409 not retried", client.TestRequest{Method: http.MethodGet}, 409, 3, 1},
		{"max retries zero", client.TestRequest{Method: http.MethodGet}, 503, 0, 1},
		{"max retries one", client.TestRequest{Method: http.MethodGet}, 429, 1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStub(t, apiError(tt.status, "some_code", "failing", nil, map[string]string{"Retry-After": "0"}))
			c := newClient(t, client.Config{Endpoint: s.endpoint(), MaxRetries: tt.maxRetries})
			tt.req.Path = "/thing"
			_, err := c.DoForTest(context.Background(), tt.req, nil)
			apiErr, isAPI := client.AsAPIError(err)
			if !isAPI || apiErr.Status != tt.status {
				t.Fatalf("error: got %v, want an APIError with status %d", err, tt.status)
			}
			reqs := s.requests()
			if len(reqs) != tt.wantAttempts {
				t.Fatalf("attempts: got %d, want %d", len(reqs), tt.wantAttempts)
			}
			if tt.wantAttempts > 1 && !strings.Contains(err.Error(), fmt.Sprintf("giving up after %d attempts", tt.wantAttempts)) {
				t.Errorf("error: got %q, want it to say how many attempts were made", err)
			}
			if tt.status == http.StatusInternalServerError && client.IsUnavailable(err) {
				t.Errorf("IsUnavailable: got true, want false (a 500 each time is a fault, not a wait)")
			}
			for i, r := range reqs[1:] {
				if r.body != reqs[0].body {
					t.Errorf("attempt %d body: got %q, want the first attempt's %q", i+2, r.body, reqs[0].body)
				}
			}
		})
	}
}

func TestIdempotencyKeyResentOnRetries(t *testing.T) {
	t.Parallel()
	s := newStub(t,
		apiError(http.StatusBadGateway, client.CodeProviderError, "datacenter busy", map[string]string{"reference": "AB12"}, nil),
		hangup,
		apiError(http.StatusInternalServerError, client.CodeServerError, "commit failed", nil, nil), // placed or not: unknown
		func(w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, http.StatusCreated, map[string]any{
				"success": true,
				"data":    map[string]any{"order_id": 77},
				"meta":    map[string]any{"idempotent_replay": true},
			}, nil)
		},
	)
	c := newClient(t, client.Config{Endpoint: s.endpoint(), MaxRetries: 5})
	body := map[string]any{"server_id": 4, "template_id": 9, "term": "hourly", "hostname": "web-1"}
	var out struct {
		OrderID int64 `json:"order_id"`
	}
	meta, err := c.DoForTest(context.Background(), client.TestRequest{
		Method: http.MethodPost, Path: "/instances", Body: body, IdempotencyKey: "tf-0b7c5e",
	}, &out)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if out.OrderID != 77 || !meta.IdempotentReplay {
		t.Errorf("result: got order %d replay %v, want order 77 replay true", out.OrderID, meta.IdempotentReplay)
	}
	reqs := s.requests()
	if len(reqs) != 4 {
		t.Fatalf("attempts: got %d, want 4", len(reqs))
	}
	wantBody, _ := json.Marshal(body)
	for i, r := range reqs {
		if got := r.header.Get("Idempotency-Key"); got != "tf-0b7c5e" {
			t.Errorf("attempt %d Idempotency-Key: got %q, want %q", i+1, got, "tf-0b7c5e")
		}
		if r.body != string(wantBody) {
			t.Errorf("attempt %d body: got %s, want %s", i+1, r.body, wantBody)
		}
	}
}

func TestConnectionErrors(t *testing.T) {
	t.Parallel()
	t.Run("closed port retried for every method", func(t *testing.T) {
		t.Parallel()
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			endpoint := closedEndpoint(t)
			httpClient, counter := newCountingClient(t)
			c := newClient(t, client.Config{Endpoint: endpoint, MaxRetries: 2, HTTPClient: httpClient})
			_, err := c.DoForTest(context.Background(), client.TestRequest{Method: method, Path: "/account"}, nil)
			var opErr *net.OpError
			if !errors.As(err, &opErr) || opErr.Op != "dial" {
				t.Errorf("%s error: got %v, want a dial error", method, err)
			}
			if n := counter.count(hostOf(t, endpoint)); n != 3 {
				t.Errorf("%s attempts: got %d, want 3 (a refused connection was certainly not processed)", method, n)
			}
		}
	})
	tests := []struct {
		name         string
		req          client.TestRequest
		wantErr      bool
		wantAttempts int
	}{
		{"GET after hang-up retried", client.TestRequest{Method: http.MethodGet}, false, 2},
		{"keyed POST after hang-up retried", client.TestRequest{Method: http.MethodPost, IdempotencyKey: "k"}, false, 2},
		{"plain POST after hang-up not retried", client.TestRequest{Method: http.MethodPost}, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStub(t, hangup, ok(map[string]any{}, nil))
			c := newClient(t, client.Config{Endpoint: s.endpoint(), MaxRetries: 3})
			tt.req.Path = "/instances/1/actions"
			_, err := c.DoForTest(context.Background(), tt.req, nil)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error: got %v, want error %v", err, tt.wantErr)
			}
			if n := len(s.requests()); n != tt.wantAttempts {
				t.Errorf("attempts: got %d, want %d", n, tt.wantAttempts)
			}
		})
	}
}

func TestFailover(t *testing.T) {
	t.Parallel()
	t.Run("closed primary fails over at once and sticks to alt", func(t *testing.T) {
		t.Parallel()
		primary := closedEndpoint(t)
		alt := newStub(t, ok(map[string]any{"id": 1}, nil))
		httpClient, counter := newCountingClient(t)
		c := newClient(t, client.Config{Endpoint: primary, AltEndpoint: alt.endpoint(), MaxRetries: 3, HTTPClient: httpClient})
		waits := recordWaits(c)
		ctx := context.Background()
		for i := range 3 {
			if _, err := c.GetAccount(ctx); err != nil {
				t.Fatalf("call %d: %v", i+1, err)
			}
		}
		if n := counter.count(hostOf(t, primary)); n != 1 {
			t.Errorf("primary attempts: got %d, want 1 (later calls stick to alt)", n)
		}
		if n := len(alt.requests()); n != 3 {
			t.Errorf("alt requests: got %d, want 3", n)
		}
		if len(*waits) != 0 {
			t.Errorf("waits: got %v, want none (failover is immediate, not a retry)", *waits)
		}
	})
	t.Run("plain POST fails over on a refused connection", func(t *testing.T) {
		t.Parallel()
		alt := newStub(t, ok(map[string]any{"success": true}, nil))
		c := newClient(t, client.Config{Endpoint: closedEndpoint(t), AltEndpoint: alt.endpoint(), MaxRetries: 0})
		_, err := c.DoForTest(context.Background(), client.TestRequest{Method: http.MethodPost, Path: "/account/webhook/test"}, nil)
		if err != nil {
			t.Fatalf("POST: %v", err)
		}
		if n := len(alt.requests()); n != 1 {
			t.Errorf("alt requests: got %d, want 1", n)
		}
	})
	t.Run("plain POST does not fail over after the request was sent", func(t *testing.T) {
		t.Parallel()
		primary := newStub(t, hangup)
		alt := newStub(t, ok(map[string]any{}, nil))
		c := newClient(t, client.Config{Endpoint: primary.endpoint(), AltEndpoint: alt.endpoint(), MaxRetries: 3})
		_, err := c.DoForTest(context.Background(), client.TestRequest{Method: http.MethodPost, Path: "/instances/1/actions"}, nil)
		if err == nil {
			t.Fatal("POST: got nil error, want the hang-up error")
		}
		if p, a := len(primary.requests()), len(alt.requests()); p != 1 || a != 0 {
			t.Errorf("requests: got primary %d alt %d, want primary 1 alt 0", p, a)
		}
	})
	t.Run("sticky alt fails back to primary when alt goes down", func(t *testing.T) {
		t.Parallel()
		primary := newStub(t, hangup, ok(map[string]any{"id": 1}, nil))
		alt := newStub(t, ok(map[string]any{"id": 2}, nil))
		c := newClient(t, client.Config{Endpoint: primary.endpoint(), AltEndpoint: alt.endpoint(), MaxRetries: 0})
		ctx := context.Background()
		first, err := c.GetAccount(ctx)
		if err != nil || first.ID != 2 {
			t.Fatalf("first call: got (%v, %v), want account 2 from alt", first, err)
		}
		alt.srv.Close()
		for i := range 2 {
			acct, err := c.GetAccount(ctx)
			if err != nil || acct.ID != 1 {
				t.Fatalf("call %d after alt went down: got (%v, %v), want account 1 from primary", i+2, acct, err)
			}
		}
		if n := len(primary.requests()); n != 3 {
			t.Errorf("primary requests: got %d, want 3 (hang-up, then two answered)", n)
		}
	})
	t.Run("both endpoints down", func(t *testing.T) {
		t.Parallel()
		primary, alt := closedEndpoint(t), closedEndpoint(t)
		httpClient, counter := newCountingClient(t)
		c := newClient(t, client.Config{Endpoint: primary, AltEndpoint: alt, MaxRetries: 1, HTTPClient: httpClient})
		_, err := c.GetAccount(context.Background())
		if err == nil || !strings.Contains(err.Error(), "the other endpoint failed too") {
			t.Fatalf("error: got %v, want both endpoints' failures", err)
		}
		if p, a := counter.count(hostOf(t, primary)), counter.count(hostOf(t, alt)); p != 2 || a != 2 {
			t.Errorf("attempts: got primary %d alt %d, want 2 each", p, a)
		}
	})
}

// TestContextCanceledDuringBackoff: a cancel while the client waits to retry ends the wait at
// once, and the error keeps both the cancel and the last answer. The test cancels when the
// client is known to be waiting (its wait reports it), not after a pause it hopes is enough.
func TestContextCanceledDuringBackoff(t *testing.T) {
	t.Parallel()
	s := newStub(t, raw(http.StatusServiceUnavailable, "text/plain", "maintenance"))
	c := newClient(t, client.Config{Endpoint: s.endpoint(), MaxRetries: 8, MinBackoff: time.Hour, MaxBackoff: time.Hour})
	waiting := make(chan struct{}, 1)
	c.SetWaitForTest(func(ctx context.Context, d time.Duration) error {
		select {
		case waiting <- struct{}{}:
		default:
		}
		return client.Sleep(ctx, d)
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.GetAccount(ctx)
		done <- err
	}()
	<-waiting
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("GetAccount still waiting a minute after cancel, want it to return at once")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error: got %v, want context.Canceled", err)
	}
	if apiErr, isAPI := client.AsAPIError(err); !isAPI || apiErr.Status != 503 {
		t.Errorf("AsAPIError: got (%v, %v), want the last 503 kept in the chain", apiErr, isAPI)
	}
}

func TestLogsNeverContainSecrets(t *testing.T) {
	t.Parallel()
	const password = "hunter2-Secret-Pw"
	// A misbehaving proxy that echoes the Authorization header into its error page.
	echo := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-ID", "req-log-1")
		raw(http.StatusServiceUnavailable, "text/plain", "upstream down; you sent "+r.Header.Get("Authorization"))(w, r)
	}
	s := newStub(t, echo, ok(map[string]any{"id": 1}, nil), echo)
	c := newClient(t, client.Config{Endpoint: s.endpoint(), MaxRetries: 1})

	var buf bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &buf)
	if _, err := c.GetAccount(ctx); err != nil {
		t.Fatalf("GetAccount: %v", err)
	}
	_, err := c.DoForTest(ctx, client.TestRequest{
		Method: http.MethodPost, Path: "/instances/1/actions",
		Body: map[string]string{"action": "reset_password", "password": password},
	}, nil)
	if err == nil {
		t.Fatal("POST: got nil error, want the echoed 503")
	}
	if strings.Contains(err.Error(), testKey) {
		t.Errorf("returned error contains the API key: %q", err)
	}
	logs := buf.String()
	for _, secret := range []string{testKey, password} {
		if strings.Contains(logs, secret) {
			t.Errorf("logs contain secret %q:\n%s", secret, logs)
		}
	}

	entries, err := tflogtest.MultilineJSONDecode(&buf)
	if err != nil {
		t.Fatalf("decode logs: %v", err)
	}
	var sawRetry, sawResponse bool
	for _, e := range entries {
		switch e["@message"] {
		case "retrying Reseller API request":
			sawRetry = e["method"] == "GET" && e["path"] == "/account" && e["status"] == float64(503) &&
				e["attempt"] == float64(1) && e["request_id"] == "req-log-1" && e["wait"] != nil
		case "received Reseller API response":
			sawResponse = sawResponse || (e["status"] == float64(200) && e["method"] == "GET")
		}
	}
	if !sawRetry {
		t.Errorf("logs: want a retry entry with method, path, status, attempt, request_id and wait; got:\n%s", logs)
	}
	if !sawResponse {
		t.Errorf("logs: want a response entry with status 200; got:\n%s", logs)
	}
}

func TestCheckEndpoint(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"http://127.0.0.1:8080/api/v1", true},
		{"https://api.example.com/api/v1/", true},
		{"ftp://example.com", false},
		{"127.0.0.1:8080", false},
		{"http:///api/v1", false},
		{"http://example.com/api/v1?x=1", false},
		{"::", false},
		{"http://user:pw@example.com/api/v1", false},
	}
	for _, tc := range tests {
		if err := client.CheckEndpoint(tc.in); (err == nil) != tc.ok {
			t.Errorf("CheckEndpoint(%q): got error %v, want ok=%v", tc.in, err, tc.ok)
		}
	}
}

// TestUnavailableIsOnlyWhatMaySendAgain: after its retries the client reports an
// UnavailableError (which a wait rides out, sending the request again) only when the API was
// unreachable or answered as unavailable and each attempt was safe to repeat: a write that may
// have reached the server, or a real answer of the API, is never reported as unavailable.
func TestUnavailableIsOnlyWhatMaySendAgain(t *testing.T) {
	t.Parallel()
	get := client.TestRequest{Method: http.MethodGet}
	keyed := client.TestRequest{Method: http.MethodPost, IdempotencyKey: "k", Body: map[string]int{"server_id": 1}}
	plain := client.TestRequest{Method: http.MethodPost, Body: map[string]string{"action": "reboot"}}
	tests := []struct {
		name            string
		req             client.TestRequest
		answer          http.HandlerFunc
		wantAttempts    int
		wantUnavailable bool
	}{
		{"GET 503 from a proxy", get, raw(http.StatusServiceUnavailable, "text/html", "<h1>down</h1>"), 3, true},
		{"GET 504 from a proxy", get, raw(http.StatusGatewayTimeout, "text/html", "<h1>timeout</h1>"), 3, true},
		{"GET 503 service_unavailable", get, apiError(http.StatusServiceUnavailable, client.CodeServiceUnavailable, "busy", nil, nil), 3, true},
		{"keyed POST after hang-ups", keyed, hangup, 3, true},
		{"GET 502 provider_error is an answer", get, apiError(http.StatusBadGateway, client.CodeProviderError, "datacenter failed", nil, nil), 3, false},
		{"plain POST 503 not repeated", plain, raw(http.StatusServiceUnavailable, "text/html", "<h1>down</h1>"), 1, false},
		{"plain POST after a hang-up not repeated", plain, hangup, 1, false},
		{"GET 500 is an answer", get, apiError(http.StatusInternalServerError, client.CodeServerError, "bug", nil, nil), 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStub(t, tt.answer)
			c := newClient(t, client.Config{Endpoint: s.endpoint(), MaxRetries: 2})
			tt.req.Path = "/thing"
			_, err := c.DoForTest(context.Background(), tt.req, nil)
			if err == nil {
				t.Fatal("want an error")
			}
			if n := len(s.requests()); n != tt.wantAttempts {
				t.Errorf("attempts: got %d, want %d", n, tt.wantAttempts)
			}
			if got := client.IsUnavailable(err); got != tt.wantUnavailable {
				t.Errorf("IsUnavailable(%v) = %v, want %v", err, got, tt.wantUnavailable)
			}
		})
	}
	t.Run("plain POST to a closed port was never sent", func(t *testing.T) {
		t.Parallel()
		c := newClient(t, client.Config{Endpoint: closedEndpoint(t), MaxRetries: 1})
		_, err := c.DoForTest(context.Background(), client.TestRequest{Method: http.MethodPost, Path: "/thing"}, nil)
		if !client.IsUnavailable(err) || !strings.Contains(err.Error(), "giving up after 2 attempts") {
			t.Errorf("got %v, want an UnavailableError after 2 attempts", err)
		}
	})
	t.Run("max retries zero still says unavailable", func(t *testing.T) {
		t.Parallel()
		c := newClient(t, client.Config{Endpoint: closedEndpoint(t)})
		_, err := c.DoForTest(context.Background(), get, nil)
		if !client.IsUnavailable(err) || strings.Contains(err.Error(), "giving up") {
			t.Errorf("got %v, want an UnavailableError of one attempt", err)
		}
	})
}
