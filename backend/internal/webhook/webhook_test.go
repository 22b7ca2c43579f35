package webhook

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestSignKnownVector(t *testing.T) {
	t.Parallel()
	// Computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac 'whsec_0123456789abcdef'
	got := Sign("whsec_0123456789abcdef", time.Unix(1_700_000_000, 0), []byte(`{"a":1}`))
	want := "t=1700000000,v1=9f5e37cdc7ea587c7c02062d93283cad000d66a831b2a1676418696db47ed6c2"
	if got != want {
		t.Fatalf("Sign = %q, want %q", got, want)
	}
}

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
	s := NewHTTPSender()
	at := time.Unix(1_700_000_000, 0)
	m := Message{URL: srv.URL + "/hook", Secret: "0123456789abcdef", Event: "ping", DeliveryID: "dlv_1", Body: []byte(`{"x":1}`), At: at}
	status, err := s.Send(context.Background(), m)
	if err != nil || status != http.StatusAccepted || !Delivered(status) {
		t.Fatalf("Send = %d, %v; want 202", status, err)
	}
	if string(body) != `{"x":1}` || got.Header.Get("Content-Type") != "application/json" || got.Header.Get(HeaderEvent) != "ping" ||
		got.Header.Get(HeaderDelivery) != "dlv_1" || got.Header.Get(HeaderSignature) != Sign(m.Secret, at, m.Body) {
		t.Fatalf("request: body %s, headers %v", body, got.Header)
	}
	m.URL = srv.URL + "/moved"
	if status, err := s.Send(context.Background(), m); err != nil || status != http.StatusFound || Delivered(status) {
		t.Fatalf("redirect: %d, %v; want 302 not followed", status, err)
	}
}
