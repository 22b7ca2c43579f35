package client

// Types of the webhook registration bodies (spec: Webhook settings).

// WebhookSettings is the body of GET, PUT and DELETE /account/webhook. The secret is never
// returned.
type WebhookSettings struct {
	URL        *string  `json:"url"`
	Configured bool     `json:"configured"`
	Events     []string `json:"events"`
}

// WebhookRequest is the body of PUT /account/webhook: the endpoint URL and the secret, both
// required, within the limits of the public webhook package (CheckURL, CheckSecret).
type WebhookRequest struct {
	URL    string `json:"url"`
	Secret string `json:"secret"`
}

// WebhookTestResult is the answer of POST /account/webhook/test: whether the ping was delivered
// (a 2xx answer) and the HTTP status the endpoint answered with (nil when it did not answer).
type WebhookTestResult struct {
	Delivered bool   `json:"delivered"`
	Status    *int64 `json:"status"`
}
