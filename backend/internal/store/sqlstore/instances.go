package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

const instanceColumns = `id, account_id, order_id, name, note, hostname, plan_id, template_id, datacenter_id, location_id,
	features, status, next_status, next_status_at, active, renew, locked, lock_reason, locked_at, machine_ref,
	machine_deleted, ipv4, ipv6, username, password, port, credentials_at, created_at, renewal_due, expired_at,
	cancel_reason, paid_micros, last_ip_change_at, traffic_used_gb, traffic_included_gb, traffic_allow_overage,
	traffic_cycle_start, traffic_cycle_base, traffic_billed_gb`

// scanInstance reads an instance and opens its password.
func (q queries) scanInstance(r rowScanner) (store.Instance, error) {
	var in store.Instance
	if err := r.Scan(instanceDest(&in)...); err != nil {
		return store.Instance{}, err
	}
	return in, q.openInstance(&in)
}

// openInstance opens the password of an instance scanned with instanceDest.
func (q queries) openInstance(in *store.Instance) error {
	pw, err := q.open(instancePassword, in.ID, in.AccountID, in.Password)
	in.Password = pw
	return err
}

// instanceDest is where the columns of instanceColumns are scanned to; the password as stored
// (openInstance opens it).
func instanceDest(in *store.Instance) []any {
	return []any{&in.ID, &in.AccountID, &in.OrderID, &in.Name, &in.Note, &in.Hostname, &in.PlanID, &in.TemplateID,
		&in.DatacenterID, &in.LocationID, jsonColumn{&in.Features}, &in.Status, &in.Next.Status, at(&in.Next.At),
		&in.Active, &in.Renew, &in.Locked, &in.LockReason, at(&in.LockedAt), &in.MachineRef, &in.MachineGone, &in.IPv4,
		&in.IPv6, &in.Username, &in.Password, &in.Port, at(&in.CredentialsAt), at(&in.CreatedAt), at(&in.RenewalDue),
		at(&in.ExpiredAt), &in.CancelReason, &in.Paid, at(&in.LastIPChange), &in.TrafficUsedGB,
		&in.TrafficIncludedGB, &in.TrafficAllowOverage, at(&in.TrafficCycle), &in.TrafficCycleBase, &in.TrafficBilledGB}
}

// Instance reads an instance of the account outside transactions (GET /instances/{id}),
// through the row cache (see cache.go); what it returns is a copy the caller may change.
func (s *Store) Instance(ctx context.Context, accountID, id int64) (store.Instance, error) {
	in, err := cached(ctx, s.cache, cacheKey{kind: cachedInstance, accountID: accountID, id: id},
		ofAccount[store.Instance](accountID), func() (store.Instance, error) { return s.queries.Instance(ctx, accountID, id) })
	in.Features = slices.Clone(in.Features)
	return in, err
}

// instanceWithInstalls is an instance and its app installs, as one entry of the row cache.
type instanceWithInstalls struct {
	in       store.Instance
	installs []store.AppInstall
}

// InstanceWithInstalls reads an instance of the account and its app installs outside
// transactions, through the row cache (see cache.go); what it returns is a copy the caller may
// change. The instance's row says whether it has installs at all, so an instance without any
// (most of them) costs one statement, not two, when the cache misses: on PostgreSQL each
// statement is a round trip of GET /instances/{id}.
func (s *Store) InstanceWithInstalls(ctx context.Context, accountID, id int64) (store.Instance, []store.AppInstall, error) {
	v, err := cached(ctx, s.cache, cacheKey{kind: cachedInstanceWithInstalls, accountID: accountID, id: id},
		ofAccount[instanceWithInstalls](accountID), func() (instanceWithInstalls, error) { return s.instanceWithInstalls(ctx, accountID, id) })
	v.in.Features = slices.Clone(v.in.Features)
	return v.in, cloneInstalls(v.installs), err
}

// instanceWithInstalls reads the instance with whether it has installs, and then those.
func (q queries) instanceWithInstalls(ctx context.Context, accountID, id int64) (instanceWithInstalls, error) {
	var v instanceWithInstalls
	var hasInstalls bool
	err := q.queryRow(ctx, `SELECT `+instanceColumns+`, EXISTS (SELECT 1 FROM app_installs WHERE instance_id = instances.id)
		FROM instances WHERE id = ? AND account_id = ?`, id, accountID).Scan(append(instanceDest(&v.in), &hasInstalls)...)
	if err == nil {
		err = q.openInstance(&v.in)
	}
	if err != nil {
		return instanceWithInstalls{}, fmt.Errorf("sqlstore: instance %d: %w", id, err)
	}
	if hasInstalls {
		if v.installs, err = q.AppInstalls(ctx, id); err != nil {
			return instanceWithInstalls{}, err
		}
	}
	return v, nil
}

// Instance reads an instance of the account, in a transaction (locking it) or for
// Store.Instance.
func (q queries) Instance(ctx context.Context, accountID, id int64) (store.Instance, error) {
	return one(ctx, q, tableInstances, id, q.scanInstance,
		`SELECT `+instanceColumns+` FROM instances WHERE id = ? AND account_id = ?`, id, accountID)
}

func (q queries) InstanceByID(ctx context.Context, id int64) (store.Instance, error) {
	return one(ctx, q, tableInstances, id, q.scanInstance, `SELECT `+instanceColumns+` FROM instances WHERE id = ?`, id)
}

// Instances reads the total from the account's counts, and the page as a range of places
// (account_seq) when it lists every instance, or otherwise through the index (account_id, id)
// from whichever end is nearer. No page counts rows, and a page of the whole list costs the
// same at any offset; the active ones are at most the account's server_limit.
func (q queries) Instances(ctx context.Context, accountID int64, onlyActive bool, page store.Page) ([]store.Instance, int, error) {
	total, err := q.instanceCount(ctx, accountID, onlyActive)
	if err != nil {
		return nil, 0, err
	}
	limit := page.Limit
	if limit < 0 || page.Offset+limit > total {
		limit = total - page.Offset
	}
	if limit <= 0 {
		return []store.Instance{}, total, nil
	}
	if !onlyActive {
		// Newest first: offset 0 starts at the place total.
		last := total - page.Offset
		out, err := list(ctx, q, "instances", q.scanInstance, `SELECT `+instanceColumns+` FROM instances
			WHERE account_id = ? AND account_seq BETWEEN ? AND ? ORDER BY account_seq DESC`,
			accountID, last-limit+1, last)
		return out, total, err
	}
	where := ` FROM instances WHERE account_id = ? AND active = TRUE ORDER BY id `
	fromOldest := total - page.Offset - limit
	if page.Offset <= fromOldest {
		out, err := list(ctx, q, "instances", q.scanInstance, `SELECT `+instanceColumns+where+`DESC LIMIT ? OFFSET ?`,
			accountID, limit, page.Offset)
		return out, total, err
	}
	out, err := list(ctx, q, "instances", q.scanInstance, `SELECT `+instanceColumns+where+`ASC LIMIT ? OFFSET ?`,
		accountID, limit, fromOldest)
	slices.Reverse(out)
	return out, total, err
}

// instanceCount reads how many instances (active ones, with onlyActive) the account has.
func (q queries) instanceCount(ctx context.Context, accountID int64, onlyActive bool) (int, error) {
	column := "instances_total"
	if onlyActive {
		column = "instances_active"
	}
	var n int
	if err := q.queryRow(ctx, `SELECT `+column+` FROM accounts WHERE id = ?`, accountID).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlstore: count instances of account %d: %w", accountID, err)
	}
	return n, nil
}

// activeCountChanged moves the account's count of active instances when the update of in
// starts or ends it.
func (q queries) activeCountChanged(ctx context.Context, in store.Instance) error {
	delta := -1
	if in.Active {
		delta = 1
	}
	if _, err := q.exec(ctx, `UPDATE accounts SET instances_active = instances_active + ? WHERE id = ? AND EXISTS (
		SELECT 1 FROM instances WHERE id = ? AND active <> ?)`, delta, in.AccountID, in.ID, in.Active); err != nil {
		return fmt.Errorf("sqlstore: count active instances of account %d: %w", in.AccountID, err)
	}
	return nil
}

func (q queries) UpdateInstance(ctx context.Context, in store.Instance) error {
	features, err := jsonText(in.Features, "[]")
	if err != nil {
		return err
	}
	password, err := q.seal(instancePassword, in.ID, in.AccountID, in.Password)
	if err != nil {
		return err
	}
	if err := q.lockAccount(ctx, in.AccountID); err != nil { // account_id never changes
		return err
	}
	if err := q.instanceWalletChanged(ctx, in, features); err != nil {
		return err
	}
	if err := q.activeCountChanged(ctx, in); err != nil {
		return err
	}
	res, err := q.exec(ctx, `UPDATE instances SET name = ?, note = ?, plan_id = ?, template_id = ?, features = ?,
		status = ?, next_status = ?, next_status_at = ?, active = ?, renew = ?, locked = ?, lock_reason = ?,
		locked_at = ?, ipv4 = ?, ipv6 = ?, username = ?, password = ?, port = ?, credentials_at = ?,
		renewal_due = ?, expired_at = ?, cancel_reason = ?, paid_micros = ?, last_ip_change_at = ?,
		traffic_used_gb = ?, traffic_included_gb = ?, traffic_allow_overage = ?, traffic_cycle_start = ?,
		traffic_cycle_base = ?, traffic_billed_gb = ?
		WHERE id = ?`,
		in.Name, in.Note, in.PlanID, in.TemplateID, features, in.Status, in.Next.Status, nullTime(in.Next.At),
		in.Active, in.Renew, in.Locked, in.LockReason, nullTime(in.LockedAt), in.IPv4, in.IPv6, in.Username, password,
		in.Port, in.CredentialsAt, in.RenewalDue, nullTime(in.ExpiredAt), in.CancelReason,
		in.Paid, nullTime(in.LastIPChange), in.TrafficUsedGB, in.TrafficIncludedGB, in.TrafficAllowOverage,
		nullTime(in.TrafficCycle), in.TrafficCycleBase, in.TrafficBilledGB, in.ID)
	return checkOneRow(res, err, "update instance", in.ID)
}

func (q queries) DueRenewals(ctx context.Context, now time.Time, limit int) ([]store.Instance, error) {
	return list(ctx, q, "instances", q.scanInstance, `SELECT `+instanceColumns+` FROM instances
		WHERE active AND renewal_due <= ? ORDER BY renewal_due, id LIMIT ?`+q.workerLock(skipLocked), now, limit)
}

// activeInstancesAfter is ActiveInstancesAfter's read: a range of the partial index of the
// live instances (instances_active_id, migration 0019), never the ended ones.
const activeInstancesAfter = `SELECT ` + instanceColumns + ` FROM instances
	WHERE active AND id > ? ORDER BY id LIMIT ?`

// ActiveInstancesAfter reads the live instances by id.
func (q queries) ActiveInstancesAfter(ctx context.Context, afterID int64, limit int) ([]store.Instance, error) {
	return list(ctx, q, "instances", q.scanInstance, activeInstancesAfter, afterID, limit)
}

func (q queries) AdvanceRenewal(ctx context.Context, id int64, from, to time.Time) error {
	if err := q.lockOwner(ctx, tableInstances, id); err != nil {
		return err
	}
	res, err := q.exec(ctx, `UPDATE instances SET renewal_due = ? WHERE id = ? AND renewal_due = ? AND active`, to, id, from)
	return guarded(res, err, "advance renewal of instance", id)
}

func (q queries) UnlockInstances(ctx context.Context, accountID int64, reason string) error {
	if err := q.lockAccount(ctx, accountID); err != nil {
		return err
	}
	_, err := q.exec(ctx, `UPDATE instances SET locked = FALSE, lock_reason = '', locked_at = NULL
		WHERE account_id = ? AND active AND locked AND lock_reason = ?`, accountID, reason)
	if err != nil {
		return fmt.Errorf("sqlstore: unlock instances of account %d: %w", accountID, err)
	}
	return nil
}

// machineUndeleted selects the ended instances whose machine the datacenter still keeps.
const machineUndeleted = `NOT active AND NOT machine_deleted`

func (q queries) UndeletedMachines(ctx context.Context, limit int) ([]store.Instance, error) {
	return list(ctx, q, "instances", q.scanInstance, `SELECT `+instanceColumns+` FROM instances
		WHERE `+machineUndeleted+` ORDER BY id LIMIT ?`+q.workerLock(skipLocked), limit)
}

func (q queries) MarkMachineDeleted(ctx context.Context, id int64) error {
	if err := q.lockOwner(ctx, tableInstances, id); err != nil {
		return err
	}
	res, err := q.exec(ctx, `UPDATE instances SET machine_deleted = TRUE WHERE id = ?`, id)
	return checkOneRow(res, err, "mark machine deleted of instance", id)
}

// boolCount is 1 for true and 0 for false.
func boolCount(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (q queries) RenewingInstances(ctx context.Context, accountID int64) ([]store.RenewingGroup, error) {
	return list(ctx, q, "renewing instances", func(r rowScanner) (store.RenewingGroup, error) {
		var g store.RenewingGroup
		var features string
		if err := r.Scan(&g.PlanID, &features, &g.Count); err != nil {
			return g, err
		}
		return g, json.Unmarshal([]byte(features), &g.Features)
	}, `SELECT plan_id, features, COUNT(*) FROM instances WHERE account_id = ? AND active = TRUE AND renew = TRUE
		GROUP BY plan_id, features ORDER BY plan_id, features`, accountID)
}
