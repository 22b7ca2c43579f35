package store

import (
	"context"
	"time"
)

// Webhook is an account's webhook registration. Secret signs the deliveries; it is kept (sealed
// when the store has a key, see package secrets) because signing needs it, and it is never shown.
type Webhook struct {
	AccountID int64
	URL       string
	Secret    string
	UpdatedAt time.Time
}

// Delivery is the delivery of one outbox event to the account's webhook. Body is the exact
// request body, fixed when the event was written.
type Delivery struct {
	ID         string
	EventID    string
	AccountID  int64
	Event      string
	Body       []byte
	Status     string
	Attempts   int
	NextAt     time.Time // when the next attempt is due
	LastStatus int       // HTTP status of the last attempt; 0 when there was no answer
	LastError  string
	CreatedAt  time.Time
	FinishedAt time.Time // zero while pending
}

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"  // every attempt failed
	DeliverySkipped   = "skipped" // the webhook was removed before the delivery was made
)

// WebhookQueries are the reads and writes of webhook registrations and deliveries.
type WebhookQueries interface {
	// Webhook returns the account's registration; ErrNotFound when there is none.
	Webhook(ctx context.Context, accountID int64) (Webhook, error)
	// SetWebhook registers w, replacing the account's previous registration.
	SetWebhook(ctx context.Context, w Webhook) error
	// DeleteWebhook removes the account's registration; removing none is not an error.
	DeleteWebhook(ctx context.Context, accountID int64) error

	// AddDelivery writes a pending delivery; ErrConflict when one with its id exists.
	AddDelivery(ctx context.Context, d Delivery) error
	// DueDeliveries lists up to limit pending deliveries due at now that no worker holds,
	// earliest first.
	DueDeliveries(ctx context.Context, now time.Time, limit int) ([]Delivery, error)
	// DueDeliveriesExcept is DueDeliveries without the deliveries of the accounts in skip (those
	// with as many attempts in flight as they may have), so one account's backlog cannot fill
	// the batch and hide the others' deliveries.
	DueDeliveriesExcept(ctx context.Context, now time.Time, limit int, skip []int64) ([]Delivery, error)
	// ClaimDelivery takes the lease of a pending delivery due at now until the given time; it
	// reports false when it is no longer pending or due, or another worker holds it.
	ClaimDelivery(ctx context.Context, id string, now, until time.Time) (bool, error)
	// UpdateDelivery records the outcome of an attempt and drops the lease.
	UpdateDelivery(ctx context.Context, d Delivery) error
	// Deliveries lists the account's deliveries, oldest first.
	Deliveries(ctx context.Context, accountID int64) ([]Delivery, error)
}
