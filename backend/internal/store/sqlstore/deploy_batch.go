package sqlstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// The rest of a batch of deploys, one statement each (see store.BatchQueries): the accounts it
// charges, the charges, the new instances and the events.

// LockAccounts reads the accounts with one statement; in a transaction it locks their rows in
// id order, like Account for each.
func (q queries) LockAccounts(ctx context.Context, ids []int64) (map[int64]store.Account, error) {
	out := map[int64]store.Account{}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	accts, err := lockedList(ctx, q, "accounts", scanAccount, `SELECT `+accountColumns+` FROM accounts WHERE id IN `+in+
		` ORDER BY id`+q.rowLock(forUpdate), args...)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: lock %d accounts: %w", len(ids), err)
	}
	for _, a := range accts {
		out[a.ID] = a
		if q.locks != nil {
			q.locks.accounts[a.ID] = true
		}
	}
	return out, nil
}

// CreateInstance writes one instance (CreateInstances of one).
func (q queries) CreateInstance(ctx context.Context, in store.Instance) (store.Instance, error) {
	out, err := q.CreateInstances(ctx, []store.Instance{in})
	if err != nil {
		return store.Instance{}, err
	}
	return out[0], nil
}

// instanceInsertColumns are the columns a new instance is written with (insertInstances).
const instanceInsertColumns = `account_seq, account_id, order_id, name, note, hostname, plan_id, template_id,
	datacenter_id, location_id, features, status, next_status, next_status_at, active, renew, locked, lock_reason,
	locked_at, machine_ref, ipv4, ipv6, username, password, port, credentials_at, created_at, renewal_due, paid_micros`

// CreateInstances writes the instances with one statement and counts them on their accounts
// with another. The accounts are locked first, so an instance's place in its account's list
// (account_seq) is the account's count of instances plus its rank among the account's new ones.
func (q queries) CreateInstances(ctx context.Context, ins []store.Instance) ([]store.Instance, error) {
	if len(ins) == 0 {
		return nil, nil
	}
	accounts := make([]int64, len(ins))
	for i, in := range ins {
		accounts[i] = in.AccountID
	}
	if err := q.lockAccounts(ctx, accounts); err != nil {
		return nil, err
	}
	rows, args, err := q.instanceRows(ins)
	if err != nil {
		return nil, err
	}
	type placed struct{ id, account, seq int64 }
	got, err := list(ctx, q, "new instances", func(r rowScanner) (placed, error) {
		var p placed
		err := r.Scan(&p.id, &p.account, &p.seq)
		return p, err
	}, `INSERT INTO instances (`+instanceInsertColumns+`) VALUES `+rows+` RETURNING id, account_id, account_seq`, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: create %d instances: %w", len(ins), err)
	}
	// RETURNING promises no order: sorted by place, each account's new instances are in the
	// order given.
	slices.SortFunc(got, func(a, b placed) int { return int(a.seq - b.seq) })
	out := slices.Clone(ins)
	deltas := map[int64][]int64{}
	passwords := make([]newSecret, len(out))
	for i := range out {
		k := slices.IndexFunc(got, func(p placed) bool { return p.account == out[i].AccountID })
		if k < 0 {
			return nil, fmt.Errorf("sqlstore: create instances: no id for an instance of account %d", out[i].AccountID)
		}
		out[i].ID = got[k].id
		got = slices.Delete(got, k, k+1)
		addDeltas(deltas, out[i].AccountID, 1, int64(boolCount(out[i].Active)))
		passwords[i] = newSecret{row: out[i].ID, owner: out[i].AccountID, plain: out[i].Password}
	}
	if err := q.sealInserted(ctx, instancePassword, passwords); err != nil {
		return nil, err
	}
	if err := q.addToAccounts(ctx, []string{"instances_total", "instances_active"}, deltas); err != nil {
		return nil, err
	}
	return out, nil
}

// instanceRows are the VALUES rows of ins and their arguments: each row's place is read from
// its account's count of instances (locked) plus the instance's rank among its account's new
// ones. The password is the insertValue: with a key, CreateInstances seals it once the row has
// its id.
func (q queries) instanceRows(ins []store.Instance) (string, []any, error) {
	const row = `((SELECT instances_total + ? FROM accounts WHERE id = ?),
		?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	rank := map[int64]int64{}
	rows := make([]byte, 0, len(ins)*(len(row)+2))
	args := make([]any, 0, 30*len(ins))
	for i, in := range ins {
		features, err := jsonText(in.Features, "[]")
		if err != nil {
			return "", nil, err
		}
		password, err := q.insertValue(instancePassword, in.Password)
		if err != nil {
			return "", nil, err
		}
		rank[in.AccountID]++
		if i > 0 {
			rows = append(rows, ", "...)
		}
		rows = append(rows, row...)
		args = append(args, rank[in.AccountID], in.AccountID,
			in.AccountID, in.OrderID, in.Name, in.Note, in.Hostname, in.PlanID, in.TemplateID, in.DatacenterID, in.LocationID,
			features, in.Status, in.Next.Status, nullTime(in.Next.At), in.Active, in.Renew, in.Locked, in.LockReason,
			nullTime(in.LockedAt), in.MachineRef, in.IPv4, in.IPv6, in.Username, password, in.Port,
			in.CredentialsAt, in.CreatedAt, in.RenewalDue, in.Paid)
	}
	return string(rows), args, nil
}

// AddEvent writes one event (AddEvents of one).
func (q queries) AddEvent(ctx context.Context, e store.Event) error {
	return q.AddEvents(ctx, []store.Event{e})
}

// AddEvents writes the events with one statement, after locking their accounts.
func (q queries) AddEvents(ctx context.Context, events []store.Event) error {
	if len(events) == 0 {
		return nil
	}
	accounts := make([]int64, len(events))
	args := make([]any, 0, 5*len(events))
	for i, e := range events {
		accounts[i] = e.AccountID
		args = append(args, e.ID, e.AccountID, e.Name, string(e.Data), e.CreatedAt)
	}
	if err := q.lockAccounts(ctx, accounts); err != nil {
		return err
	}
	if _, err := q.exec(ctx, `INSERT INTO events (id, account_id, name, data, created_at) VALUES `+
		valuesRows(5, len(events)), args...); err != nil {
		return fmt.Errorf("sqlstore: add %d events: %w", len(events), err)
	}
	return nil
}
