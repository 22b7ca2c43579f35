package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

const instanceColumns = `id, account_id, order_id, name, note, hostname, plan_id, template_id, datacenter_id, location_id,
	features, status, next_status, next_status_at, active, renew, locked, lock_reason, locked_at, machine_ref,
	machine_deleted, ipv4, ipv6, username, password, port, credentials_at, created_at, renewal_due, expired_at,
	cancel_reason, paid_micros, last_ip_change_at, traffic_used_gb`

func scanInstance(r rowScanner) (store.Instance, error) {
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
	if err := ts.parse(); err != nil {
		return store.Instance{}, err
	}
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
	err = q.q.QueryRowContext(ctx, `INSERT INTO instances (account_id, order_id, name, note, hostname, plan_id, template_id,
		datacenter_id, location_id, features, status, next_status, next_status_at, active, renew, locked, lock_reason,
		locked_at, machine_ref, ipv4, ipv6, username, password, port, credentials_at, created_at, renewal_due, paid_micros)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		in.AccountID, in.OrderID, in.Name, in.Note, in.Hostname, in.PlanID, in.TemplateID, in.DatacenterID, in.LocationID,
		features, in.Status, in.NextStatus, nullTime(in.NextStatusAt), in.Active, in.Renew, in.Locked, in.LockReason,
		nullTime(in.LockedAt), in.MachineRef, in.IPv4, in.IPv6, in.Username, in.Password, in.Port,
		formatTime(in.CredentialsAt), formatTime(in.CreatedAt), formatTime(in.RenewalDue), in.Paid).Scan(&in.ID)
	if err != nil {
		return store.Instance{}, fmt.Errorf("sqlite: create instance: %w", mapError(err))
	}
	return in, nil
}

func (q queries) Instance(ctx context.Context, accountID, id int64) (store.Instance, error) {
	in, err := scanInstance(q.q.QueryRowContext(ctx, `SELECT `+instanceColumns+` FROM instances WHERE id = ? AND account_id = ?`, id, accountID))
	if err != nil {
		return store.Instance{}, fmt.Errorf("sqlite: instance %d: %w", id, err)
	}
	return in, nil
}

func (q queries) InstanceByID(ctx context.Context, id int64) (store.Instance, error) {
	in, err := scanInstance(q.q.QueryRowContext(ctx, `SELECT `+instanceColumns+` FROM instances WHERE id = ?`, id))
	if err != nil {
		return store.Instance{}, fmt.Errorf("sqlite: instance %d: %w", id, err)
	}
	return in, nil
}

func (q queries) Instances(ctx context.Context, accountID int64, onlyActive bool, page store.Page) ([]store.Instance, int, error) {
	// active IN (1, ?) is active = 1 when onlyActive, and any value otherwise.
	other := 0
	if onlyActive {
		other = 1
	}
	var total int
	if err := q.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM instances WHERE account_id = ? AND active IN (1, ?)`,
		accountID, other).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("sqlite: count instances: %w", err)
	}
	out, err := q.listInstances(ctx, `SELECT `+instanceColumns+` FROM instances WHERE account_id = ? AND active IN (1, ?)
		ORDER BY id DESC LIMIT ? OFFSET ?`, accountID, other, page.Limit, page.Offset)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

func (q queries) listInstances(ctx context.Context, query string, args ...any) ([]store.Instance, error) {
	rows, err := q.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list instances: %w", err)
	}
	defer rows.Close()
	out := []store.Instance{}
	for rows.Next() {
		in, err := scanInstance(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: scan instance: %w", err)
		}
		out = append(out, in)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list instances: %w", err)
	}
	return out, nil
}

func (q queries) UpdateInstance(ctx context.Context, in store.Instance) error {
	features, err := jsonText(in.Features, "[]")
	if err != nil {
		return err
	}
	res, err := q.q.ExecContext(ctx, `UPDATE instances SET name = ?, note = ?, plan_id = ?, template_id = ?, features = ?,
		status = ?, next_status = ?, next_status_at = ?, active = ?, renew = ?, locked = ?, lock_reason = ?, locked_at = ?,
		ipv4 = ?, ipv6 = ?, username = ?, password = ?, port = ?, credentials_at = ?, renewal_due = ?, expired_at = ?,
		cancel_reason = ?, paid_micros = ?, last_ip_change_at = ?, traffic_used_gb = ?
		WHERE id = ?`,
		in.Name, in.Note, in.PlanID, in.TemplateID, features, in.Status, in.NextStatus, nullTime(in.NextStatusAt),
		in.Active, in.Renew, in.Locked, in.LockReason, nullTime(in.LockedAt), in.IPv4, in.IPv6, in.Username, in.Password,
		in.Port, formatTime(in.CredentialsAt), formatTime(in.RenewalDue), nullTime(in.ExpiredAt), in.CancelReason,
		in.Paid, nullTime(in.LastIPChange), in.TrafficUsedGB, in.ID)
	return checkOneRow(res, err, "update instance", in.ID)
}

func (q queries) DueRenewals(ctx context.Context, now time.Time, limit int) ([]store.Instance, error) {
	return q.listInstances(ctx, `SELECT `+instanceColumns+` FROM instances WHERE active = 1 AND renewal_due <= ?
		ORDER BY renewal_due, id LIMIT ?`, formatTime(now), limit)
}

func (q queries) AdvanceRenewal(ctx context.Context, id int64, from, to time.Time) error {
	res, err := q.q.ExecContext(ctx, `UPDATE instances SET renewal_due = ? WHERE id = ? AND renewal_due = ? AND active = 1`,
		formatTime(to), id, formatTime(from))
	return guarded(res, err, "advance renewal of instance", id)
}

func (q queries) UnlockInstances(ctx context.Context, accountID int64, reason string) error {
	_, err := q.q.ExecContext(ctx, `UPDATE instances SET locked = 0, lock_reason = '', locked_at = NULL
		WHERE account_id = ? AND active = 1 AND locked = 1 AND lock_reason = ?`, accountID, reason)
	if err != nil {
		return fmt.Errorf("sqlite: unlock instances of account %d: %w", accountID, err)
	}
	return nil
}

func (q queries) UndeletedMachines(ctx context.Context, limit int) ([]store.Instance, error) {
	return q.listInstances(ctx, `SELECT `+instanceColumns+` FROM instances WHERE active = 0 AND machine_deleted = 0
		ORDER BY id LIMIT ?`, limit)
}

func (q queries) MarkMachineDeleted(ctx context.Context, id int64) error {
	res, err := q.q.ExecContext(ctx, `UPDATE instances SET machine_deleted = 1 WHERE id = ?`, id)
	return checkOneRow(res, err, "mark machine deleted of instance", id)
}
