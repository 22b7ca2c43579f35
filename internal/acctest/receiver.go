package acctest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/webhook"
)

// Receiver is a webhook endpoint for acceptance tests: an HTTP server on a loopback port that
// checks every delivery with the top-level webhook package's Verifier (the one receivers
// use), records the verified events and refuses the rest with 401. Register URL with a backend
// started WithHTTPWebhooks.
type Receiver struct {
	// URL is the endpoint to register, http://127.0.0.1:PORT/hook.
	URL string

	mu       sync.Mutex
	secret   string
	events   []webhook.Event
	refused  int
	received chan struct{}
}

// StartReceiver starts a Receiver verifying with secret; it stops when the test ends.
func StartReceiver(t *testing.T, secret string) *Receiver {
	t.Helper()
	rc := &Receiver{secret: secret, received: make(chan struct{}, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hook", rc.serve)
	srv := httptest.NewServer(mux) // listens on 127.0.0.1
	t.Cleanup(srv.Close)
	rc.URL = srv.URL + "/hook"
	return rc
}

func (rc *Receiver) serve(w http.ResponseWriter, r *http.Request) {
	rc.mu.Lock()
	verifier := webhook.Verifier{Secret: rc.secret}
	rc.mu.Unlock()
	ev, err := verifier.Parse(r)
	rc.mu.Lock()
	if err != nil {
		rc.refused++
	} else {
		rc.events = append(rc.events, *ev)
	}
	rc.mu.Unlock()
	select {
	case rc.received <- struct{}{}:
	default:
	}
	if err != nil {
		http.Error(w, "invalid signature", http.StatusUnauthorized)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// SetSecret changes the secret the receiver verifies with, as a real receiver does when its
// secret is rotated.
func (rc *Receiver) SetSecret(secret string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.secret = secret
}

// Events returns the verified events so far, in arrival order.
func (rc *Receiver) Events() []webhook.Event {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]webhook.Event(nil), rc.events...)
}

// Refused returns how many deliveries failed verification.
func (rc *Receiver) Refused() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.refused
}

// Count returns how many verified events named name arrived.
func (rc *Receiver) Count(name string) int {
	n := 0
	for _, ev := range rc.Events() {
		if ev.Event == name {
			n++
		}
	}
	return n
}

// WaitFor waits until at least n verified events named name arrived, for at most timeout:
// deliveries other than the test ping are made by a background worker.
func (rc *Receiver) WaitFor(name string, n int, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for rc.Count(name) < n {
		select {
		case <-ctx.Done():
			return fmt.Errorf("verified %q events: got %d after %s, want at least %d (refused deliveries: %d)",
				name, rc.Count(name), timeout, n, rc.Refused())
		case <-rc.received:
		case <-tick.C:
		}
	}
	return nil
}
