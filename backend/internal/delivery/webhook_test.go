package delivery

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/webhook"
)

func TestHTTPSenderSendsHeadersAndDoesNotFollowRedirects(t *testing.T) {
	t.Parallel()
	var got *http.Request
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/hook", http.StatusFound)
			return
		}
		got = r
		body, _ = io.ReadAll(r.Body)
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	s := NewHTTPSender(Targets{AllowLoopback: true}, nil)
	m := Message{URL: srv.URL + "/hook", Secret: "whsec_0123456789abcdef", Event: "ping", DeliveryID: "dlv_1",
		Body: []byte(`{"a":1}`), At: time.Unix(1_700_000_000, 0)}
	status, err := s.Send(context.Background(), m)
	if err != nil || status != http.StatusAccepted || !Delivered(status) {
		t.Fatalf("Send = %d, %v; want 202", status, err)
	}
	// Computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac 'whsec_0123456789abcdef'
	wantSignature := "t=1700000000,v1=9f5e37cdc7ea587c7c02062d93283cad000d66a831b2a1676418696db47ed6c2"
	if string(body) != `{"a":1}` || got.Header.Get("Content-Type") != "application/json" ||
		got.Header.Get(webhook.HeaderEvent) != "ping" || got.Header.Get(webhook.HeaderDelivery) != "dlv_1" ||
		got.Header.Get(webhook.HeaderSignature) != wantSignature {
		t.Fatalf("request: body %s, headers %v; want signature %s", body, got.Header, wantSignature)
	}
	m.URL = srv.URL + "/moved"
	if status, err := s.Send(context.Background(), m); err != nil || status != http.StatusFound || Delivered(status) {
		t.Fatalf("redirect: %d, %v; want 302 not followed", status, err)
	}
}

// A receiver that does not answer within the response limit has not been delivered to: the
// attempt ends at the limit with an error, whatever the receiver does later.
func TestHTTPSenderGivesUpAtTheResponseLimit(t *testing.T) {
	t.Parallel()
	if got := NewHTTPSender(Targets{}, nil).timeout; got != 15*time.Second {
		t.Fatalf("response limit = %s, want the spec's 15s", got)
	}
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	defer close(release)

	s := NewHTTPSender(Targets{AllowLoopback: true}, nil)
	s.timeout = 50 * time.Millisecond
	start := time.Now()
	status, err := s.Send(context.Background(), Message{URL: srv.URL, Secret: "whsec_0123456789abcdef", Event: "ping",
		DeliveryID: "dlv_2", Body: []byte(`{}`), At: time.Now()})
	if err == nil || status != 0 || Delivered(status) {
		t.Fatalf("Send to a receiver slower than the limit = %d, %v; want no status and an error", status, err)
	}
	if elapsed := time.Since(start); elapsed > 20*time.Second { // not stopped, it would wait for the test's end
		t.Fatalf("Send returned after %s, want it to stop at the response limit", elapsed)
	}
}
