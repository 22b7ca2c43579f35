package service

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// Account defaults applied when the operator does not choose.
const (
	DefaultServerLimit = 10
	DefaultOrderLimit  = 5
	DefaultLanguage    = "fa"
)

// keyHintLength is how many leading characters of a key GET /account shows.
const keyHintLength = 8

// keyBytes is the entropy of an API key (hex-encoded, so keys are twice as long).
const keyBytes = 32

// PaymentTypes are the accepted payment_type values (README: choices table).
func PaymentTypes() []string { return []string{"card", "bank_transfer", "crypto", "voucher", "manual"} }

// PaymentManual is the type of balances credited by the operator, such as an initial balance.
const PaymentManual = "manual"

// NewAccount is what the operator chooses for a new account; zero limits and an empty language
// take the defaults.
type NewAccount struct {
	Balance     money.Micros
	ServerLimit int
	OrderLimit  int
	Language    string
	// APIKey, when set, is the account's key instead of a fresh one: seed files and
	// `resellerd dev` fix keys so CI configurations can hold them (see checkChosenKey).
	APIKey string
}

// CreatedAccount is returned once: the key is never stored, only its hash.
type CreatedAccount struct {
	ID     int64
	APIKey string
}

// CreateAccount creates an account with a fresh key (or the one the operator chose). An initial balance is booked as a manual
// payment in the same transaction, so the ledger reconciles from the first moment.
func (s *Service) CreateAccount(ctx context.Context, in NewAccount) (CreatedAccount, error) {
	return s.CreateAccountBy(ctx, Audit{}, in)
}

// CreateAccountBy is CreateAccount run by an operator: the new account's settings (never its
// key) go to the audit trail with it.
func (s *Service) CreateAccountBy(ctx context.Context, who Audit, in NewAccount) (CreatedAccount, error) {
	if err := in.normalise(); err != nil {
		return CreatedAccount{}, err
	}
	key := in.APIKey
	if key == "" {
		var err error
		if key, err = s.newKey(); err != nil {
			return CreatedAccount{}, err
		}
	}
	hash, err := s.hashKey(key)
	if err != nil {
		return CreatedAccount{}, fmt.Errorf("service: create account: %w", err)
	}
	now := s.now()
	var created store.Account
	err = s.store.WithTx(ctx, func(tx store.Tx) error {
		var err error
		created, err = tx.CreateAccount(ctx, store.NewAccount{
			KeyHash: hash, KeyHint: key[:keyHintLength], KeyCreatedAt: now,
			ServerLimit: in.ServerLimit, OrderLimit: in.OrderLimit, Language: in.Language, CreatedAt: now,
		})
		if err != nil {
			return err
		}
		if err := s.tagKey(ctx, tx, created.ID, hash, key[:keyHintLength], now); err != nil {
			return err
		}
		if in.Balance != 0 {
			if err := s.credit(ctx, tx, created.ID, in.Balance, PaymentManual); err != nil {
				return err
			}
		}
		return s.auditAccount(ctx, tx, who, created.ID, nil, func(a store.Account) state { return accountState(a) })
	})
	if err != nil {
		return CreatedAccount{}, fmt.Errorf("service: create account: %w", err)
	}
	return CreatedAccount{ID: created.ID, APIKey: key}, nil
}

func (in *NewAccount) normalise() error {
	if in.Balance < 0 {
		return Validation("balance", "must not be negative")
	}
	if err := checkAmount("balance", in.Balance); err != nil {
		return err
	}
	if in.ServerLimit < 0 {
		return Validation("server_limit", "must not be negative")
	}
	if in.OrderLimit < 0 {
		return Validation("order_limit", "must not be negative")
	}
	if in.ServerLimit == 0 {
		in.ServerLimit = DefaultServerLimit
	}
	if in.OrderLimit == 0 {
		in.OrderLimit = DefaultOrderLimit
	}
	if in.Language == "" {
		in.Language = DefaultLanguage
	}
	if in.Language != "fa" && in.Language != "en" {
		return Validation("language", "must be fa or en")
	}
	if in.APIKey != "" {
		return checkChosenKey(in.APIKey)
	}
	return nil
}

// RotateKey issues a new key for the account; the old one stops working at once because only
// the new hash is kept.
func (s *Service) RotateKey(ctx context.Context, accountID int64) (string, error) {
	return s.RotateKeyBy(ctx, Audit{}, accountID)
}

// RotateKeyBy is RotateKey run by an operator; the trail shows the keys' hints, never a key.
func (s *Service) RotateKeyBy(ctx context.Context, who Audit, accountID int64) (string, error) {
	key, err := s.newKey()
	if err != nil {
		return "", err
	}
	hash, err := s.hashKey(key)
	if err != nil {
		return "", fmt.Errorf("service: rotate key: %w", err)
	}
	tag, err := s.tag(accountID, hash)
	if err != nil {
		return "", fmt.Errorf("service: rotate key: %w", err)
	}
	hint := func(a store.Account) state { return state{"api_key_hint": a.KeyHint} }
	err = s.store.WithTx(ctx, func(tx store.Tx) error {
		before, err := tx.Account(ctx, accountID)
		if err != nil {
			return err
		}
		if err := tx.SetAccountKey(ctx, accountID, hash, tag, key[:keyHintLength], s.now()); err != nil {
			return err
		}
		return s.auditAccount(ctx, tx, who, accountID, hint(before), hint)
	})
	if err != nil {
		return "", accountError(err, "rotate key")
	}
	return key, nil
}

// tag is the tag binding hash to the account id (Config.KeyTag); nil when hashes have none.
func (s *Service) tag(accountID int64, hash []byte) ([]byte, error) {
	if s.keyTag == nil {
		return nil, nil
	}
	return s.keyTag(accountID, hash)
}

// tagKey writes the tag of a new account's key hash once the account has its id, in the
// transaction that created it; nothing when hashes have no tag.
func (s *Service) tagKey(ctx context.Context, tx store.Tx, accountID int64, hash []byte, hint string, at time.Time) error {
	tag, err := s.tag(accountID, hash)
	if err != nil || tag == nil {
		return err
	}
	return tx.SetAccountKey(ctx, accountID, hash, tag, hint, at)
}

// TopUp credits amount to the wallet as a payment of paymentType ("" is manual).
func (s *Service) TopUp(ctx context.Context, accountID int64, amount money.Micros, paymentType string) error {
	return s.TopUpBy(ctx, Audit{}, accountID, amount, paymentType)
}

// TopUpBy is TopUp run by an operator; the trail shows the wallet before and after, with the
// amount and payment type.
func (s *Service) TopUpBy(ctx context.Context, who Audit, accountID int64, amount money.Micros, paymentType string) error {
	if amount <= 0 {
		return Validation("amount", "must be positive")
	}
	if paymentType == "" {
		paymentType = PaymentManual
	}
	if !slices.Contains(PaymentTypes(), paymentType) {
		return Validation("payment_type", "must be one of %v", PaymentTypes())
	}
	err := s.store.WithTx(ctx, func(tx store.Tx) error {
		before, err := tx.Account(ctx, accountID)
		if err != nil {
			return err
		}
		if err := s.credit(ctx, tx, accountID, amount, paymentType); err != nil {
			return err
		}
		return s.auditAccount(ctx, tx, who, accountID, walletState(before), func(a store.Account) state {
			st := walletState(a)
			st["amount_micros"], st["payment_type"] = int64(amount), paymentType
			return st
		})
	})
	if err != nil {
		return accountError(err, "top up")
	}
	return nil
}

// credit writes a payment, its ledger entry and the new balance in the caller's transaction,
// then pays any debt from it (and unlocks what the debt locked).
func (s *Service) credit(ctx context.Context, tx store.Tx, accountID int64, amount money.Micros, paymentType string) error {
	if err := checkCredit(ctx, tx, accountID, amount); err != nil {
		return err
	}
	now := s.now()
	p, err := tx.AddPayment(ctx, store.Payment{AccountID: accountID, Amount: amount, Type: paymentType, PaidAt: now})
	if err != nil {
		return err
	}
	_, err = tx.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: accountID, Amount: amount, Kind: store.LedgerPayment,
		Reference: "payment:" + strconv.FormatInt(p.ID, 10), CreatedAt: now})
	if err != nil {
		return err
	}
	return s.settleDebt(ctx, tx, accountID)
}

// SetFlag turns one of the account's switches (blocked, identity checked, apps enabled).
// It is UpdateAccount of that one switch, without an audit entry.
func (s *Service) SetFlag(ctx context.Context, accountID int64, flag store.Flag, value bool) error {
	var ch AccountChange
	switch flag {
	case store.FlagBlocked:
		ch.Blocked = &value
	case store.FlagKYCVerified:
		ch.Verified = &value
	case store.FlagAppsEnabled:
		ch.AppsEnabled = &value
	default:
		return Internal(fmt.Errorf("service: unknown account flag %d", flag))
	}
	return s.UpdateAccount(ctx, Audit{}, accountID, ch)
}

// Authenticate finds the account of an API key. The stored hash is compared with the key's hash
// in constant time; a blocked account is refused with 403.
func (s *Service) Authenticate(ctx context.Context, key string) (store.Account, error) {
	if key == "" {
		return store.Account{}, Unauthorized()
	}
	hash, err := s.hashKey(key)
	if err != nil {
		return store.Account{}, Internal(fmt.Errorf("service: authenticate: %w", err))
	}
	acct, err := s.store.AccountByKeyHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return store.Account{}, Unauthorized()
	}
	if err != nil {
		return store.Account{}, Internal(fmt.Errorf("service: authenticate: %w", err))
	}
	if subtle.ConstantTimeCompare(acct.KeyHash, hash) != 1 {
		return store.Account{}, Unauthorized()
	}
	// The hash must be this account's: a hash copied from another account's row (by whoever
	// writes the database, with a key of their own) does not match its tag.
	tag, err := s.tag(acct.ID, hash)
	if err != nil {
		return store.Account{}, Internal(fmt.Errorf("service: authenticate: %w", err))
	}
	if tag != nil && subtle.ConstantTimeCompare(acct.KeyTag, tag) != 1 {
		return store.Account{}, Unauthorized()
	}
	if acct.Blocked {
		return store.Account{}, Forbidden("account is blocked; contact support")
	}
	return acct, nil
}

func (s *Service) newKey() (string, error) {
	b := make([]byte, keyBytes)
	if _, err := io.ReadFull(s.random, b); err != nil {
		return "", Internal(fmt.Errorf("service: generate key: %w", err))
	}
	return hex.EncodeToString(b), nil
}

// hashKey is what the store keeps of key: its SHA-256 digest, keyed by the store's KeyHash (an
// HMAC under a secret the key file guards, once the database has a key), so that whoever can
// write the database but lacks the key file cannot make a hash that matches a key they chose.
func (s *Service) hashKey(key string) ([]byte, error) {
	var buf [128]byte // the key copied on the stack: a key of up to 128 bytes is hashed without allocating
	digest := sha256.Sum256(append(buf[:0], key...))
	if s.keyHash == nil {
		return digest[:], nil
	}
	return s.keyHash(digest[:])
}

// accountError maps a store error of an operation on one account.
func accountError(err error, op string) error {
	var se *Error
	switch {
	case errors.As(err, &se):
		return se
	case errors.Is(err, store.ErrNotFound):
		return NotFound("account")
	default:
		return Internal(fmt.Errorf("service: %s: %w", op, err))
	}
}
