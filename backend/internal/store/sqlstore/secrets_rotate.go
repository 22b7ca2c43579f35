package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// DefaultRotateBatch is how many values RotateSecrets seals again per transaction when asked
// for no other number: small enough that a batch holds its rows for milliseconds beside the
// replicas serving, large enough that a million values take minutes, not hours.
const DefaultRotateBatch = 200

// RotateProgress is what RotateSecrets reports after each batch it committed.
type RotateProgress struct {
	Column   string // the column, as "table.column"
	Resealed int    // its values sealed again so far
	Done     bool   // the column has no value left to seal again
}

// RotateSecrets seals again, under the first key of the store's keyring, every stored secret
// that is not under it yet: those sealed under another key of the keyring, and plain ones
// (written without a key, or before keys existed). It walks each sealed column in primary-key
// order, batch values at a time, each batch one transaction, and tells progress (when not nil)
// after each; the canary goes last, so once it is under the first key every value was.
//
// It runs beside serving replicas: a batch holds only its own rows, only until it commits, and
// writes a value only if it is still the one it read (a value a replica changed meanwhile was
// written under that replica's first key and is left alone). It is safe to stop at any point
// (cancel ctx; a batch commits whole or not at all) and to run again: a value already under the
// first key is passed over by its prefix, so a second run only does what the first left. A
// value no key of the keyring opens stops it with an error naming the value's cell and key id.
func (s *Store) RotateSecrets(ctx context.Context, batch int, progress func(RotateProgress)) (int, error) {
	if !s.keys.Seals() {
		return 0, errors.New("sqlstore: rotate secrets: the store has no key to seal with")
	}
	if batch <= 0 {
		batch = DefaultRotateBatch
	}
	if progress == nil {
		progress = func(RotateProgress) {}
	}
	total := 0
	for _, c := range sealedColumns {
		n, err := s.rotateColumn(ctx, c, batch, progress)
		total += n
		if err != nil {
			return total, fmt.Errorf("sqlstore: rotate %s: %w", c, err)
		}
	}
	return total, nil
}

// storedValue is a row's key, its owner and its column's value as stored.
type storedValue struct {
	key    any // int64, or string for a TEXT key
	owner  int64
	stored string
}

// rotateColumn seals again the values of column c that need it, batch rows a transaction.
func (s *Store) rotateColumn(ctx context.Context, c sealedColumn, batch int, progress func(RotateProgress)) (int, error) {
	var after any = int64(0)
	if c.textKey {
		after = ""
	}
	resealed := 0
	for {
		if err := ctx.Err(); err != nil {
			return resealed, err
		}
		var rows []storedValue
		changed := 0
		err := s.WithTx(ctx, func(tx store.Tx) error {
			var err error
			rows, changed, err = tx.(queries).rotateBatch(ctx, c, after, batch)
			return err
		})
		if err != nil {
			return resealed, err
		}
		resealed += changed
		done := len(rows) < batch
		progress(RotateProgress{Column: c.String(), Resealed: resealed, Done: done})
		if done {
			return resealed, nil
		}
		after = rows[len(rows)-1].key
	}
}

// rotateBatch seals again the next batch of values of column c after the key after that are
// not under the first key, and reports the rows it read and how many it changed.
func (q queries) rotateBatch(ctx context.Context, c sealedColumn, after any, batch int) ([]storedValue, int, error) {
	current := q.keys.CurrentPrefix()
	rows, err := list(ctx, q, c.String(), c.scanStored, `SELECT `+c.key+`, `+c.column+`, `+c.ownerColumn()+` FROM `+c.table+`
		WHERE `+c.key+` > ? AND `+c.column+` <> ? AND substr(`+c.column+`, 1, `+strconv.Itoa(len(current))+`) <> ?
		ORDER BY `+c.key+` LIMIT ?`, after, c.empty, current, batch)
	if err != nil {
		return nil, 0, err
	}
	changed := 0
	for _, r := range rows {
		plain, err := q.open(c, r.key, r.owner, r.stored)
		if err != nil {
			return nil, 0, err
		}
		sealed, err := q.seal(c, r.key, r.owner, plain)
		if err != nil {
			return nil, 0, err
		}
		n, err := rowsAffected(q.exec(ctx, `UPDATE `+c.table+` SET `+c.column+` = ? WHERE `+c.key+` = ? AND `+c.column+` = ?`,
			sealed, r.key, r.stored))
		if err != nil {
			return nil, 0, err
		}
		changed += int(n)
	}
	return rows, changed, nil
}

// ownerColumn is the SQL of the owner of column c's rows, selected beside them (0: none).
func (c sealedColumn) ownerColumn() string {
	if c.owner == "" {
		return "0"
	}
	return "COALESCE(" + c.owner + ", 0)"
}

// scanStored reads a row's key, stored value of column c and owner (ownerColumn).
func (c sealedColumn) scanStored(r rowScanner) (storedValue, error) {
	var v storedValue
	if c.textKey {
		var key string
		err := r.Scan(&key, &v.stored, &v.owner)
		v.key = key
		return v, err
	}
	var key int64
	err := r.Scan(&key, &v.stored, &v.owner)
	v.key = key
	return v, err
}
