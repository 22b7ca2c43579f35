package client

import (
	"context"
	"net/http"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/reseller/terraform-provider-reseller/wire"
)

// Endpoints of the webhook registration (spec: Account, Webhook settings), and their bodies.
// This file is the client's half of the copy template for a new entity (ARCHITECTURE.md).

// The answers are the wire package's bodies, the same Go types resellerd answers with.
type (
	WebhookSettings   = wire.WebhookSettings
	WebhookTestResult = wire.WebhookTestResult
)

// WebhookRequest is the body of PUT /account/webhook: the endpoint URL and the secret, both
// required, within the limits of the public webhook package (CheckURL, CheckSecret). resellerd
// decodes it into pointers of its own, to tell a missing field from an empty one.
type WebhookRequest struct {
	URL    string `json:"url"`
	Secret string `json:"secret"`
}

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
