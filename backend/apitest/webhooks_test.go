package apitest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

var allEvents = []string{"ping", "order.deployed", "order.timed_out", "instance.canceled", "instance.password_reset",
	"instance.ip_changed", "instance.resized", "snapshot.created", "snapshot.restored", "snapshot.deleted", "balance.low"}

func (e *env) webhookConfigured(t *testing.T, key string) bool {
	t.Helper()
	var acct api.AccountView
	e.do(t, request{Path: "/account", Key: key}).Data(t, &acct)
	return acct.WebhookConfigured
}

func TestWebhookRegistration(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.account(t, 0)
	settings := func(r response) api.WebhookView {
		t.Helper()
		r.WantStatus(t, http.StatusOK, "")
		if strings.Contains(string(r.Raw), "secret") || strings.Contains(string(r.Raw), hookSecret) {
			t.Fatalf("the answer shows the secret: %s", r.Raw)
		}
		var v api.WebhookView
		r.Data(t, &v)
		if !slices.Equal(v.Events, allEvents) {
			t.Fatalf("events = %v, want the whole catalogue %v", v.Events, allEvents)
		}
		return v
	}
	if v := settings(e.do(t, request{Path: "/account/webhook", Key: a.APIKey})); v.Configured || v.URL != nil {
		t.Fatalf("before registration: %+v", v)
	}
	if e.webhookConfigured(t, a.APIKey) {
		t.Fatal("webhook_configured before registration")
	}
	put := func(url, secret string) response {
		return e.do(t, request{Method: http.MethodPut, Path: "/account/webhook", Key: a.APIKey,
			Body: fmt.Sprintf(`{"url": %q, "secret": %q}`, url, secret)})
	}
	if v := settings(put("https://hooks.example.com/reseller", hookSecret)); !v.Configured || *v.URL != "https://hooks.example.com/reseller" {
		t.Fatalf("after PUT: %+v", v)
	}
	if !e.webhookConfigured(t, a.APIKey) {
		t.Fatal("webhook_configured is false after registration")
	}
	if r := e.do(t, request{Path: "/account", Key: a.APIKey}); strings.Contains(string(r.Raw), hookSecret) {
		t.Fatalf("GET /account shows the secret: %s", r.Raw)
	}
	if v := settings(put("https://other.example.com/h?x=1", strings.Repeat("s", 16))); *v.URL != "https://other.example.com/h?x=1" {
		t.Fatalf("PUT did not replace the registration: %+v", v)
	}
	if v := settings(e.do(t, request{Path: "/account/webhook", Key: a.APIKey})); *v.URL != "https://other.example.com/h?x=1" {
		t.Fatalf("GET after replace: %+v", v)
	}
	if w, err := e.database(t).Webhook(context.Background(), a.ID); err != nil || w.Secret != strings.Repeat("s", 16) {
		t.Fatalf("stored secret = %q, %v; want the second one", w.Secret, err)
	}
	if v := settings(e.do(t, request{Method: http.MethodDelete, Path: "/account/webhook", Key: a.APIKey})); v.Configured || v.URL != nil {
		t.Fatalf("after DELETE: %+v", v)
	}
	settings(e.do(t, request{Method: http.MethodDelete, Path: "/account/webhook", Key: a.APIKey})) // again: no error
	if e.webhookConfigured(t, a.APIKey) {
		t.Fatal("webhook_configured after DELETE")
	}
}

func TestWebhookURLAndSecretRules(t *testing.T) {
	t.Parallel()
	strict := newEnv(t)
	loose := newEnv(t, func(c *resellerd.Config) { c.AllowHTTPWebhooks = true })
	good := hookSecret
	tests := []struct {
		name        string
		body        string
		strict      string // "" accepted, else the field a 400 names
		allowedHTTP string
	}{
		{"https", fmt.Sprintf(`{"url": "https://hooks.example.com/x", "secret": %q}`, good), "", ""},
		{"https loopback", fmt.Sprintf(`{"url": "https://127.0.0.1:8443/x", "secret": %q}`, good), "url", ""},
		{"http loopback v4", fmt.Sprintf(`{"url": "http://127.0.0.1:9000/x", "secret": %q}`, good), "url", ""},
		{"http localhost", fmt.Sprintf(`{"url": "http://localhost:9000/x", "secret": %q}`, good), "url", ""},
		{"http loopback v6", fmt.Sprintf(`{"url": "http://[::1]:9000/x", "secret": %q}`, good), "url", ""},
		{"http elsewhere", fmt.Sprintf(`{"url": "http://hooks.example.com/x", "secret": %q}`, good), "url", "url"},
		{"http private address", fmt.Sprintf(`{"url": "http://10.0.0.1/x", "secret": %q}`, good), "url", "url"},
		{"other scheme", fmt.Sprintf(`{"url": "ftp://hooks.example.com/x", "secret": %q}`, good), "url", "url"},
		{"relative", fmt.Sprintf(`{"url": "/hooks", "secret": %q}`, good), "url", "url"},
		{"not a URL", fmt.Sprintf(`{"url": "hooks example", "secret": %q}`, good), "url", "url"},
		{"credentials", fmt.Sprintf(`{"url": "https://u:p@hooks.example.com/x", "secret": %q}`, good), "url", "url"},
		{"fragment", fmt.Sprintf(`{"url": "https://hooks.example.com/x#f", "secret": %q}`, good), "url", "url"},
		{"too long", fmt.Sprintf(`{"url": "https://hooks.example.com/%s", "secret": %q}`, strings.Repeat("a", 2030), good), "url", "url"},
		{"no url", fmt.Sprintf(`{"secret": %q}`, good), "url", "url"},
		{"no secret", `{"url": "https://hooks.example.com/x"}`, "secret", "secret"},
		{"secret of 15", fmt.Sprintf(`{"url": "https://hooks.example.com/x", "secret": %q}`, strings.Repeat("s", 15)), "secret", "secret"},
		{"secret of 16", fmt.Sprintf(`{"url": "https://hooks.example.com/x", "secret": %q}`, strings.Repeat("s", 16)), "", ""},
		{"secret of 256", fmt.Sprintf(`{"url": "https://hooks.example.com/x", "secret": %q}`, strings.Repeat("ش", 256)), "", ""},
		{"secret of 257", fmt.Sprintf(`{"url": "https://hooks.example.com/x", "secret": %q}`, strings.Repeat("s", 257)), "secret", "secret"},
		{"unknown field", fmt.Sprintf(`{"url": "https://hooks.example.com/x", "secret": %q, "events": []}`, good), "events", "events"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []struct {
				e     *env
				field string
			}{{strict, tt.strict}, {loose, tt.allowedHTTP}} {
				r := c.e.do(t, request{Method: http.MethodPut, Path: "/account/webhook", Key: c.e.account(t, 0).APIKey, Body: tt.body})
				if c.field == "" {
					r.WantStatus(t, http.StatusOK, "")
					continue
				}
				r.WantStatus(t, http.StatusBadRequest, "validation_error")
				r.WantMessage(t, c.field)
			}
		})
	}
}

func TestWebhookChangesRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.RateLimitScale = 0.3 }) // 10 changes a minute become 3
	a := e.account(t, 0)
	body := fmt.Sprintf(`{"url": "https://hooks.example.com/x", "secret": %q}`, hookSecret)
	e.do(t, request{Method: http.MethodPut, Path: "/account/webhook", Key: a.APIKey, Body: body}).WantStatus(t, http.StatusOK, "")
	e.do(t, request{Method: http.MethodDelete, Path: "/account/webhook", Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
	e.do(t, request{Method: http.MethodPut, Path: "/account/webhook", Key: a.APIKey, Body: body}).WantStatus(t, http.StatusOK, "")
	// PUT and DELETE share one budget of webhook changes.
	e.do(t, request{Method: http.MethodDelete, Path: "/account/webhook", Key: a.APIKey}).WantStatus(t, http.StatusTooManyRequests, "rate_limited")
	e.do(t, request{Method: http.MethodPut, Path: "/account/webhook", Key: a.APIKey, Body: body}).WantStatus(t, http.StatusTooManyRequests, "rate_limited")
	e.do(t, request{Path: "/account/webhook", Key: a.APIKey}).WantStatus(t, http.StatusOK, "") // reads are not changes
	e.clock.Advance(time.Minute)
	e.do(t, request{Method: http.MethodDelete, Path: "/account/webhook", Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
}

func (e *env) ping(t *testing.T, key string) api.WebhookTestView {
	t.Helper()
	r := e.do(t, request{Method: http.MethodPost, Path: "/account/webhook/test", Key: key})
	r.WantStatus(t, http.StatusOK, "")
	var v api.WebhookTestView
	r.Data(t, &v)
	return v
}

func TestWebhookTestPing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.AllowHTTPWebhooks = true })
	a := e.account(t, 0)
	r := e.do(t, request{Method: http.MethodPost, Path: "/account/webhook/test", Key: a.APIKey})
	r.WantStatus(t, http.StatusBadRequest, "validation_error")
	r.WantMessage(t, "webhook")

	ok := newReceiver(t, http.StatusNoContent)
	e.register(t, a.APIKey, ok.url())
	if v := e.ping(t, a.APIKey); !v.Delivered || v.Status == nil || *v.Status != 204 {
		t.Fatalf("ping to a 204 endpoint: %+v, want delivered with status 204", v)
	}
	got := ok.deliveries()
	if len(got) != 1 {
		t.Fatalf("receiver got %d requests, want 1", len(got))
	}
	var body struct {
		ID        string          `json:"id"`
		Event     string          `json:"event"`
		CreatedAt string          `json:"created_at"`
		Data      json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(got[0].body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Event != "ping" || string(body.Data) != fmt.Sprintf(`{"account_id":%d}`, a.ID) || !strings.HasPrefix(body.ID, "evt_") ||
		body.CreatedAt != "2025-06-01T10:00:00Z" || got[0].header.Get("X-Service-Event") != "ping" {
		t.Fatalf("ping body %s headers %v", got[0].body, got[0].header)
	}
	if err := verifySignature(got[0].header.Get("X-Service-Signature"), got[0].body, hookSecret, e.clock.Now()); err != nil {
		t.Fatalf("signature: %v", err)
	}

	failing := newReceiver(t, http.StatusInternalServerError)
	e.register(t, a.APIKey, failing.url())
	if v := e.ping(t, a.APIKey); v.Delivered || v.Status == nil || *v.Status != 500 {
		t.Fatalf("ping to a 500 endpoint: %+v, want not delivered with status 500", v)
	}
	e.clock.Advance(time.Hour)
	e.runDue(t)
	if n := len(failing.deliveries()); n != 1 {
		t.Fatalf("a failed ping was sent %d times, want once (no retries)", n)
	}

	gone := newReceiver(t, http.StatusOK)
	gone.srv.Close()
	e.register(t, a.APIKey, gone.url())
	if v := e.ping(t, a.APIKey); v.Delivered || v.Status != nil {
		t.Fatalf("ping to a closed endpoint: %+v, want not delivered with status null", v)
	}
}

// TestEventDelivery: an event is posted with its headers, the {id, event, created_at, data}
// body and a signature an independent verifier accepts.
func TestEventDelivery(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.AllowHTTPWebhooks = true })
	a := e.funded(t, 1_000_000)
	hook := newReceiver(t, http.StatusOK)
	e.register(t, a.APIKey, hook.url())
	id := e.deployed(t, a.APIKey, ubuntuOn101) // the same RunDue deploys and delivers
	got := hook.deliveries()
	if len(got) != 1 {
		t.Fatalf("receiver got %d deliveries, want 1", len(got))
	}
	d := got[0]
	evs := e.events(t, a.ID)
	want := fmt.Sprintf(`{"id":%q,"event":"order.deployed","created_at":"2025-06-01T10:00:00Z","data":%s}`, evs[0].ID, evs[0].Data)
	if string(d.body) != want {
		t.Fatalf("body = %s, want %s", d.body, want)
	}
	if d.header.Get("Content-Type") != "application/json" || d.header.Get("X-Service-Event") != "order.deployed" ||
		!strings.HasPrefix(d.header.Get("X-Service-Delivery"), "dlv_") {
		t.Fatalf("headers = %v", d.header)
	}
	if err := verifySignature(d.header.Get("X-Service-Signature"), d.body, hookSecret, e.clock.Now()); err != nil {
		t.Fatalf("signature: %v", err)
	}
	if err := verifySignature(d.header.Get("X-Service-Signature"), d.body, "another secret, 16+", e.clock.Now()); err == nil {
		t.Fatal("the signature verifies under another secret")
	}
	if err := verifySignature(d.header.Get("X-Service-Signature"), append(d.body, ' '), hookSecret, e.clock.Now()); err == nil {
		t.Fatal("the signature verifies over another body")
	}
	if err := verifySignature(d.header.Get("X-Service-Signature"), d.body, hookSecret, e.clock.Now().Add(301*time.Second)); err == nil {
		t.Fatal("a signature 301 seconds old verifies")
	}

	// Every event the account causes is delivered; attempts run concurrently, so in any order.
	s := e.available(t, a.APIKey, id)
	e.act(t, a.APIKey, id, `{"action": "reset_password"}`)
	e.do(t, request{Method: http.MethodPost, Path: fmt.Sprintf("/snapshots/%d/restore", s.ID), Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
	e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/snapshots/%d", s.ID), Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
	e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/instances/%d", id), Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
	e.runDue(t)
	var names []string
	for _, d := range hook.deliveries() {
		names = append(names, d.header.Get("X-Service-Event"))
	}
	wantNames := []string{"instance.canceled", "instance.password_reset", "order.deployed", "snapshot.created", "snapshot.deleted", "snapshot.restored"}
	slices.Sort(names)
	if !slices.Equal(names, wantNames) {
		t.Fatalf("delivered %v, want %v", names, wantNames)
	}
}

// TestDeliveryRetries: a failing endpoint gets the first attempt, the second 30 seconds later,
// the third 5 minutes after that, and nothing more; every attempt carries the same delivery id
// and body under a fresh signature time.
func TestDeliveryRetries(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.AllowHTTPWebhooks = true })
	a := e.funded(t, 1_000_000)
	hook := newReceiver(t, http.StatusServiceUnavailable)
	e.register(t, a.APIKey, hook.url())
	e.deployed(t, a.APIKey, ubuntuOn101) // attempt 1 at 10:00:00
	steps := []struct {
		advance time.Duration
		want    int
	}{
		{29 * time.Second, 1},
		{time.Second, 2}, // 10:00:30
		{4*time.Minute + 59*time.Second, 2},
		{time.Second, 3}, // 10:05:30
		{time.Hour, 3},
		{24 * time.Hour, 3},
	}
	for _, st := range steps {
		e.clock.Advance(st.advance)
		e.runDue(t)
		if got := len(hook.deliveries()); got != st.want {
			t.Fatalf("at %s: %d attempts, want %d", e.clock.Now().Format(time.TimeOnly), got, st.want)
		}
	}
	got := hook.deliveries()
	wantT := []int64{testStart.Unix(), testStart.Add(30 * time.Second).Unix(), testStart.Add(5*time.Minute + 30*time.Second).Unix()}
	for i, d := range got {
		if d.header.Get("X-Service-Delivery") != got[0].header.Get("X-Service-Delivery") || string(d.body) != string(got[0].body) {
			t.Fatalf("attempt %d: delivery %s body %s, want the first attempt's", i+1, d.header.Get("X-Service-Delivery"), d.body)
		}
		if at := d.signedAt(t); at != wantT[i] {
			t.Fatalf("attempt %d signed at %d, want %d", i+1, at, wantT[i])
		}
	}
	ds, err := e.database(t).Deliveries(context.Background(), a.ID)
	if err != nil || len(ds) != 1 || ds[0].Status != store.DeliveryFailed || ds[0].Attempts != 3 || ds[0].LastStatus != 503 {
		t.Fatalf("deliveries = %+v, %v; want one failed after 3 attempts", ds, err)
	}
}

func TestDeliverySucceedsOnRetry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.AllowHTTPWebhooks = true })
	a := e.funded(t, 1_000_000)
	hook := newReceiver(t, http.StatusBadGateway)
	e.register(t, a.APIKey, hook.url())
	e.deployed(t, a.APIKey, ubuntuOn101)
	hook.answer(http.StatusAccepted)
	e.clock.Advance(30 * time.Second)
	e.runDue(t)
	e.clock.Advance(time.Hour)
	e.runDue(t)
	if n := len(hook.deliveries()); n != 2 {
		t.Fatalf("%d attempts, want 2: the second succeeded", n)
	}
	ds, _ := e.database(t).Deliveries(context.Background(), a.ID)
	if ds[0].Status != store.DeliveryDelivered || ds[0].Attempts != 2 || !ds[0].FinishedAt.Equal(testStart.Add(30*time.Second)) {
		t.Fatalf("delivery = %+v", ds[0])
	}
}

// TestEventsWithoutWebhook: events of an account without a webhook are kept in the outbox but
// never delivered, even once a webhook is registered; deliveries pending when the webhook is
// removed are skipped.
func TestEventsWithoutWebhook(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.AllowHTTPWebhooks = true })
	a := e.funded(t, 1_000_000)
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	hook := newReceiver(t, http.StatusOK)
	e.register(t, a.APIKey, hook.url())
	e.runDue(t)
	if n := len(hook.deliveries()); n != 0 {
		t.Fatalf("an event from before the registration was delivered (%d)", n)
	}
	e.act(t, a.APIKey, id, `{"action": "reset_password"}`) // pending delivery
	e.do(t, request{Method: http.MethodDelete, Path: "/account/webhook", Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
	e.runDue(t)
	if n := len(hook.deliveries()); n != 0 {
		t.Fatalf("a delivery was made after the webhook was removed (%d)", n)
	}
	ds, _ := e.database(t).Deliveries(context.Background(), a.ID)
	if len(ds) != 1 || ds[0].Status != store.DeliverySkipped || len(e.events(t, a.ID)) != 2 {
		t.Fatalf("deliveries = %+v, want one skipped; the outbox keeps both events", ds)
	}
}

// TestDeliveryAfterRestart: a delivery pending when the backend stops is made by the next one
// on the same database.
func TestDeliveryAfterRestart(t *testing.T) {
	t.Parallel()
	cfg := resellerd.Config{DB: filepath.Join(t.TempDir(), "restart.db"), Clock: resellerd.NewManualClock(testStart), WorkerInterval: -1,
		RateLimitScale: 100, AllowHTTPWebhooks: true}
	first := openEnv(t, cfg)
	a := first.funded(t, 1_000_000)
	id := first.deployed(t, a.APIKey, ubuntuOn101)
	hook := newReceiver(t, http.StatusOK)
	first.register(t, a.APIKey, hook.url())
	first.snapped(t, a.APIKey, id) // snapshot.created, its delivery pending
	if err := first.srv.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(hook.deliveries()); n != 0 {
		t.Fatalf("delivered before the restart: %d", n)
	}

	second := openEnv(t, cfg)
	second.clock.Advance(time.Second)
	second.runDue(t)
	got := hook.deliveries()
	if len(got) != 1 || got[0].header.Get("X-Service-Event") != "snapshot.created" {
		t.Fatalf("after the restart the receiver got %d deliveries, want the pending snapshot.created", len(got))
	}
	if err := verifySignature(got[0].header.Get("X-Service-Signature"), got[0].body, hookSecret, second.clock.Now()); err != nil {
		t.Fatalf("signature: %v", err)
	}
}

// gatedReceiver holds the requests it gets until released, after telling arrived about each.
func gatedReceiver(t *testing.T) (url string, arrived <-chan struct{}, release func()) {
	t.Helper()
	in := make(chan struct{}, 100)
	gate := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in <- struct{}{}
		<-gate
		w.WriteHeader(http.StatusOK)
	}))
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(srv.Close)
	t.Cleanup(release) // runs first: no handler is left waiting when the server closes
	return srv.URL + "/hook", in, release
}

// TestPingRelayBusy: with as many test pings in flight as the relay takes, another is 503.
func TestPingRelayBusy(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.AllowHTTPWebhooks = true })
	a := e.account(t, 0)
	url, arrived, release := gatedReceiver(t)
	e.register(t, a.APIKey, url)
	const inFlight = 8
	req := request{Method: http.MethodPost, Path: "/account/webhook/test", Key: a.APIKey}
	answers := make(chan response, inFlight)
	for range inFlight {
		go func() {
			r, err := e.send(req)
			if err != nil {
				r.Status = -1
			}
			answers <- r
		}()
	}
	for range inFlight {
		<-arrived
	}
	e.do(t, req).WantStatus(t, http.StatusServiceUnavailable, "service_unavailable")
	release()
	for range inFlight {
		r := <-answers
		e.check(t, req, r)
		r.WantStatus(t, http.StatusOK, "")
	}
}

// TestDeliveryCanceled: an attempt cut short because the backend stops is not counted; the
// delivery stays pending and the next run makes it.
func TestDeliveryCanceled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.AllowHTTPWebhooks = true })
	a := e.funded(t, 1_000_000)
	url, arrived, release := gatedReceiver(t)
	e.register(t, a.APIKey, url)
	e.placed(t, a.APIKey, ubuntuOn101)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	if err := e.srv.RunDue(ctx); err != nil {
		t.Fatalf("RunDue: %v", err)
	}
	ds, _ := e.database(t).Deliveries(context.Background(), a.ID)
	if len(ds) != 1 || ds[0].Status != store.DeliveryPending || ds[0].Attempts != 0 {
		t.Fatalf("after a canceled attempt: %+v, want pending with no attempt counted", ds)
	}
	release()
	e.runDue(t)
	ds, _ = e.database(t).Deliveries(context.Background(), a.ID)
	if ds[0].Status != store.DeliveryDelivered || ds[0].Attempts != 1 {
		t.Fatalf("after the next run: %+v, want delivered at the first counted attempt", ds[0])
	}
}
