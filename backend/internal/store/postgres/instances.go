package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

const instanceColumns = `id, account_id, order_id, name, note, hostname, plan_id, template_id, datacenter_id, location_id,
	features, status, next_status, next_status_at, active, renew, locked, lock_reason, locked_at, machine_ref,
	machine_deleted, ipv4, ipv6, username, password, port, credentials_at, created_at, renewal_due, expired_at,
	cancel_reason, paid_micros, last_ip_change_at, traffic_used_gb`

func scanInstance(r pgx.Row) (store.Instance, error) {
	var in store.Instance
	var features string
	var ts timeScanner
	err := r.Scan(&in.ID, &in.AccountID, &in.OrderID, &in.Name, &in.Note, &in.Hostname, &in.PlanID, &in.TemplateID,
		&in.DatacenterID, &in.LocationID, &features, &in.Status, &in.NextStatus, ts.at(&in.NextStatusAt), &in.Active,
		&in.Renew, &in.Locked, &in.LockReason, ts.at(&in.LockedAt), &in.MachineRef, &in.MachineGone, &in.IPv4, &in.IPv6,
		&in.Username, &in.Password, &in.Port, ts.at(&in.CredentialsAt), ts.at(&in.CreatedAt), ts.at(&in.RenewalDue),
		ts.at(&in.ExpiredAt), &in.CancelReason, &in.Paid, ts.at(&in.LastIPChange), &in.TrafficUsedGB)
	if err != nil {
		return store.Instance{}, mapError(err)
	}
	ts.parse()
	if err := fromJSON(features, &in.Features); err != nil {
		return store.Instance{}, err
	}
	return in, nil
}

func (q queries) CreateInstance(ctx context.Context, in store.Instance) (store.Instance, error) {
	features, err := jsonText(in.Features, "[]")
	if err != nil {
		return store.Instance{}, err
	}
	if err := q.lockAccount(ctx, in.AccountID); err != nil {
		return store.Instance{}, err
	}
	err = q.q.QueryRow(ctx, `INSERT INTO instances (account_id, order_id, name, note, hostname, plan_id, template_id,
		datacenter_id, location_id, features, status, next_status, next_status_at, active, renew, locked, lock_reason,
		locked_at, machine_ref, ipv4, ipv6, username, password, port, credentials_at, created_at, renewal_due, paid_micros)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23,
		$24, $25, $26, $27, $28) RETURNING id`,
		in.AccountID, in.OrderID, in.Name, in.Note, in.Hostname, in.PlanID, in.TemplateID, in.DatacenterID, in.LocationID,
		features, in.Status, in.NextStatus, nullTime(in.NextStatusAt), in.Active, in.Renew, in.Locked, in.LockReason,
		nullTime(in.LockedAt), in.MachineRef, in.IPv4, in.IPv6, in.Username, in.Password, in.Port,
		in.CredentialsAt.UTC(), in.CreatedAt.UTC(), in.RenewalDue.UTC(), in.Paid).Scan(&in.ID)
	if err != nil {
		return store.Instance{}, fmt.Errorf("postgres: create instance: %w", mapError(err))
	}
	return in, nil
}

func (q queries) Instance(ctx context.Context, accountID, id int64) (store.Instance, error) {
	if err := q.lockOwner(ctx, tableInstances, id); err != nil {
		return store.Instance{}, err
	}
	in, err := scanInstance(q.q.QueryRow(ctx, `SELECT `+instanceColumns+` FROM instances WHERE id = $1 AND account_id = $2`+q.rowLock(), id, accountID))
	if err != nil {
		return store.Instance{}, fmt.Errorf("postgres: instance %d: %w", id, err)
	}
	return in, nil
}

func (q queries) InstanceByID(ctx context.Context, id int64) (store.Instance, error) {
	if err := q.lockOwner(ctx, tableInstances, id); err != nil {
		return store.Instance{}, err
	}
	in, err := scanInstance(q.q.QueryRow(ctx, `SELECT `+instanceColumns+` FROM instances WHERE id = $1`+q.rowLock(), id))
	if err != nil {
		return store.Instance{}, fmt.Errorf("postgres: instance %d: %w", id, err)
	}
	return in, nil
}

func (q queries) Instances(ctx context.Context, accountID int64, onlyActive bool, page store.Page) ([]store.Instance, int, error) {
	// (active OR NOT $2) is active when onlyActive, and any value otherwise.
	var total int
	if err := q.q.QueryRow(ctx, `SELECT COUNT(*) FROM instances WHERE account_id = $1 AND (active OR NOT $2)`,
		accountID, onlyActive).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("postgres: count instances: %w", err)
	}
	out, err := q.listInstances(ctx, `SELECT `+instanceColumns+` FROM instances WHERE account_id = $1 AND (active OR NOT $2)
		ORDER BY id DESC LIMIT $3 OFFSET $4`, accountID, onlyActive, limitArg(page.Limit), page.Offset)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

func (q queries) listInstances(ctx context.Context, query string, args ...any) ([]store.Instance, error) {
	rows, err := q.q.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list instances: %w", err)
	}
	out, err := collect(rows, func(r pgx.Rows) (store.Instance, error) { return scanInstance(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: list instances: %w", err)
	}
	return out, nil
}

func (q queries) UpdateInstance(ctx context.Context, in store.Instance) error {
	features, err := jsonText(in.Features, "[]")
	if err != nil {
		return err
	}
	if err := q.lockAccount(ctx, in.AccountID); err != nil { // account_id never changes
		return err
	}
	tag, err := q.q.Exec(ctx, `UPDATE instances SET name = $1, note = $2, plan_id = $3, template_id = $4, features = $5,
		status = $6, next_status = $7, next_status_at = $8, active = $9, renew = $10, locked = $11, lock_reason = $12,
		locked_at = $13, ipv4 = $14, ipv6 = $15, username = $16, password = $17, port = $18, credentials_at = $19,
		renewal_due = $20, expired_at = $21, cancel_reason = $22, paid_micros = $23, last_ip_change_at = $24,
		traffic_used_gb = $25
		WHERE id = $26`,
		in.Name, in.Note, in.PlanID, in.TemplateID, features, in.Status, in.NextStatus, nullTime(in.NextStatusAt),
		in.Active, in.Renew, in.Locked, in.LockReason, nullTime(in.LockedAt), in.IPv4, in.IPv6, in.Username, in.Password,
		in.Port, in.CredentialsAt.UTC(), in.RenewalDue.UTC(), nullTime(in.ExpiredAt), in.CancelReason,
		in.Paid, nullTime(in.LastIPChange), in.TrafficUsedGB, in.ID)
	return checkOneRow(tag, err, "update instance", in.ID)
}

func (q queries) DueRenewals(ctx context.Context, now time.Time, limit int) ([]store.Instance, error) {
	return q.listInstances(ctx, `SELECT `+instanceColumns+` FROM instances WHERE active AND renewal_due <= $1
		ORDER BY renewal_due, id LIMIT $2`+skipLocked, now.UTC(), limit)
}

func (q queries) AdvanceRenewal(ctx context.Context, id int64, from, to time.Time) error {
	if err := q.lockOwner(ctx, tableInstances, id); err != nil {
		return err
	}
	tag, err := q.q.Exec(ctx, `UPDATE instances SET renewal_due = $1 WHERE id = $2 AND renewal_due = $3 AND active`,
		to.UTC(), id, from.UTC())
	return guarded(tag, err, "advance renewal of instance", id)
}

func (q queries) UnlockInstances(ctx context.Context, accountID int64, reason string) error {
	if err := q.lockAccount(ctx, accountID); err != nil {
		return err
	}
	_, err := q.q.Exec(ctx, `UPDATE instances SET locked = FALSE, lock_reason = '', locked_at = NULL
		WHERE account_id = $1 AND active AND locked AND lock_reason = $2`, accountID, reason)
	if err != nil {
		return fmt.Errorf("postgres: unlock instances of account %d: %w", accountID, err)
	}
	return nil
}

func (q queries) UndeletedMachines(ctx context.Context, limit int) ([]store.Instance, error) {
	return q.listInstances(ctx, `SELECT `+instanceColumns+` FROM instances WHERE NOT active AND NOT machine_deleted
		ORDER BY id LIMIT $1`+skipLocked, limit)
}

func (q queries) MarkMachineDeleted(ctx context.Context, id int64) error {
	if err := q.lockOwner(ctx, tableInstances, id); err != nil {
		return err
	}
	tag, err := q.q.Exec(ctx, `UPDATE instances SET machine_deleted = TRUE WHERE id = $1`, id)
	return checkOneRow(tag, err, "mark machine deleted of instance", id)
}
