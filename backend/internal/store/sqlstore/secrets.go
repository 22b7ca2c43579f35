package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/reseller/terraform-provider-reseller/backend/internal/secrets"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// The secrets the store keeps sealed (package secrets): every value of the columns below is
// sealed as it is written, with its table, column and row id as the associated data, and opened
// as it is read, so the service and the read cache only ever see plain values and the database
// only ever holds sealed ones (or plain ones written without a key, which read the same).
//
// An INSERT does not know its row's id, and the id is part of the seal. A new row is therefore
// written with the column's empty value and sealed by one more UPDATE in the same transaction
// once RETURNING gave the ids (sealInserted): the plain value never reaches the database, not
// even a page of it that is later freed, and the cell stays the row's primary key, the one
// identity no other row can have. The service writes every such row inside a transaction, and
// Store.PlaceOrder, which on PostgreSQL is otherwise one statement outside one, opens a
// transaction for an order with app inputs. The extra statement is only made with a key.

// sealedColumn is a column whose values are sealed.
type sealedColumn struct {
	table, column string
	key           string // the table's primary key, the cell's row
	textKey       bool   // the key is TEXT (else BIGINT)
	empty         string // the column's empty value ('' or a JSON column's '{}'), stored as it is
	// owner is the SQL expression, over the table's row, of the id of the account the row
	// belongs to, bound into every seal (the cell's Owner); "" for a table of no account.
	owner string
}

// installOwner is the account of an app install: its instance's.
const installOwner = `(SELECT i.account_id FROM instances i WHERE i.id = app_installs.instance_id)`

// The sealed columns. app_installs.result is sealed too: installers report the passwords they
// generated there.
var (
	webhookSecret    = sealedColumn{table: "webhooks", column: "secret", key: "account_id", owner: "account_id"}
	instancePassword = sealedColumn{table: "instances", column: "password", key: "id", owner: "account_id"}
	snapshotPassword = sealedColumn{table: "snapshots", column: "password", key: "id", owner: "account_id"}
	orderAppInputs   = sealedColumn{table: "orders", column: "app_inputs", key: "id", empty: "{}", owner: "account_id"}
	installInputs    = sealedColumn{table: "app_installs", column: "inputs", key: "id", empty: "{}", owner: installOwner}
	installResult    = sealedColumn{table: "app_installs", column: "result", key: "id", empty: "{}", owner: installOwner}
	simPassword      = sealedColumn{table: "sim_machines", column: "password", key: "ref", textKey: true}
	keyHashSecret    = sealedColumn{table: "key_hash_secret", column: "sealed", key: "id"} // keyhash.go
	// The sandbox datacenter's rows belong to no account (as sim_machines): a machine's row
	// names its host, not its owner, whose instance row binds the same password to the account.
	machinePassword = sealedColumn{table: "machines", column: "password", key: "ref", textKey: true}
	machineOpArgs   = sealedColumn{table: "machine_ops", column: "args", key: "id", textKey: true, empty: "{}"}
	machineOpResult = sealedColumn{table: "machine_ops", column: "result", key: "id", textKey: true}
	secretsCanary   = sealedColumn{table: "secrets_canary", column: "sealed", key: "id"}
)

// sealedColumns are every sealed column in the order RotateSecrets visits them: the canary
// last, so that once it is under a key every value was too.
var sealedColumns = []sealedColumn{webhookSecret, instancePassword, snapshotPassword, orderAppInputs, installInputs,
	installResult, simPassword, machinePassword, machineOpArgs, machineOpResult, keyHashSecret, secretsCanary}

// noOwner is the owner of a row of no account (sealedColumn.owner "").
const noOwner int64 = 0

func (c sealedColumn) String() string { return c.table + "." + c.column }

// cell is where the value of row (its key), owned by the account owner (noOwner: none), is
// stored.
func (c sealedColumn) cell(row any, owner int64) secrets.Cell {
	var r string
	switch v := row.(type) {
	case int64:
		r = strconv.FormatInt(v, 10)
	case string:
		r = v
	default:
		r = fmt.Sprint(v)
	}
	cell := secrets.Cell{Table: c.table, Column: c.column, Row: r}
	if owner != noOwner {
		cell.Owner = strconv.FormatInt(owner, 10)
	}
	return cell
}

// WithSecrets has the store seal and open the secret columns with keys: nil stores them plain
// (and refuses to open a database whose secrets are sealed, ErrSecretsNeedKey); a
// secrets.Locked keyring opens any database but stores and opens no secret, for processes that
// touch none. A keyring with keys is checked against the database's canary at Open
// (ErrSecretsWrongKey), which it writes when there is none.
func WithSecrets(keys *secrets.Keyring) Option {
	return func(o *options) { o.keys = keys }
}

// ErrSecretsNeedKey refuses to open, without a key, a database whose secrets are sealed.
var ErrSecretsNeedKey = errors.New("the database's secrets are encrypted and no key was given")

// ErrSecretsWrongKey refuses to open a database whose secrets no key of the keyring opens.
var ErrSecretsWrongKey = errors.New("no key opens the database's secrets")

// canaryText is what the canary seals.
const canaryText = "resellerd secrets canary"

// checkCanary checks the keys against the canary, the one value sealed under the key that
// sealed first (or last rotated): a keyring none of whose keys opens it would read none of the
// secrets, and write new ones under a key the other replicas lack. With keys and no canary yet
// it writes one; with no key and a canary it refuses. A locked keyring is not checked.
func (s *Store) checkCanary(ctx context.Context) error {
	if s.keys != nil && !s.keys.Seals() {
		return nil
	}
	stored, err := s.canary(ctx)
	if errors.Is(err, store.ErrNotFound) && s.keys.Seals() {
		stored, err = s.writeCanary(ctx)
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil // no key and nothing sealed
	case err != nil:
		return err
	case s.keys == nil:
		return fmt.Errorf("sqlstore: %w", ErrSecretsNeedKey)
	}
	open := s.keys.Open
	if secrets.IsLegacy(stored) { // sealed before owners were bound: bindOwners seals it again
		open = s.keys.OpenLegacy
	}
	if plain, err := open(secretsCanary.cell(int64(1), noOwner), stored); err != nil || plain != canaryText {
		return fmt.Errorf("sqlstore: %w: none of the keys of %s decrypts them (they are encrypted under key id %s)",
			ErrSecretsWrongKey, s.keys.Source(), secrets.SealedKeyID(stored))
	}
	return nil
}

// canary reads the stored canary; ErrNotFound when there is none.
func (s *Store) canary(ctx context.Context) (string, error) {
	var stored string
	if err := s.queryRow(ctx, `SELECT sealed FROM secrets_canary WHERE id = 1`).Scan(&stored); err != nil {
		return "", fmt.Errorf("sqlstore: secrets canary: %w", err)
	}
	return stored, nil
}

// writeCanary seals the canary under the first key unless a replica starting at once wrote
// one first, and returns the one stored.
func (s *Store) writeCanary(ctx context.Context) (string, error) {
	sealed, err := s.keys.Seal(secretsCanary.cell(int64(1), noOwner), canaryText)
	if err != nil {
		return "", err
	}
	err = s.WithTx(ctx, func(tx store.Tx) error {
		_, err := tx.(queries).exec(ctx, `INSERT INTO secrets_canary (id, sealed) VALUES (1, ?) ON CONFLICT (id) DO NOTHING`, sealed)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("sqlstore: write secrets canary: %w", err)
	}
	return s.canary(ctx)
}

// seal is plain as stored in column c of row, owned by the account owner.
func (q queries) seal(c sealedColumn, row any, owner int64, plain string) (string, error) {
	if plain == c.empty {
		return plain, nil
	}
	sealed, err := q.keys.Seal(c.cell(row, owner), plain)
	if err != nil {
		return "", fmt.Errorf("sqlstore: %w", err)
	}
	return sealed, nil
}

// open is the plain value of stored, read from column c of row, owned by the account owner.
func (q queries) open(c sealedColumn, row any, owner int64, stored string) (string, error) {
	if stored == c.empty {
		return stored, nil
	}
	plain, err := q.keys.Open(c.cell(row, owner), stored)
	if err != nil {
		return "", fmt.Errorf("sqlstore: %w", err)
	}
	return plain, nil
}

// sealJSON is v, encoded as JSON, as stored in the JSON column c of row, owned by owner.
func (q queries) sealJSON(c sealedColumn, row any, owner int64, v any) (string, error) {
	text, err := jsonText(v, c.empty)
	if err != nil {
		return "", err
	}
	return q.seal(c, row, owner, text)
}

// openJSON decodes the JSON column c of row, owned by owner, stored as stored, into dst.
func (q queries) openJSON(c sealedColumn, row any, owner int64, stored string, dst any) error {
	text, err := q.open(c, row, owner, stored)
	if err != nil {
		return err
	}
	return jsonColumn{dst}.Scan(text)
}

// insertValue is what an INSERT writes in column c for plain: with a key the empty value, which
// sealInserted replaces once the row has its id; without one the value as stored plain.
func (q queries) insertValue(c sealedColumn, plain string) (string, error) {
	if q.keys.Seals() {
		return c.empty, nil
	}
	return q.seal(c, "new", noOwner, plain) // without a key: stored plain, no cell in it
}

// insertJSON is insertValue of v encoded as JSON.
func (q queries) insertJSON(c sealedColumn, v any) (string, error) {
	text, err := jsonText(v, c.empty)
	if err != nil {
		return "", err
	}
	return q.insertValue(c, text)
}

// newSecret is the plain value of column c for a row just inserted with insertValue, and the
// account the row belongs to.
type newSecret struct {
	row   int64
	owner int64
	plain string
}

// sealInserted seals the values of rows just inserted (see insertValue) with one UPDATE, in the
// INSERT's transaction; nothing without a key or with only empty values.
func (q queries) sealInserted(ctx context.Context, c sealedColumn, values []newSecret) error {
	if !q.keys.Seals() {
		return nil
	}
	args := make([]any, 0, 2*len(values))
	for _, v := range values {
		if v.plain == c.empty {
			continue
		}
		sealed, err := q.seal(c, v.row, v.owner, v.plain)
		if err != nil {
			return err
		}
		args = append(args, v.row, sealed)
	}
	rows := len(args) / 2
	if rows == 0 {
		return nil
	}
	n, err := rowsAffected(q.exec(ctx, `WITH `+valuesCTE("v(id, sealed)", []string{"BIGINT", "TEXT"}, rows)+`
		UPDATE `+c.table+` SET `+c.column+` = (SELECT v.sealed FROM v WHERE v.id = `+c.table+`.`+c.key+`)
		WHERE `+c.table+`.`+c.key+` IN (SELECT id FROM v)`, args...))
	if err != nil {
		return fmt.Errorf("sqlstore: seal %s of %d new rows: %w", c, rows, err)
	}
	if n != int64(rows) {
		return fmt.Errorf("sqlstore: seal %s: %d of %d new rows: %w", c, n, rows, store.ErrNotFound)
	}
	return nil
}
