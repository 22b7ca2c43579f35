package sqlstore

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/secrets"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// API key hashes are keyed once the database has a key (secrets.KeyHasher): accounts.key_hash
// holds HMAC-SHA256 under a key derived from a random secret, itself sealed in key_hash_secret
// like any secret (migration 0016), of the key's SHA-256 digest. The service hashes a key with
// Store.KeyHash before it looks an account up or writes one.
//
// The first start with a key writes the secret and, in that one transaction, moves the database
// to it (bindSecrets): every stored digest is replaced by its keyed hash, which needs no API key,
// and every value sealed in the v1 form, bound to its row only, is sealed again as v2, bound to
// its row and its account. Once the secret is there nothing is moved again: a plain digest
// written into accounts.key_hash afterwards matches no key, and a v1 value copied back from an
// old backup opens nowhere.

// ErrKeyHashNeedsKey refuses to write an API key hash, without the key file, into a database
// whose hashes are keyed: it would match nothing.
var ErrKeyHashNeedsKey = errors.New("the database's API key hashes are keyed by its secrets key: " +
	"give the key file with --secrets-key-file")

// keyHashing is how the store hashes API keys: set once at Open (openKeyHashing).
type keyHashing struct {
	hasher *secrets.KeyHasher // nil: digests are stored as they are
	locked bool               // the database's hashes are keyed, but the store has no key to hash with
}

// KeyTag is the tag binding hash, a KeyHash, to the account id (secrets.KeyHasher.Tag), which
// the service checks after a lookup; nil while the database has no key. A store opened with a
// locked keyring on a keyed database cannot make one (ErrKeyHashNeedsKey).
func (s *Store) KeyTag(id int64, hash []byte) ([]byte, error) {
	switch {
	case s.hashing.locked:
		return nil, fmt.Errorf("sqlstore: %w", ErrKeyHashNeedsKey)
	case s.hashing.hasher == nil:
		return nil, nil
	}
	return s.hashing.hasher.Tag(id, hash), nil
}

// KeyHash is what the database stores, and is looked up by, for the API key whose SHA-256 is
// digest: its keyed hash once the database has a key, else digest itself. A store opened with
// a locked keyring on a keyed database cannot hash (ErrKeyHashNeedsKey).
func (s *Store) KeyHash(digest []byte) ([]byte, error) {
	switch {
	case s.hashing.locked:
		return nil, fmt.Errorf("sqlstore: %w", ErrKeyHashNeedsKey)
	case s.hashing.hasher == nil:
		return digest, nil
	}
	return s.hashing.hasher.Hash(digest), nil
}

// openKeyHashing reads the database's key hash secret, after checkCanary: with a key it writes
// one when there is none, moving the database to it (bindSecrets); a locked keyring only notes
// whether there is one; without a key there is none (checkCanary refused any keyed database).
func (s *Store) openKeyHashing(ctx context.Context) error {
	if s.keys == nil {
		return nil
	}
	stored, err := s.keyHashSecret(ctx)
	if !s.keys.Seals() {
		if errors.Is(err, store.ErrNotFound) {
			return nil // plain digests, keyed at the next start with a key
		}
		s.hashing.locked = err == nil
		return err
	}
	if errors.Is(err, store.ErrNotFound) {
		if err := s.bindSecrets(ctx); err != nil {
			return err
		}
		stored, err = s.keyHashSecret(ctx)
	}
	if err != nil {
		return err
	}
	hasher, err := s.openKeyHasher(stored)
	if err != nil {
		return err
	}
	s.hashing.hasher = hasher
	return nil
}

// keyHashSecret reads the stored key hash secret; ErrNotFound when there is none.
func (s *Store) keyHashSecret(ctx context.Context) (string, error) {
	var stored string
	if err := s.queryRow(ctx, `SELECT sealed FROM key_hash_secret WHERE id = 1`).Scan(&stored); err != nil {
		return "", fmt.Errorf("sqlstore: key hash secret: %w", err)
	}
	return stored, nil
}

// openKeyHasher opens the stored key hash secret. It must be sealed: a plain one would be a
// secret anyone with write access to the database chose, and could hash keys with.
func (s *Store) openKeyHasher(stored string) (*secrets.KeyHasher, error) {
	if !secrets.IsSealed(stored) {
		return nil, fmt.Errorf("sqlstore: %s is not sealed (written into the database by hand?); resellerd writes it sealed, "+
			"and will not key API key hashes by a secret it cannot vouch for", keyHashSecret)
	}
	text, err := s.keys.Open(keyHashSecret.cell(int64(1), noOwner), stored)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: %w", err)
	}
	raw, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: %s is not base64", keyHashSecret)
	}
	return secrets.NewKeyHasher(raw)
}

// bindSecrets writes a new key hash secret and, in the same transaction, keys every stored API
// key digest by it and seals every v1 value again as v2 (see the top of this file), unless a
// replica starting at once wrote one first, in which case it changes nothing.
func (s *Store) bindSecrets(ctx context.Context) error {
	raw := make([]byte, secrets.KeyHashSecretSize)
	if _, err := rand.Read(raw); err != nil {
		return fmt.Errorf("sqlstore: key hash secret: %w", err)
	}
	hasher, err := secrets.NewKeyHasher(raw)
	if err != nil {
		return err
	}
	sealed, err := s.keys.Seal(keyHashSecret.cell(int64(1), noOwner), base64.StdEncoding.EncodeToString(raw))
	if err != nil {
		return fmt.Errorf("sqlstore: key hash secret: %w", err)
	}
	err = s.WithTx(ctx, func(tx store.Tx) error {
		q := tx.(queries) // WithTx always passes the store's own queries
		n, err := rowsAffected(q.exec(ctx, `INSERT INTO key_hash_secret (id, sealed) VALUES (1, ?) ON CONFLICT (id) DO NOTHING`, sealed))
		if err != nil || n == 0 {
			return err
		}
		if err := q.keyDigests(ctx, hasher); err != nil {
			return err
		}
		return q.sealLegacyValues(ctx)
	})
	if err != nil {
		return fmt.Errorf("sqlstore: bind secrets to the key file: %w", err)
	}
	return nil
}

// keyDigests replaces every account's stored key digest by its keyed hash, tagged with the
// account's id.
func (q queries) keyDigests(ctx context.Context, hasher *secrets.KeyHasher) error {
	type digest struct {
		id   int64
		hash []byte
	}
	rows, err := list(ctx, q, "key digests", func(r rowScanner) (digest, error) {
		var d digest
		err := r.Scan(&d.id, &d.hash)
		return d, err
	}, `SELECT id, key_hash FROM accounts ORDER BY id`)
	if err != nil {
		return err
	}
	for _, d := range rows {
		hash := hasher.Hash(d.hash)
		res, err := q.exec(ctx, `UPDATE accounts SET key_hash = ?, key_tag = ? WHERE id = ?`, hash, hasher.Tag(d.id, hash), d.id)
		if err := checkOneRow(res, err, "key the key hash of account", d.id); err != nil {
			return err
		}
	}
	return nil
}

// sealLegacyValues seals every value of every sealed column stored in the v1 form (bound to its
// cell only) again as v2, bound to its cell and its row's account.
func (q queries) sealLegacyValues(ctx context.Context) error {
	for _, c := range sealedColumns {
		rows, err := list(ctx, q, c.String(), c.scanStored, `SELECT `+c.key+`, `+c.column+`, `+c.ownerColumn()+` FROM `+c.table+`
			WHERE substr(`+c.column+`, 1, `+fmt.Sprint(len(secrets.LegacyPrefix))+`) = ?`, secrets.LegacyPrefix)
		if err != nil {
			return err
		}
		for _, r := range rows {
			plain, err := q.keys.OpenLegacy(c.cell(r.key, noOwner), r.stored)
			if err != nil {
				return fmt.Errorf("sqlstore: %w", err)
			}
			sealed, err := q.seal(c, r.key, r.owner, plain)
			if err != nil {
				return err
			}
			if _, err := q.exec(ctx, `UPDATE `+c.table+` SET `+c.column+` = ? WHERE `+c.key+` = ?`, sealed, r.key); err != nil {
				return fmt.Errorf("sqlstore: seal %s again: %w", c, err)
			}
		}
	}
	return nil
}
