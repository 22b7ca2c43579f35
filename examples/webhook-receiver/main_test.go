package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/webhook"
)

func TestReceiver(t *testing.T) {
	const secret = "receiver-secret-0123"
	var out bytes.Buffer
	rc := newReceiver(webhook.Verifier{Secret: secret}, &out)
	body := []byte(`{"id":"evt_9","event":"order.deployed","created_at":"2026-01-02T03:04:05Z","data":{"order_id":3}}`)

	send := func(sig, delivery string) int {
		req := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(body))
		req.Header.Set(webhook.HeaderSignature, sig)
		req.Header.Set(webhook.HeaderDelivery, delivery)
		rec := httptest.NewRecorder()
		rc.ServeHTTP(rec, req)
		return rec.Code
	}

	if got := send(webhook.Sign(secret, time.Now(), body), "d1"); got != http.StatusNoContent {
		t.Fatalf("signed delivery: status %d, want 204", got)
	}
	if got := send(webhook.Sign(secret, time.Now(), body), "d1"); got != http.StatusNoContent {
		t.Fatalf("retried delivery: status %d, want 204", got)
	}
	if got := send(webhook.Sign("wrong-secret-0123456", time.Now(), body), "d2"); got != http.StatusUnauthorized {
		t.Fatalf("forged delivery: status %d, want 401", got)
	}
	if got := send(webhook.Sign(secret, time.Now().Add(-time.Hour), body), "d3"); got != http.StatusUnauthorized {
		t.Fatalf("stale delivery: status %d, want 401", got)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], `"event":"order.deployed"`) || !strings.Contains(lines[0], `"delivery":"d1"`) {
		t.Fatalf("printed %q, want exactly one line for delivery d1", out.String())
	}
}
