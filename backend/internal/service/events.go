package service

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// Event names of the spec's catalogue.
const (
	EventPing                  = "ping"
	EventOrderDeployed         = "order.deployed"
	EventOrderTimedOut         = "order.timed_out"
	EventInstanceCanceled      = "instance.canceled"
	EventInstancePasswordReset = "instance.password_reset"
	EventInstanceIPChanged     = "instance.ip_changed"
	EventInstanceResized       = "instance.resized"
	EventSnapshotCreated       = "snapshot.created"
	EventSnapshotRestored      = "snapshot.restored"
	EventSnapshotDeleted       = "snapshot.deleted"
	EventBalanceLow            = "balance.low"
)

// EventNames lists every event the service sends, in the order of the spec's catalogue; the
// webhook settings show it as `events`.
func EventNames() []string {
	return []string{EventPing, EventOrderDeployed, EventOrderTimedOut, EventInstanceCanceled, EventInstancePasswordReset,
		EventInstanceIPChanged, EventInstanceResized, EventSnapshotCreated, EventSnapshotRestored, EventSnapshotDeleted,
		EventBalanceLow}
}

// The data of each event, exactly as the spec's event catalogue lists it.
type (
	pingData struct {
		AccountID int64 `json:"account_id"`
	}
	orderDeployedData struct {
		OrderID    int64        `json:"order_id"`
		Status     string       `json:"status"`
		InstanceID int64        `json:"instance_id"`
		ServerID   int64        `json:"server_id"`
		Price      money.Micros `json:"price"`
	}
	orderTimedOutData struct {
		OrderID    int64        `json:"order_id"`
		Status     string       `json:"status"`
		InstanceID *int64       `json:"instance_id"`
		ServerID   int64        `json:"server_id"`
		Price      money.Micros `json:"price"`
		Reference  string       `json:"reference"`
	}
	instanceCanceledData struct {
		InstanceID int64  `json:"instance_id"`
		Status     string `json:"status"`
		Reason     string `json:"reason"`
	}
	instancePasswordResetData struct {
		InstanceID int64 `json:"instance_id"`
	}
	instanceIPChangedData struct {
		InstanceID int64  `json:"instance_id"`
		IPv4       string `json:"ipv4"`
	}
	instanceResizedData struct {
		InstanceID int64        `json:"instance_id"`
		ServerID   int64        `json:"server_id"`
		Charged    money.Micros `json:"charged"`
	}
	snapshotEventData struct {
		SnapshotID int64 `json:"snapshot_id"`
		InstanceID int64 `json:"instance_id"`
	}
	snapshotDeletedData struct {
		SnapshotID int64 `json:"snapshot_id"`
	}
	balanceLowData struct {
		Balance               money.Micros `json:"balance"`
		HoursUntilBalanceZero float64      `json:"hours_until_balance_zero"`
	}
)

// emit writes an event to the outbox in the caller's transaction, so the event exists exactly
// when the change it reports does. When the account has a webhook, the event's delivery is
// written with it (README: events of an account without a webhook are not delivered).
func (s *Service) emit(ctx context.Context, tx store.Tx, accountID int64, name string, data any) error {
	e, err := s.newEvent(accountID, name, data)
	if err != nil {
		return err
	}
	return s.emitAll(ctx, tx, []store.Event{e})
}

// emitAll writes events as emit does, with one statement for the events and one for the
// webhooks of their accounts whatever their number, and a delivery for each event of an
// account with a webhook.
func (s *Service) emitAll(ctx context.Context, tx store.Tx, events []store.Event) error {
	if err := tx.AddEvents(ctx, events); err != nil {
		return fmt.Errorf("service: emit %d events: %w", len(events), err)
	}
	accounts := make([]int64, len(events))
	for i, e := range events {
		accounts[i] = e.AccountID
	}
	hooks, err := tx.Webhooks(ctx, accounts)
	if err != nil {
		return fmt.Errorf("service: emit %d events: %w", len(events), err)
	}
	var deliveries []store.Delivery
	for _, e := range events {
		if _, ok := hooks[e.AccountID]; !ok {
			continue
		}
		d, err := s.newDelivery(e)
		if err != nil {
			return err
		}
		deliveries = append(deliveries, d)
	}
	if err := tx.AddDeliveries(ctx, deliveries); err != nil {
		return fmt.Errorf("service: emit %d events: %w", len(events), err)
	}
	return nil
}

// newEvent builds an outbox row: a fresh id, the data as JSON and the time.
func (s *Service) newEvent(accountID int64, name string, data any) (store.Event, error) {
	id, err := s.randomHex("evt_", 12)
	if err != nil {
		return store.Event{}, err
	}
	b, err := json.Marshal(data)
	if err != nil {
		return store.Event{}, fmt.Errorf("service: encode %s event: %w", name, err)
	}
	return store.Event{ID: id, AccountID: accountID, Name: name, Data: b, CreatedAt: s.now()}, nil
}

// eventBody is the JSON body of a delivery (spec: Delivery).
type eventBody struct {
	ID        string          `json:"id"`
	Event     string          `json:"event"`
	CreatedAt string          `json:"created_at"`
	Data      json.RawMessage `json:"data"`
}

// newDelivery makes the pending delivery of e, due at once. Its body is encoded here, once, so
// every attempt sends the same bytes under a signature made for them.
func (s *Service) newDelivery(e store.Event) (store.Delivery, error) {
	id, err := s.randomHex("dlv_", 12)
	if err != nil {
		return store.Delivery{}, err
	}
	body, err := json.Marshal(eventBody{ID: e.ID, Event: e.Name, CreatedAt: e.CreatedAt.UTC().Format(time.RFC3339), Data: e.Data})
	if err != nil {
		return store.Delivery{}, fmt.Errorf("service: encode %s delivery: %w", e.Name, err)
	}
	return store.Delivery{ID: id, EventID: e.ID, AccountID: e.AccountID, Event: e.Name, Body: body,
		Status: store.DeliveryPending, NextAt: e.CreatedAt, CreatedAt: e.CreatedAt}, nil
}

// randomHex returns prefix followed by n random bytes in hex.
func (s *Service) randomHex(prefix string, n int) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(s.random, b); err != nil {
		return "", fmt.Errorf("service: random: %w", err)
	}
	return prefix + hex.EncodeToString(b), nil
}
