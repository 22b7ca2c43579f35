package sqlstore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// The helpers of the batch writes (store.BatchQueries): a table of values an UPDATE joins, the
// account counters a batch moves, and the account locks it takes, each one statement.

// valuesCTE is "head AS (VALUES (CAST(? AS t1), ...), ...)" with rows rows of len(types)
// placeholders: the values of a batch as a table an UPDATE joins (head names it and its
// columns, e.g. "v(id, ticket)"). The casts give PostgreSQL the placeholders' types, which a
// bare VALUES list would leave as text; SQLite takes them as affinities.
func valuesCTE(head string, types []string, rows int) string {
	cells := make([]string, len(types))
	for i, t := range types {
		cells[i] = "CAST(? AS " + t + ")"
	}
	row := "(" + strings.Join(cells, ", ") + ")"
	return head + " AS (VALUES " + strings.TrimSuffix(strings.Repeat(row+", ", rows), ", ") + ")"
}

// valuesRows is "(?, ..., ?), ..." for rows rows of n placeholders: the VALUES of a multi-row
// INSERT, whose target columns give PostgreSQL the types.
func valuesRows(n, rows int) string {
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
	return strings.TrimSuffix(strings.Repeat(row+", ", rows), ", ")
}

// addToAccounts adds deltas[id][i] to the column cols[i] of every account id, and one to its
// wallet_seq (every counter a batch moves is part of the wallet), in one statement that takes
// the rows by id (see batchRows). cols are
// the package's own column names, never a caller's. ErrNotFound when an account is missing.
func (q queries) addToAccounts(ctx context.Context, cols []string, deltas map[int64][]int64) error {
	if len(deltas) == 0 {
		return nil
	}
	ids := slices.Sorted(maps.Keys(deltas))
	if err := q.lockAccounts(ctx, ids); err != nil {
		return err
	}
	names, types, sets := []string{"id"}, []string{"BIGINT"}, []string{"wallet_seq = wallet_seq + 1"}
	for i, c := range cols {
		name := fmt.Sprintf("d%d", i)
		names, types = append(names, name), append(types, "BIGINT")
		sets = append(sets, c+" = "+c+" + (SELECT d."+name+" FROM d WHERE d.id = accounts.id)")
	}
	args := make([]any, 0, len(ids)*(len(cols)+1))
	for _, id := range ids {
		args = append(args, id)
		for _, d := range deltas[id] {
			args = append(args, d)
		}
	}
	n, err := rowsAffected(q.exec(ctx, `WITH `+valuesCTE("d("+strings.Join(names, ", ")+")", types, len(ids))+
		` UPDATE accounts SET `+strings.Join(sets, ", ")+` WHERE accounts.id IN (SELECT id FROM d)`, args...))
	if err != nil {
		return fmt.Errorf("sqlstore: move %s of %d accounts: %w", strings.Join(cols, ", "), len(ids), err)
	}
	if n != int64(len(ids)) {
		return fmt.Errorf("sqlstore: move %s: %d of %d accounts: %w", strings.Join(cols, ", "), n, len(ids), store.ErrNotFound)
	}
	return nil
}

// addDeltas adds vals to the deltas of account id, for addToAccounts.
func addDeltas(deltas map[int64][]int64, id int64, vals ...int64) {
	d := deltas[id]
	if d == nil {
		d = make([]int64, len(vals))
		deltas[id] = d
	}
	for i, v := range vals {
		d[i] += v
	}
}

// lockAccounts locks the accounts of ids this transaction has not locked yet, in id order,
// with one statement (lockAccount for many); nothing outside a transaction or on SQLite.
func (q queries) lockAccounts(ctx context.Context, ids []int64) error {
	if q.locks == nil {
		return nil
	}
	var need []int64
	for _, id := range ids {
		if !q.locks.accounts[id] {
			need = append(need, id)
		}
	}
	slices.Sort(need)
	need = slices.Compact(need)
	switch len(need) {
	case 0:
		return nil
	case 1:
		return q.lockAccount(ctx, need[0])
	}
	in, args := inList(need)
	if _, err := lockedList(ctx, q, "locked accounts", scanID,
		`SELECT id FROM accounts WHERE id IN `+in+` ORDER BY id`+forUpdate, args...); err != nil {
		return fmt.Errorf("sqlstore: lock %d accounts: %w", len(need), err)
	}
	for _, id := range need {
		q.locks.accounts[id] = true
	}
	return nil
}

// scanID reads a row of one id.
func scanID(r rowScanner) (int64, error) {
	var id int64
	err := r.Scan(&id)
	return id, err
}
