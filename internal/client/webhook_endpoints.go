package client

import (
	"context"
	"net/http"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Endpoints of the webhook registration (spec: Account, Webhook settings).

// GetWebhook calls GET /account/webhook.
func (c *Client) GetWebhook(ctx context.Context) (*WebhookSettings, error) {
	var out WebhookSettings
	return &out, c.do(ctx, request{method: http.MethodGet, path: "/account/webhook"}, &out)
}

// PutWebhook calls PUT /account/webhook, replacing any previous registration. The secret is
// masked in every log line of the call.
func (c *Client) PutWebhook(ctx context.Context, in WebhookRequest) (*WebhookSettings, error) {
	if in.Secret != "" {
		ctx = tflog.MaskLogStrings(ctx, in.Secret)
	}
	var out WebhookSettings
	return &out, c.do(ctx, request{method: http.MethodPut, path: "/account/webhook", body: in}, &out)
}

// DeleteWebhook calls DELETE /account/webhook. Repeating it is safe.
func (c *Client) DeleteWebhook(ctx context.Context) (*WebhookSettings, error) {
	var out WebhookSettings
	return &out, c.do(ctx, request{method: http.MethodDelete, path: "/account/webhook"}, &out)
}

// TestWebhook calls POST /account/webhook/test: one ping, sent during the request, never
// retried by the API. The call is repeated only where the API certainly did not process it.
func (c *Client) TestWebhook(ctx context.Context) (*WebhookTestResult, error) {
	var out WebhookTestResult
	return &out, c.do(ctx, request{method: http.MethodPost, path: "/account/webhook/test"}, &out)
}
