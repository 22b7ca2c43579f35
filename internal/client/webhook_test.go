package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

func TestWebhookEndpoints(t *testing.T) {
	t.Parallel()
	const secret = "whsec-0123456789abcdef"
	settings := map[string]any{"url": "https://hooks.example.com/x", "configured": true, "events": []string{"ping", "order.deployed"}}
	s := newStub(t,
		ok(settings, nil),
		ok(settings, nil),
		ok(map[string]any{"delivered": false, "status": 401}, nil),
		ok(map[string]any{"url": nil, "configured": false, "events": []string{"ping"}}, nil),
	)
	c := newClient(t, client.Config{Endpoint: s.endpoint()})
	var buf bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &buf)

	w, err := c.PutWebhook(ctx, client.WebhookRequest{URL: "https://hooks.example.com/x", Secret: secret})
	if err != nil || !w.Configured || w.URL == nil || *w.URL != "https://hooks.example.com/x" || len(w.Events) != 2 {
		t.Fatalf("PutWebhook: got %+v, %v, want the configured settings", w, err)
	}
	if _, err := c.GetWebhook(ctx); err != nil {
		t.Fatalf("GetWebhook: %v", err)
	}
	res, err := c.TestWebhook(ctx)
	if err != nil || res.Delivered || res.Status == nil || *res.Status != 401 {
		t.Fatalf("TestWebhook: got %+v, %v, want not delivered, status 401", res, err)
	}
	if got := res.String(); got != "HTTP 401 Unauthorized" {
		t.Errorf("result text: got %q, want HTTP 401 Unauthorized", got)
	}
	w, err = c.DeleteWebhook(ctx)
	if err != nil || w.Configured || w.URL != nil {
		t.Fatalf("DeleteWebhook: got %+v, %v, want unconfigured", w, err)
	}

	reqs := s.requests()
	want := []string{"PUT /api/v1/account/webhook", "GET /api/v1/account/webhook", "POST /api/v1/account/webhook/test", "DELETE /api/v1/account/webhook"}
	for i, r := range reqs {
		if got := r.method + " " + r.path; got != want[i] {
			t.Errorf("request %d: got %s, want %s", i, got, want[i])
		}
	}
	var body map[string]string
	if err := json.Unmarshal([]byte(reqs[0].body), &body); err != nil || body["secret"] != secret || body["url"] != "https://hooks.example.com/x" {
		t.Errorf("PUT body: got %s, want url and secret", reqs[0].body)
	}
	if strings.Contains(buf.String(), secret) {
		t.Errorf("logs contain the webhook secret:\n%s", buf.String())
	}
}

func TestWebhookTestResultString(t *testing.T) {
	t.Parallel()
	status := func(n int64) *int64 { return &n }
	for _, tt := range []struct {
		in   client.WebhookTestResult
		want string
	}{
		{client.WebhookTestResult{Delivered: true, Status: status(204)}, "delivered (HTTP 204)"},
		{client.WebhookTestResult{Status: status(500)}, "HTTP 500 Internal Server Error"},
		{client.WebhookTestResult{}, "no answer (connection refused or timed out)"},
	} {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}
