package service

import (
	"context"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// The operator's side of accounts (`resellerd account list|show|block|unblock|verify|set`):
// what they read, and UpdateAccount, the one path every change of an account's switches and
// settings takes, the test hooks' SetFlag included.

// AccountChange is what an operator changes on an account; nil fields stay as they are.
type AccountChange struct {
	Blocked     *bool // a blocked account answers 403 forbidden, and its orders not yet built wait
	Verified    *bool // identity checked: datacenters with require_kyc take its orders
	AppsEnabled *bool // one-click apps may be ordered and installed
	ServerLimit *int  // active servers and pending orders at most (server_limit)
	OrderLimit  *int  // orders provisioning at once at most (api_order_limit)
	Language    *string
}

// check refuses a change that names nothing or holds a value the account cannot take, naming
// the field.
func (ch AccountChange) check() error {
	switch {
	case ch.ServerLimit != nil && *ch.ServerLimit < 0:
		return Validation("server_limit", "must not be negative")
	case ch.OrderLimit != nil && *ch.OrderLimit < 0:
		return Validation("order_limit", "must not be negative")
	case ch.Language != nil && *ch.Language != "fa" && *ch.Language != "en":
		return Validation("language", "must be fa or en")
	case ch.Blocked == nil && ch.Verified == nil && ch.AppsEnabled == nil && !ch.changesSettings():
		return Validation("change", "names nothing to change")
	}
	return nil
}

// changesSettings reports whether the change touches the limits or the language.
func (ch AccountChange) changesSettings() bool {
	return ch.ServerLimit != nil || ch.OrderLimit != nil || ch.Language != nil
}

// UpdateAccount applies ch to the account in one transaction, with who's audit entry showing
// the fields ch names before and after. Every replica sees the change at its next request: the
// read cache of accounts learns of every commit to the database (sqlstore's cache.go).
func (s *Service) UpdateAccount(ctx context.Context, who Audit, accountID int64, ch AccountChange) error {
	if err := ch.check(); err != nil {
		return err
	}
	err := s.store.WithTx(ctx, func(tx store.Tx) error {
		before, err := tx.Account(ctx, accountID)
		if err != nil {
			return err
		}
		if err := applyFlags(ctx, tx, accountID, ch); err != nil {
			return err
		}
		if ch.changesSettings() {
			if err := tx.SetAccountSettings(ctx, accountID, ch.settings(before)); err != nil {
				return err
			}
		}
		show := func(a store.Account) state { return ch.fields(accountState(a)) }
		return s.auditAccount(ctx, tx, who, accountID, show(before), show)
	})
	if err != nil {
		return accountError(err, "update account")
	}
	return nil
}

// applyFlags turns the switches ch names.
func applyFlags(ctx context.Context, tx store.Tx, accountID int64, ch AccountChange) error {
	flags := []struct {
		flag  store.Flag
		value *bool
	}{{store.FlagBlocked, ch.Blocked}, {store.FlagKYCVerified, ch.Verified}, {store.FlagAppsEnabled, ch.AppsEnabled}}
	for _, f := range flags {
		if f.value == nil {
			continue
		}
		if err := tx.SetAccountFlag(ctx, accountID, f.flag, *f.value); err != nil {
			return err
		}
	}
	return nil
}

// settings are a's settings with ch's applied.
func (ch AccountChange) settings(a store.Account) store.AccountSettings {
	out := store.AccountSettings{ServerLimit: a.ServerLimit, OrderLimit: a.OrderLimit, Language: a.Language}
	if ch.ServerLimit != nil {
		out.ServerLimit = *ch.ServerLimit
	}
	if ch.OrderLimit != nil {
		out.OrderLimit = *ch.OrderLimit
	}
	if ch.Language != nil {
		out.Language = *ch.Language
	}
	return out
}

// fields is the part of st that ch names.
func (ch AccountChange) fields(st state) state {
	out := state{}
	for name, named := range map[string]bool{
		"blocked": ch.Blocked != nil, "verified": ch.Verified != nil, "apps_enabled": ch.AppsEnabled != nil,
		"server_limit": ch.ServerLimit != nil, "api_order_limit": ch.OrderLimit != nil, "language": ch.Language != nil,
	} {
		if named {
			out[name] = st[name]
		}
	}
	return out
}

// accountState is an account as the trail shows it: its settings, switches and wallet, and
// its key's hint (never the key or its hash).
func accountState(a store.Account) state {
	st := walletState(a)
	st["server_limit"], st["api_order_limit"], st["language"] = a.ServerLimit, a.OrderLimit, a.Language
	st["blocked"], st["verified"], st["apps_enabled"] = a.Blocked, a.KYCVerified, a.AppsEnabled
	st["api_key_hint"] = a.KeyHint
	return st
}

// walletState is an account's balance and debt.
func walletState(a store.Account) state {
	return state{"balance_micros": int64(a.Balance), "debt_micros": int64(a.Debt)}
}

// auditAccount reads the account as the transaction left it and appends who's entry about it:
// before as given, after as show has it.
func (s *Service) auditAccount(ctx context.Context, tx store.Tx, who Audit, accountID int64, before state,
	show func(store.Account) state) error {
	if !who.enabled() {
		return nil
	}
	after, err := tx.Account(ctx, accountID)
	if err != nil {
		return err
	}
	return s.audit(ctx, tx, who, auditTarget{accountID: accountID}, before, show(after))
}

// Accounts lists up to limit accounts with ids above afterID, lowest first, with their counts.
func (s *Service) Accounts(ctx context.Context, afterID int64, limit int) ([]store.AccountCounts, error) {
	accts, err := s.store.AccountsAfter(ctx, afterID, limit)
	if err != nil {
		return nil, fmt.Errorf("service: accounts: %w", err)
	}
	return accts, nil
}

// AccountDetail is one account as `resellerd account show` has it: the account and its counts,
// its pending orders, and its locked servers.
type AccountDetail struct {
	Counts        store.AccountCounts
	PendingOrders []store.Order
	Locked        []store.Instance
}

// detailListLimit bounds the pending orders an AccountDetail lists (at most api_order_limit are
// pending, so only an absurd limit reaches it).
const detailListLimit = 1000

// AccountDetail reads the account of id with its pending orders and locked servers.
func (s *Service) AccountDetail(ctx context.Context, id int64) (AccountDetail, error) {
	c, err := s.store.AccountCounts(ctx, id)
	if err != nil {
		return AccountDetail{}, accountError(err, "read account")
	}
	d := AccountDetail{Counts: c}
	if d.PendingOrders, err = s.store.AccountPendingOrders(ctx, id, detailListLimit); err != nil {
		return AccountDetail{}, fmt.Errorf("service: pending orders of account %d: %w", id, err)
	}
	active, _, err := s.store.Instances(ctx, id, true, store.All)
	if err != nil {
		return AccountDetail{}, fmt.Errorf("service: servers of account %d: %w", id, err)
	}
	d.Locked = []store.Instance{}
	for _, in := range active {
		if in.Locked {
			d.Locked = append(d.Locked, in)
		}
	}
	return d, nil
}
