package service

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// OrderRetention is how long a finished order stays readable (spec: 24 hours, then 404).
const OrderRetention = 24 * time.Hour

// CreatedOrder is the answer to POST /instances: the order, and whether it is the replay of an
// earlier request with the same Idempotency-Key.
type CreatedOrder struct {
	Order  store.Order
	Replay bool
}

// CreateOrder places an order. With an Idempotency-Key it follows the spec's five rules: the
// same key and body replay the first order; another body is 422; a repeat while the first is
// unfinished is 409; keys are kept 24 hours; a failed request records nothing, so its key can
// be used again once the cause is fixed.
func (s *Service) CreateOrder(ctx context.Context, acct store.Account, req OrderRequest, idem Idempotency) (CreatedOrder, error) {
	if idem.Key == "" {
		spec, err := s.validateOrder(ctx, acct, req)
		if err != nil {
			return CreatedOrder{}, err
		}
		return s.placeOrder(ctx, spec.order(acct.ID, s.now()))
	}
	if err := checkIdempotencyKey(idem.Key); err != nil {
		return CreatedOrder{}, err
	}
	hash, err := canonicalHash(idem.Body)
	if err != nil {
		return CreatedOrder{}, err
	}
	release, ok := s.inflight.acquire(acct.ID, idem.Key)
	if !ok {
		return CreatedOrder{}, Conflict(CodeIdempotencyInProgress, "the first request with this Idempotency-Key is still being processed; retry shortly")
	}
	defer release()
	return s.placeKeyedOrder(ctx, acct, req, store.IdempotencyKey{AccountID: acct.ID, Key: idem.Key, RequestHash: hash})
}

// placeKeyedOrder validates the body and places its order with key, in one step of the store
// (on PostgreSQL one statement), as if the key were new, which it nearly always is. The store
// writes nothing when the account has a record of the key, and a replay must answer with the
// first order even when the rules would refuse the body now (it is invalid, or the wallet has
// been spent since), so a keyed request that fails looks its key up, and replays the order
// found. A record found expired (housekeeping has not purged it yet) is taken over
// (placeOverExpiredKey).
func (s *Service) placeKeyedOrder(ctx context.Context, acct store.Account, req OrderRequest, key store.IdempotencyKey) (CreatedOrder, error) {
	var o store.Order
	var c store.AccountCounts
	spec, err := s.validateOrder(ctx, acct, req)
	if err == nil {
		o = spec.order(acct.ID, s.now())
		var placed store.Order
		if placed, c, err = s.store.PlaceOrder(ctx, o, &key); err == nil {
			return CreatedOrder{Order: placed}, nil
		}
	}
	if prev, found, rerr := s.replay(ctx, acct.ID, key.Key, key.RequestHash); rerr != nil || found {
		return prev, rerr
	}
	if errors.Is(err, store.ErrConflict) {
		return s.placeOverExpiredKey(ctx, o, key)
	}
	return CreatedOrder{}, orderRefusal(err, c, o.Price)
}

// replay answers a key already used: the first order for the same body, 422 for another body.
// found is false for an unknown or expired key.
func (s *Service) replay(ctx context.Context, accountID int64, key, hash string) (CreatedOrder, bool, error) {
	k, err := s.store.IdempotencyKey(ctx, accountID, key)
	if errors.Is(err, store.ErrNotFound) {
		return CreatedOrder{}, false, nil
	}
	if err != nil {
		return CreatedOrder{}, false, Internal(fmt.Errorf("service: read idempotency key: %w", err))
	}
	if !s.now().Before(k.CreatedAt.Add(IdempotencyRetention)) {
		return CreatedOrder{}, false, nil
	}
	if k.RequestHash != hash {
		return CreatedOrder{}, false, &Error{Kind: KindKeyReused, Code: CodeIdempotencyKeyReused,
			Message: "this Idempotency-Key was used with a different body; use a new key for a new order"}
	}
	o, err := s.store.Order(ctx, accountID, k.OrderID)
	if err != nil {
		return CreatedOrder{}, false, Internal(fmt.Errorf("service: read replayed order: %w", err))
	}
	return CreatedOrder{Order: o, Replay: true}, true, nil
}

// placeOrder writes the order if the account's limits and wallet admit it, in one step of the
// store (on PostgreSQL one statement and one round trip). The store checks and writes under
// the account's lock (store.PlaceOrder), so concurrent orders, from any replica, cannot
// together pass a limit or overdraw the wallet.
func (s *Service) placeOrder(ctx context.Context, o store.Order) (CreatedOrder, error) {
	placed, c, err := s.store.PlaceOrder(ctx, o, nil)
	if err != nil {
		return CreatedOrder{}, orderRefusal(err, c, o.Price)
	}
	return CreatedOrder{Order: placed}, nil
}

// placeOverExpiredKey writes the order and key's record, in place of the account's expired
// record of the same key, in one transaction. Expired keys need no purge here (housekeeping
// purges them): AddIdempotencyKey overwrites one, so no statement of an order touches another
// account's rows.
func (s *Service) placeOverExpiredKey(ctx context.Context, o store.Order, key store.IdempotencyKey) (CreatedOrder, error) {
	var placed store.Order
	var c store.AccountCounts
	err := s.store.WithTx(ctx, func(tx store.Tx) error {
		var err error
		if placed, c, err = tx.PlaceOrder(ctx, o, nil); err != nil {
			return err
		}
		key.OrderID, key.CreatedAt = placed.ID, o.CreatedAt
		return tx.AddIdempotencyKey(ctx, key, o.CreatedAt.Add(-IdempotencyRetention))
	})
	if errors.Is(err, store.ErrConflict) { // another replica's request took the key meanwhile
		return CreatedOrder{}, Conflict(CodeIdempotencyInProgress, "another request with this Idempotency-Key is being processed; retry shortly")
	}
	if err != nil {
		return CreatedOrder{}, orderRefusal(err, c, o.Price)
	}
	return CreatedOrder{Order: placed}, nil
}

// orderRefusal is the error of a failed PlaceOrder: the rule that refused the order, worded
// from the counts it was checked against, or err itself.
func orderRefusal(err error, c store.AccountCounts, price money.Micros) error {
	if !errors.Is(err, store.ErrNotAdmitted) {
		return asServiceError(err, "place order")
	}
	if err := checkOrderLimits(c); err != nil {
		return err
	}
	if err := checkAvailable(c, price); err != nil {
		return err
	}
	return Internal(fmt.Errorf("service: the store refused an order its counts admit: %w", err))
}

// order is the row of a new pending order.
func (spec orderSpec) order(accountID int64, now time.Time) store.Order {
	features := make([]int64, 0, len(spec.features))
	for _, f := range spec.features {
		features = append(features, f.ID)
	}
	return store.Order{
		AccountID: accountID, Status: store.OrderPending, Price: spec.price, CreatedAt: now,
		PlanID: spec.plan.ID, TemplateID: spec.template.ID, SnapshotID: spec.snapshotID, Hostname: spec.hostname,
		Features: features, Apps: appIDs(spec.apps), AppInputs: spec.inputs,
	}
}

// checkOrderLimits enforces server_limit (active instances plus orders that will become
// instances) and api_order_limit (orders provisioning at once).
func checkOrderLimits(c store.AccountCounts) error {
	acct, totals, active := c.Account, c.Orders, c.ActiveInstances
	if c.AtServerLimit() {
		return Conflict(CodeServerLimitReached, "server_limit reached: %d active servers and %d orders provisioning, limit %d",
			active, totals.Pending, acct.ServerLimit)
	}
	if c.AtOrderLimit() {
		return Conflict(CodeOrderLimitReached, "api_order_limit reached: %d orders provisioning, limit %d; retry when one finishes",
			totals.Pending, acct.OrderLimit)
	}
	return nil
}

// checkFunds refuses a charge that balance minus reserved cannot cover (spec: available).
func (s *Service) checkFunds(ctx context.Context, tx store.Tx, accountID int64, need money.Micros) error {
	c, err := tx.AccountCounts(ctx, accountID)
	if err != nil {
		return err
	}
	return checkAvailable(c, need)
}

// checkAvailable refuses need when the balance minus what the pending orders reserve is less.
func checkAvailable(c store.AccountCounts, need money.Micros) error {
	if available := c.Available(); available < need {
		return InsufficientBalance(need, available)
	}
	return nil
}

// OrderView is an order with the instance it built, once deployed.
type OrderView struct {
	store.Order
	Server *InstanceDetail
}

// Order returns one order of the account. A finished order is readable for OrderRetention.
func (s *Service) Order(ctx context.Context, acct store.Account, id int64) (OrderView, error) {
	o, err := s.store.Order(ctx, acct.ID, id)
	if err != nil {
		return OrderView{}, notFoundOr(err, "order", "read order")
	}
	if o.Status != store.OrderPending && !o.FinishedAt.After(s.now().Add(-OrderRetention)) {
		return OrderView{}, NotFound("order")
	}
	return s.orderView(ctx, o)
}

// orderChunk is how many orders EachRecentOrder reads and hands over at a time.
const orderChunk = 500

// EachRecentOrder calls fn with the account's orders pending or finished in the last 24 hours,
// newest first, orderChunk at a time, so that GET /orders holds one chunk in memory however many
// orders there are. An error of fn stops the reading and is returned as it is.
func (s *Service) EachRecentOrder(ctx context.Context, acct store.Account, fn func([]OrderView) error) error {
	since := s.now().Add(-OrderRetention)
	before := int64(math.MaxInt64)
	for {
		orders, err := s.store.RecentOrders(ctx, acct.ID, since, before, orderChunk)
		if err != nil {
			return Internal(fmt.Errorf("service: list orders: %w", err))
		}
		views, err := s.orderViews(ctx, acct.ID, orders)
		if err != nil {
			return err
		}
		if err := fn(views); err != nil {
			return err
		}
		if len(orders) < orderChunk {
			return nil
		}
		before = orders[len(orders)-1].ID
	}
}

// orderViews joins a chunk of orders to their servers, read in two queries for the whole chunk.
func (s *Service) orderViews(ctx context.Context, accountID int64, orders []store.Order) ([]OrderView, error) {
	var ids []int64
	for _, o := range orders {
		if o.InstanceID != 0 {
			ids = append(ids, o.InstanceID)
		}
	}
	instances, installs, err := s.store.OrderInstances(ctx, accountID, ids)
	if err != nil {
		return nil, Internal(fmt.Errorf("service: servers of orders: %w", err))
	}
	views := make([]OrderView, 0, len(orders))
	for _, o := range orders {
		v := OrderView{Order: o}
		if in, ok := instances[o.InstanceID]; ok {
			d := s.describeWith(in, s.appRecordsOf(installs[in.ID]))
			v.Server = &d
		}
		views = append(views, v)
	}
	return views, nil
}

func (s *Service) orderView(ctx context.Context, o store.Order) (OrderView, error) {
	v := OrderView{Order: o}
	if o.InstanceID == 0 {
		return v, nil
	}
	in, err := s.store.Instance(ctx, o.AccountID, o.InstanceID)
	if err != nil {
		return OrderView{}, Internal(fmt.Errorf("service: instance of order %d: %w", o.ID, err))
	}
	d, err := s.describe(ctx, in, true)
	if err != nil {
		return OrderView{}, err
	}
	v.Server = &d
	return v, nil
}

// orderApps returns the catalogue entries of an order's apps, in install order.
func (s *Service) orderApps(o store.Order) []catalog.App {
	out := make([]catalog.App, 0, len(o.Apps))
	for _, id := range o.Apps {
		if a, ok := s.catalog.App(id); ok {
			out = append(out, a)
		}
	}
	return out
}

// notFoundOr maps ErrNotFound to a 404 of what, and anything else to Internal.
func notFoundOr(err error, what, op string) error {
	if errors.Is(err, store.ErrNotFound) {
		return NotFound(what)
	}
	return Internal(fmt.Errorf("service: %s: %w", op, err))
}

// asServiceError keeps an *Error (a rule said no) and hides anything else behind Internal.
func asServiceError(err error, op string) error {
	if err == nil {
		return nil
	}
	var se *Error
	if errors.As(err, &se) {
		return se
	}
	return Internal(fmt.Errorf("service: %s: %w", op, err))
}

// orderRef is the ledger reference of an order's first charge.
func orderRef(id int64) string { return "order:" + strconv.FormatInt(id, 10) }

// instanceRef is the ledger reference of a charge for an instance.
func instanceRef(id int64, what string) string {
	return "instance:" + strconv.FormatInt(id, 10) + ":" + what
}
