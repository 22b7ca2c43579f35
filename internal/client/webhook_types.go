package client

// Types of the webhook registration bodies (spec: Webhook settings); the answers are the wire
// package's (WebhookSettings, WebhookTestResult in types.go).

// WebhookRequest is the body of PUT /account/webhook: the endpoint URL and the secret, both
// required, within the limits of the public webhook package (CheckURL, CheckSecret).
type WebhookRequest struct {
	URL    string `json:"url"`
	Secret string `json:"secret"`
}
