package api

import "github.com/reseller/terraform-provider-reseller/backend/internal/service"

// The webhook's bodies: the request PUT decodes, and the conversion of the service's settings
// into the wire shape every webhook route answers with.

// webhookRequestJSON is the body of PUT /account/webhook.
type webhookRequestJSON struct {
	URL    *string `json:"url"`
	Secret *string `json:"secret"`
}

func newWebhookJSON(s service.WebhookSettings) WebhookView {
	return WebhookView{URL: optional(s.URL), Configured: s.Configured, Events: append([]string{}, s.Events...)}
}
