package store

import (
	"context"
	"time"
)

// Event is a row of the outbox: a change the account's webhook is told about.
type Event struct {
	ID        string
	AccountID int64
	Name      string
	Data      []byte // JSON object
	CreatedAt time.Time
}

// EventQueries are the reads and writes of the outbox.
type EventQueries interface {
	// AddEvent writes an event to the outbox.
	AddEvent(ctx context.Context, e Event) error
	// Events lists the account's events, oldest first.
	Events(ctx context.Context, accountID int64) ([]Event, error)
}
