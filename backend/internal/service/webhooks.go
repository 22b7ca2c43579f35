package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/delivery"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	webhookrule "github.com/reseller/terraform-provider-reseller/webhook"
)

// maxPingsInFlight bounds the test pings sent at once; beyond it POST /account/webhook/test is
// 503, so clients cannot make the relay hold many slow connections.
const maxPingsInFlight = 8

// WebhookSettings is what GET /account/webhook shows; the secret is never part of it.
type WebhookSettings struct {
	URL        string // "" when none is registered
	Configured bool
	Events     []string
}

// PingResult is the outcome of a test ping.
type PingResult struct {
	Delivered bool
	Status    int // 0 when the endpoint did not answer
}

func settingsOf(w *store.Webhook) WebhookSettings {
	out := WebhookSettings{Events: EventNames()}
	if w != nil {
		out.URL, out.Configured = w.URL, true
	}
	return out
}

// Webhook returns the account's webhook settings.
func (s *Service) Webhook(ctx context.Context, acct store.Account) (WebhookSettings, error) {
	w, err := s.store.Webhook(ctx, acct.ID)
	if errors.Is(err, store.ErrNotFound) {
		return settingsOf(nil), nil
	}
	if err != nil {
		return WebhookSettings{}, Internal(fmt.Errorf("service: read webhook: %w", err))
	}
	return settingsOf(&w), nil
}

// WebhookConfigured reports whether the account has a webhook (GET /account).
func (s *Service) WebhookConfigured(ctx context.Context, acct store.Account) (bool, error) {
	settings, err := s.Webhook(ctx, acct)
	return settings.Configured, err
}

// WebhookRequest is the body of PUT /account/webhook; nil fields were not sent.
type WebhookRequest struct {
	URL    *string
	Secret *string
}

// SetWebhook registers the account's webhook, replacing any previous one. Deliveries still
// pending go to the new URL under the new secret.
func (s *Service) SetWebhook(ctx context.Context, acct store.Account, req WebhookRequest) (WebhookSettings, error) {
	if req.URL == nil {
		return WebhookSettings{}, Validation("url", "is required")
	}
	if err := s.checkWebhookURL(*req.URL); err != nil {
		return WebhookSettings{}, err
	}
	if req.Secret == nil {
		return WebhookSettings{}, Validation("secret", "is required")
	}
	if err := webhookrule.CheckSecret(*req.Secret); err != nil {
		return WebhookSettings{}, Validation("secret", "%v", err)
	}
	w := store.Webhook{AccountID: acct.ID, URL: *req.URL, Secret: *req.Secret, UpdatedAt: s.now()}
	if err := s.store.SetWebhook(ctx, w); err != nil {
		return WebhookSettings{}, Internal(fmt.Errorf("service: set webhook: %w", err))
	}
	return settingsOf(&w), nil
}

// DeleteWebhook removes the account's webhook; deliveries still pending are skipped. Removing
// none is not an error.
func (s *Service) DeleteWebhook(ctx context.Context, acct store.Account) (WebhookSettings, error) {
	if err := s.store.DeleteWebhook(ctx, acct.ID); err != nil {
		return WebhookSettings{}, Internal(fmt.Errorf("service: delete webhook: %w", err))
	}
	return settingsOf(nil), nil
}

// checkWebhookURL applies the webhook URL rule of the public webhook package (https://, and with
// allowHTTP http:// on a loopback host), then refuses a host that is a literal internal address
// or localhost (delivery.Targets), as a validation_error naming url. A name is checked when it
// is dialled, for every address it resolves to.
func (s *Service) checkWebhookURL(raw string) error {
	if err := webhookrule.CheckURL(raw, s.allowHTTP); err != nil {
		return Validation("url", "%v", err)
	}
	u, err := url.Parse(raw)
	if err != nil { // CheckURL parsed it already
		return Validation("url", "%v", err)
	}
	if err := s.targets.CheckHost(u.Hostname()); err != nil {
		return Validation("url", "%v", err)
	}
	return nil
}

// TestWebhook sends one ping to the registered endpoint at once, without retries, and reports
// whether it was delivered. It is 400 when no webhook is registered and 503 when too many pings
// are in flight. The ping is recorded in the outbox with its delivery, already finished, so
// the delivery worker never repeats it.
func (s *Service) TestWebhook(ctx context.Context, acct store.Account) (PingResult, error) {
	w, err := s.store.Webhook(ctx, acct.ID)
	if errors.Is(err, store.ErrNotFound) {
		return PingResult{}, Validation("webhook", "no webhook is registered; register one with PUT /account/webhook first")
	}
	if err != nil {
		return PingResult{}, Internal(fmt.Errorf("service: read webhook: %w", err))
	}
	select {
	case s.pings <- struct{}{}:
		defer func() { <-s.pings }()
	default:
		return PingResult{}, Unavailable("the webhook relay is busy; retry shortly")
	}
	e, err := s.newEvent(acct.ID, EventPing, pingData{AccountID: acct.ID})
	if err != nil {
		return PingResult{}, Internal(err)
	}
	d, err := s.newDelivery(e)
	if err != nil {
		return PingResult{}, Internal(err)
	}
	d = s.attemptOnce(ctx, w, d)
	if d.Status == store.DeliveryPending { // a ping is never retried
		d.Status, d.FinishedAt = store.DeliveryFailed, s.now()
	}
	// Recorded even if the client has gone away meanwhile: the ping was sent.
	bg := context.WithoutCancel(ctx)
	err = s.store.WithTx(bg, func(tx store.Tx) error {
		if err := tx.AddEvent(bg, e); err != nil {
			return err
		}
		return tx.AddDelivery(bg, d)
	})
	if err != nil {
		return PingResult{}, Internal(fmt.Errorf("service: record ping: %w", err))
	}
	return PingResult{Delivered: d.Status == store.DeliveryDelivered, Status: d.LastStatus}, nil
}

// attemptOnce sends d to w once, now, and returns d with the attempt recorded: delivered on a
// 2xx, otherwise still pending (the caller decides whether it is retried).
func (s *Service) attemptOnce(ctx context.Context, w store.Webhook, d store.Delivery) store.Delivery {
	at, started := s.now(), time.Now()
	status, err := s.sender.Send(ctx, delivery.Message{URL: w.URL, Secret: w.Secret, Event: d.Event, DeliveryID: d.ID,
		Body: d.Body, At: at})
	s.observeAttempt(w, d, at, time.Since(started), status, err)
	d.Attempts++
	d.LastStatus, d.LastError = status, ""
	switch {
	case errors.Is(err, delivery.ErrRefusedTarget):
		s.logRefusedTarget(ctx, d, w.URL)
		d.LastError = deliveryError(err, w.URL)
	case err != nil:
		d.LastError = deliveryError(err, w.URL)
	case delivery.Delivered(status):
		d.Status, d.FinishedAt = store.DeliveryDelivered, at
	default:
		d.LastError = fmt.Sprintf("the endpoint answered %d", status)
	}
	return d
}

// deliveryError is the text of a failed attempt as the delivery stores it (last_error, which
// /_dev/overview and the database show): err's, with every URL in it, the one a *url.Error
// names (the webhook's, or a redirect's) and the webhook's own, cut to its scheme, host and
// path. A URL's query and user information are the tenant's and may carry a token.
func deliveryError(err error, rawURL string) string {
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		clean := *ue
		clean.URL = withoutCredentials(ue.URL)
		msg = strings.ReplaceAll(msg, ue.Error(), clean.Error())
	}
	if rawURL != "" {
		msg = strings.ReplaceAll(msg, rawURL, withoutCredentials(rawURL))
	}
	return msg
}

// withoutCredentials is rawURL without its user information, query and fragment; a URL that
// does not parse is named by a placeholder, since its parts cannot be told apart.
func withoutCredentials(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(a URL that does not parse)"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

// logRefusedTarget tells the operator that an attempt was refused because its URL's host is, or
// resolves to, an internal address: a tenant probing the network, or a receiver the operator
// may admit with --webhook-allow-cidr. Only the host is logged: a URL's path and query are the
// tenant's.
func (s *Service) logRefusedTarget(ctx context.Context, d store.Delivery, rawURL string) {
	host := ""
	if u, perr := url.Parse(rawURL); perr == nil {
		host = u.Host
	}
	s.log.WarnContext(ctx, "webhook target refused", slog.Int64("account_id", d.AccountID),
		slog.String("delivery_id", d.ID), slog.String("host", host), slog.String("reason", delivery.ErrRefusedTarget.Error()))
}
