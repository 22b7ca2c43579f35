package resellerd

import (
	"context"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// NewAccount is what the operator chooses for a new account. Zero limits take 10 active servers
// and 5 orders at once; an empty language takes "fa".
type NewAccount struct {
	BalanceMicros int64
	ServerLimit   int
	OrderLimit    int
	Language      string
	APIKey        string // empty: a fresh key; else at least 32 visible characters (seed files, dev)
}

// CreatedAccount is shown once: only a SHA-256 hash of the key is stored.
type CreatedAccount struct {
	ID     int64  `json:"account_id"`
	APIKey string `json:"api_key"`
}

// CreateAccount creates an account with a new API key. A non-zero initial balance is recorded
// as a Payment of type "manual", so the ledger reconciles with the balance.
func (s *Server) CreateAccount(ctx context.Context, a NewAccount) (CreatedAccount, error) {
	created, err := s.svc.CreateAccount(ctx, service.NewAccount{
		Balance: money.Micros(a.BalanceMicros), ServerLimit: a.ServerLimit, OrderLimit: a.OrderLimit, Language: a.Language,
		APIKey: a.APIKey,
	})
	if err != nil {
		return CreatedAccount{}, fmt.Errorf("server: create account: %w", err)
	}
	return CreatedAccount{ID: created.ID, APIKey: created.APIKey}, nil
}

// RotateKey issues a new key for the account and returns it; the old key stops working at once.
func (s *Server) RotateKey(ctx context.Context, accountID int64) (string, error) {
	key, err := s.svc.RotateKey(ctx, accountID)
	if err != nil {
		return "", fmt.Errorf("server: rotate key of account %d: %w", accountID, err)
	}
	return key, nil
}

// TopUp credits amountMicros to the account's wallet as a Payment of paymentType ("" is
// "manual"; see the README for the accepted types).
func (s *Server) TopUp(ctx context.Context, accountID, amountMicros int64, paymentType string) error {
	if err := s.svc.TopUp(ctx, accountID, money.Micros(amountMicros), paymentType); err != nil {
		return fmt.Errorf("server: top up account %d: %w", accountID, err)
	}
	s.wake() // the wallet changed
	return nil
}

// SetBlocked blocks or unblocks an account; a blocked account answers 403 to every request.
func (s *Server) SetBlocked(ctx context.Context, accountID int64, blocked bool) error {
	return s.setFlag(ctx, accountID, store.FlagBlocked, blocked)
}

// SetKYCVerified records whether the account passed the identity check that opens datacenters
// with require_kyc.
func (s *Server) SetKYCVerified(ctx context.Context, accountID int64, verified bool) error {
	return s.setFlag(ctx, accountID, store.FlagKYCVerified, verified)
}

// SetAppsEnabled opens or closes one-click apps to the account (open by default).
func (s *Server) SetAppsEnabled(ctx context.Context, accountID int64, enabled bool) error {
	return s.setFlag(ctx, accountID, store.FlagAppsEnabled, enabled)
}

func (s *Server) setFlag(ctx context.Context, accountID int64, flag store.Flag, value bool) error {
	if err := s.svc.SetFlag(ctx, accountID, flag, value); err != nil {
		return fmt.Errorf("server: update account %d: %w", accountID, err)
	}
	s.wake()
	return nil
}
