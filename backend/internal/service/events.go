package service

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// Event names of the spec's catalogue that this half of the service emits.
const (
	EventOrderDeployed         = "order.deployed"
	EventOrderTimedOut         = "order.timed_out"
	EventInstanceCanceled      = "instance.canceled"
	EventInstancePasswordReset = "instance.password_reset"
	EventInstanceIPChanged     = "instance.ip_changed"
	EventInstanceResized       = "instance.resized"
)

// The data of each event, exactly as the spec's event catalogue lists it.
type (
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
)

// emit writes an event to the outbox in the caller's transaction, so the event exists exactly
// when the change it reports does.
func (s *Service) emit(ctx context.Context, tx store.Tx, accountID int64, name string, data any) error {
	id, err := s.randomHex("evt_", 12)
	if err != nil {
		return err
	}
	b, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("service: encode %s event: %w", name, err)
	}
	if err := tx.AddEvent(ctx, store.Event{ID: id, AccountID: accountID, Name: name, Data: b, CreatedAt: s.now()}); err != nil {
		return fmt.Errorf("service: emit %s: %w", name, err)
	}
	return nil
}

// randomHex returns prefix followed by n random bytes in hex.
func (s *Service) randomHex(prefix string, n int) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(s.random, b); err != nil {
		return "", fmt.Errorf("service: random: %w", err)
	}
	return prefix + hex.EncodeToString(b), nil
}
