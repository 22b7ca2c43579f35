// Package delivery sends webhook deliveries: one HTTP POST per attempt, signed as the spec's
// Events section describes. The signature rule and the header names come from the exported
// package the receivers use (github.com/reseller/terraform-provider-reseller/webhook), so the
// signer and the verifier share one definition. What to send and when to retry is the
// service's business; this package only speaks HTTP.
package delivery

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/reseller/terraform-provider-reseller/webhook"
)

// Timeout is how long a receiver has to answer (spec: a 2xx within 15 seconds).
const Timeout = 15 * time.Second

// drainLimit bounds how much of a receiver's answer is read, so a connection can be reused
// without letting a receiver make us read forever.
const drainLimit = 64 << 10

// userAgent names the relay to receivers.
const userAgent = "resellerd-webhooks/1.1.0"

// Message is one attempt of a delivery.
type Message struct {
	URL        string
	Secret     string
	Event      string
	DeliveryID string
	Body       []byte    // sent exactly as given; the signature covers these bytes
	At         time.Time // the signature's timestamp; each attempt has its own
}

// Sender makes one attempt. It returns the HTTP status the receiver answered with, or an error
// when there was no answer (refused, timed out, canceled).
type Sender interface {
	Send(ctx context.Context, m Message) (status int, err error)
}

// Delivered reports whether a status counts as delivered: any 2xx.
func Delivered(status int) bool { return status >= 200 && status <= 299 }

// HTTPSender sends attempts over HTTP. Redirects are not followed: a receiver must answer 2xx
// at the registered URL itself.
type HTTPSender struct {
	client  *http.Client
	timeout time.Duration // the receiver's time to answer; an attempt past it is undelivered
}

var _ Sender = (*HTTPSender)(nil)

// NewHTTPSender returns a sender whose every attempt is bounded by Timeout and connects only
// to the addresses targets permits, checked in the dialer for every address a name resolves to
// (resolver; nil is the system's). No proxy is used: a proxy would dial on our behalf, past the
// check.
func NewHTTPSender(targets Targets, resolver *net.Resolver) *HTTPSender {
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           targets.dialer(resolver).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &HTTPSender{
		client: &http.Client{
			Transport:     transport,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		timeout: Timeout,
	}
}

// Send posts m.Body to m.URL with the delivery headers and a signature made at m.At.
func (s *HTTPSender) Send(ctx context.Context, m Message) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.URL, bytes.NewReader(m.Body))
	if err != nil {
		return 0, fmt.Errorf("webhook: build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set(webhook.HeaderEvent, m.Event)
	req.Header.Set(webhook.HeaderDelivery, m.DeliveryID)
	req.Header.Set(webhook.HeaderSignature, webhook.Sign(m.Secret, m.At, m.Body))
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("webhook: post %s: %w", m.Event, err)
	}
	defer resp.Body.Close()
	// The status decides the outcome; the answer's body is only drained so the connection can be
	// reused, and a body cut short changes nothing.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainLimit))
	return resp.StatusCode, nil
}
