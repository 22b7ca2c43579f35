package resellerd

import (
	"context"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// The operator's commands (`resellerd account list|show|block|unblock|verify|set`, `resellerd
// instance lock|unlock|set`, `resellerd audit`): each change goes through the service's own rules
// and appends its audit entry in the same transaction. Every replica sees a change at its next
// request, the cached keys included: the read cache learns of every commit (sqlstore's cache.go).

// Operator names an operator command for the audit trail: who runs it, which command ("account
// block"), and why.
type Operator struct {
	Name    string
	Command string
	Reason  string
}

func (o Operator) audit() service.Audit {
	return service.Audit{Operator: o.Name, Command: o.Command, Reason: o.Reason}
}

// AccountInfo is an account as the operator sees it (`resellerd account list`).
type AccountInfo struct {
	ID            int64
	BalanceMicros int64
	DebtMicros    int64
	Servers       int // active servers
	ServerLimit   int
	OrderLimit    int
	Blocked       bool
	Verified      bool
	AppsEnabled   bool
	Language      string
	KeyHint       string // the key's first characters, as GET /account shows them
}

func accountInfo(c store.AccountCounts) AccountInfo {
	a := c.Account
	return AccountInfo{ID: a.ID, BalanceMicros: int64(a.Balance), DebtMicros: int64(a.Debt), Servers: c.ActiveInstances,
		ServerLimit: a.ServerLimit, OrderLimit: a.OrderLimit, Blocked: a.Blocked, Verified: a.KYCVerified,
		AppsEnabled: a.AppsEnabled, Language: a.Language, KeyHint: a.KeyHint}
}

// PendingOrderInfo is a pending order of an account.
type PendingOrderInfo struct {
	ID          int64
	CreatedAt   time.Time
	PriceMicros int64
	Hostname    string
	Building    bool // its build was submitted; false: it waits for one (always, while blocked)
}

// LockInfo is a locked server of an account.
type LockInfo struct {
	InstanceID int64
	Reason     string
	LockedAt   time.Time
}

// AccountDetails is one account as `resellerd account show` has it.
type AccountDetails struct {
	AccountInfo
	PendingOrders []PendingOrderInfo
	Locks         []LockInfo
}

// accountsPage is how many accounts Accounts reads a statement.
const accountsPage = 500

// Accounts lists every account, lowest id first, a page of reads at a time.
func (s *Server) Accounts(ctx context.Context) ([]AccountInfo, error) {
	out := []AccountInfo{}
	for after := int64(0); ; {
		page, err := s.svc.Accounts(ctx, after, accountsPage)
		if err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		for _, c := range page {
			out = append(out, accountInfo(c))
			after = c.Account.ID
		}
		if len(page) < accountsPage {
			return out, nil
		}
	}
}

// Account reads one account with its pending orders and locked servers.
func (s *Server) Account(ctx context.Context, id int64) (AccountDetails, error) {
	d, err := s.svc.AccountDetail(ctx, id)
	if err != nil {
		return AccountDetails{}, fmt.Errorf("server: account %d: %w", id, err)
	}
	out := AccountDetails{AccountInfo: accountInfo(d.Counts), PendingOrders: []PendingOrderInfo{}, Locks: []LockInfo{}}
	for _, o := range d.PendingOrders {
		out.PendingOrders = append(out.PendingOrders, PendingOrderInfo{ID: o.ID, CreatedAt: o.CreatedAt,
			PriceMicros: int64(o.Price), Hostname: o.Hostname, Building: o.Ticket != ""})
	}
	for _, in := range d.Locked {
		out.Locks = append(out.Locks, LockInfo{InstanceID: in.ID, Reason: in.LockReason, LockedAt: in.LockedAt})
	}
	return out, nil
}

// AccountChange is what `resellerd account block|unblock|verify|set` changes; nil fields stay.
type AccountChange struct {
	Blocked     *bool
	Verified    *bool
	AppsEnabled *bool
	ServerLimit *int
	OrderLimit  *int
	Language    *string
}

// UpdateAccount applies ch to the account for op, with op's audit entry, in one transaction.
func (s *Server) UpdateAccount(ctx context.Context, op Operator, accountID int64, ch AccountChange) error {
	err := s.svc.UpdateAccount(ctx, op.audit(), accountID, service.AccountChange{Blocked: ch.Blocked,
		Verified: ch.Verified, AppsEnabled: ch.AppsEnabled, ServerLimit: ch.ServerLimit, OrderLimit: ch.OrderLimit,
		Language: ch.Language})
	if err != nil {
		return fmt.Errorf("server: update account %d: %w", accountID, err)
	}
	s.wake()
	return nil
}

// CreateAccountBy is CreateAccount for op, with op's audit entry.
func (s *Server) CreateAccountBy(ctx context.Context, op Operator, a NewAccount) (CreatedAccount, error) {
	created, err := s.svc.CreateAccountBy(ctx, op.audit(), service.NewAccount{
		Balance: money.Micros(a.BalanceMicros), ServerLimit: a.ServerLimit, OrderLimit: a.OrderLimit, Language: a.Language,
		APIKey: a.APIKey,
	})
	if err != nil {
		return CreatedAccount{}, fmt.Errorf("server: create account: %w", err)
	}
	return CreatedAccount{ID: created.ID, APIKey: created.APIKey}, nil
}

// RotateKeyBy is RotateKey for op, with op's audit entry (the keys' hints, never a key).
func (s *Server) RotateKeyBy(ctx context.Context, op Operator, accountID int64) (string, error) {
	key, err := s.svc.RotateKeyBy(ctx, op.audit(), accountID)
	if err != nil {
		return "", fmt.Errorf("server: rotate key of account %d: %w", accountID, err)
	}
	return key, nil
}

// TopUpBy is TopUp for op, with op's audit entry.
func (s *Server) TopUpBy(ctx context.Context, op Operator, accountID, amountMicros int64, paymentType string) error {
	if err := s.svc.TopUpBy(ctx, op.audit(), accountID, money.Micros(amountMicros), paymentType); err != nil {
		return fmt.Errorf("server: top up account %d: %w", accountID, err)
	}
	s.wake()
	return nil
}

// LockInstanceBy is LockInstance for op, for op.Reason, with op's audit entry.
func (s *Server) LockInstanceBy(ctx context.Context, op Operator, instanceID int64) error {
	if err := s.svc.LockInstanceBy(ctx, op.audit(), instanceID); err != nil {
		return fmt.Errorf("server: lock instance %d: %w", instanceID, err)
	}
	return nil
}

// UnlockInstanceBy is UnlockInstance for op, with op's audit entry.
func (s *Server) UnlockInstanceBy(ctx context.Context, op Operator, instanceID int64) error {
	if err := s.svc.UnlockInstanceBy(ctx, op.audit(), instanceID); err != nil {
		return fmt.Errorf("server: unlock instance %d: %w", instanceID, err)
	}
	return nil
}

// AuditEntry is one entry of the audit trail. Before and After are JSON objects of the fields
// the command changed (money in micro-USD under names ending in _micros); never a secret.
type AuditEntry struct {
	ID         int64
	At         time.Time
	Operator   string
	Command    string
	AccountID  int64 // 0: none
	InstanceID int64 // 0: none
	Reason     string
	Before     string
	After      string
}

// AuditFilter selects entries: of one account (0: all), at or after Since (zero: all).
type AuditFilter struct {
	AccountID int64
	Since     time.Time
}

// auditPage is how many entries AuditEntries reads a statement.
const auditPage = 500

// AuditEntries lists the entries f selects, oldest first, a page of reads at a time.
func (s *Server) AuditEntries(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	out := []AuditEntry{}
	sf := store.AuditFilter{AccountID: f.AccountID, Since: f.Since, Limit: auditPage}
	for {
		page, err := s.svc.AuditEntries(ctx, sf)
		if err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		for _, e := range page {
			out = append(out, AuditEntry{ID: e.ID, At: e.CreatedAt, Operator: e.Operator, Command: e.Command,
				AccountID: e.AccountID, InstanceID: e.InstanceID, Reason: e.Reason, Before: e.Before, After: e.After})
			sf.AfterID = e.ID
		}
		if len(page) < auditPage {
			return out, nil
		}
	}
}

// MaxTrafficIncludedGB is the largest allowance `resellerd instance set --traffic-included`
// takes.
const MaxTrafficIncludedGB = service.MaxIncludedGB

// TrafficChange is an operator's change of an instance's traffic allowance; nil leaves a field
// as it is.
type TrafficChange struct {
	IncludedGB   *int
	AllowOverage *bool
}

// InstanceTraffic is an instance's traffic as GET /instances/{id}/traffic shows it.
type InstanceTraffic struct {
	InstanceID   int64
	Enabled      bool
	IncludedGB   int
	UsedGB       int
	OverageGB    int
	AllowOverage bool
	CycleStart   time.Time
}

// SetInstanceTrafficBy sets an active instance's traffic allowance for op (`resellerd instance
// set`), with op's audit entry, and returns its traffic as it then stands: the traffic counted
// already is settled against the new allowance at once (a server locked for traffic whose new
// allowance covers it is unlocked; one now over it is locked).
func (s *Server) SetInstanceTrafficBy(ctx context.Context, op Operator, instanceID int64, ch TrafficChange) (InstanceTraffic, error) {
	t, err := s.svc.SetTrafficBy(ctx, op.audit(), instanceID, service.TrafficChange{IncludedGB: ch.IncludedGB, AllowOverage: ch.AllowOverage})
	if err != nil {
		return InstanceTraffic{}, fmt.Errorf("server: set traffic of instance %d: %w", instanceID, err)
	}
	return InstanceTraffic{InstanceID: instanceID, Enabled: t.Enabled, IncludedGB: t.IncludedGB, UsedGB: t.UsedGB,
		OverageGB: t.OverageGB, AllowOverage: t.AllowOverage, CycleStart: t.CycleStart}, nil
}
