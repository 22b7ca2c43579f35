package sqlstore

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/secrets"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// TestSecretsBoundToTheirAccount: a row moved to another account (its account_id changed, as
// whoever can write the database could) no longer opens: not an instance's password, not a
// snapshot's, not an order's app inputs, not the app installs of a moved instance. So the API
// cannot be made to show one account another's secrets.
func TestSecretsBoundToTheirAccount(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, open opener) {
		using(t, open, func(s *Store) {
			ctx := context.Background()
			r := writeSecrets(t, s, "own")
			thief := writeSecrets(t, s, "thief").account
			for _, move := range []struct {
				query string
				id    int64
			}{
				{`UPDATE instances SET account_id = ?, account_seq = account_seq + 1000 WHERE id = ?`, r.instances[0]},
				{`UPDATE snapshots SET account_id = ? WHERE id = ?`, r.snapshot},
				{`UPDATE orders SET account_id = ? WHERE id = ?`, r.order},
			} {
				if _, err := s.exec(ctx, move.query, thief, move.id); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.InstanceByID(ctx, r.instances[0]); !errors.Is(err, secrets.ErrNotOpened) {
				t.Errorf("an instance moved to another account: %v, want ErrNotOpened", err)
			}
			if _, err := s.queries.AppInstalls(ctx, r.instances[0]); !errors.Is(err, secrets.ErrNotOpened) {
				t.Errorf("the installs of a moved instance: %v, want ErrNotOpened", err)
			}
			if _, err := s.SnapshotByID(ctx, r.snapshot); !errors.Is(err, secrets.ErrNotOpened) {
				t.Errorf("a snapshot moved to another account: %v, want ErrNotOpened", err)
			}
			if _, err := s.OrderByID(ctx, r.order); !errors.Is(err, secrets.ErrNotOpened) {
				t.Errorf("an order moved to another account: %v, want ErrNotOpened", err)
			}
			if in, err := s.InstanceByID(ctx, r.instances[1]); err != nil || in.Password != r.plain["password 1"] {
				t.Errorf("the instance left in place: %q, %v", in.Password, err)
			}
		}, WithSecrets(testKey(t, 1)))
	})
}

// sealV1 seals plain as resellerd sealed values before owners were bound (enc:v1:, the cell
// without its owner as associated data), under the key made of fill.
func sealV1(t *testing.T, fill byte, c sealedColumn, row any, plain string) string {
	t.Helper()
	raw := bytes.Repeat([]byte{fill}, secrets.KeySize)
	block, err := aes.NewCipher(raw)
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		t.Fatal(err)
	}
	cell := c.cell(row, noOwner)
	ad := []byte("resellerd secret\x00" + cell.Table + "\x00" + cell.Column + "\x00" + cell.Row)
	return "enc:v1:" + secrets.KeyID(raw) + ":" + base64.RawURLEncoding.EncodeToString(aead.Seal(nonce, nonce, []byte(plain), ad))
}

// downgrade makes the database as the resellerd before this one left it: every sealed value in
// the v1 form, plain SHA-256 key digests, no key hash secret. It returns the v1 values by
// column and row.
func downgrade(t *testing.T, s *Store, keys *secrets.Keyring, fill byte) map[string]string {
	t.Helper()
	ctx := context.Background()
	v1 := map[string]string{}
	for _, c := range sealedColumns {
		rows, err := list(ctx, s.queries, c.String(), c.scanStored, `SELECT `+c.key+`, `+c.column+`, `+c.ownerColumn()+` FROM `+c.table+`
			WHERE `+c.column+` <> ?`, c.empty)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			plain, err := keys.Open(c.cell(r.key, r.owner), r.stored)
			if err != nil {
				t.Fatal(err)
			}
			old := sealV1(t, fill, c, r.key, plain)
			v1[fmt.Sprint(c, r.key)] = old
			if _, err := s.exec(ctx, `UPDATE `+c.table+` SET `+c.column+` = ? WHERE `+c.key+` = ?`, old, r.key); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := s.exec(ctx, `DELETE FROM key_hash_secret`); err != nil {
		t.Fatal(err)
	}
	return v1
}

// TestKeyedHashesAndOwnersAtStart: a database as the resellerd before left it (v1 values, plain
// key digests) is moved at the first start with the key: every value reads back and is stored
// as v2, and each digest is replaced by its keyed hash, with no API key needed. Afterwards a
// plain digest written into accounts.key_hash matches nothing, even after another start, and a
// v1 value copied back from a backup opens nowhere.
func TestKeyedHashesAndOwnersAtStart(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, open opener) {
		ctx := context.Background()
		keys := testKey(t, 1)
		digest := func(key string) []byte { d := sha256.Sum256([]byte(key)); return d[:] }
		var r secretRows
		var v1 map[string]string
		using(t, open, func(s *Store) {
			r = writeSecrets(t, s, "old")
			v1 = downgrade(t, s, keys, 1)
			if _, err := s.exec(ctx, `UPDATE accounts SET key_hash = ? WHERE id = ?`, digest("key-of-before"), r.account); err != nil {
				t.Fatal(err)
			}
		}, WithSecrets(keys))

		using(t, open, func(s *Store) {
			checkReads(t, s, r)
			for column, values := range storedValues(t, s) {
				for _, v := range values {
					if !strings.HasPrefix(v, "enc:v2:") {
						t.Errorf("%s still holds %.10s… after the start", column, v)
					}
				}
			}
			hash, err := s.KeyHash(digest("key-of-before"))
			if err != nil || bytes.Equal(hash, digest("key-of-before")) {
				t.Fatalf("KeyHash = %x, %v; want a keyed hash", hash, err)
			}
			a, err := s.AccountByKeyHash(ctx, hash)
			if err != nil || a.ID != r.account {
				t.Fatalf("the key of before: account %d, %v; want %d", a.ID, err, r.account)
			}
			if tag, err := s.KeyTag(a.ID, hash); err != nil || tag == nil || !bytes.Equal(a.KeyTag, tag) {
				t.Fatalf("the key of before is tagged %x, want %x (%v)", a.KeyTag, tag, err)
			}
			if _, err := s.exec(ctx, `UPDATE accounts SET key_hash = ? WHERE id = ?`, digest("chosen-key"), r.account); err != nil {
				t.Fatal(err)
			}
			old := v1[fmt.Sprint(instancePassword, r.instances[0])]
			if _, err := s.exec(ctx, `UPDATE instances SET password = ? WHERE id = ?`, old, r.instances[0]); err != nil {
				t.Fatal(err)
			}
		}, WithSecrets(keys))

		using(t, open, func(s *Store) { // another start: nothing is moved again
			hash, err := s.KeyHash(digest("chosen-key"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.AccountByKeyHash(ctx, hash); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("a plain digest written into the database: %v, want it to match no key", err)
			}
			if _, err := s.InstanceByID(ctx, r.instances[0]); !errors.Is(err, secrets.ErrLegacy) {
				t.Fatalf("a v1 value copied back: %v, want ErrLegacy", err)
			}
		}, WithSecrets(keys))
	})
}

// TestKeyHashSecretMustBeSealed: a key hash secret written plain into the database (one whoever
// writes it chose, and could hash keys with) is refused at start.
func TestKeyHashSecretMustBeSealed(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, open opener) {
		keys := testKey(t, 1)
		using(t, open, func(s *Store) {
			chosen := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, secrets.KeyHashSecretSize))
			if _, err := s.exec(context.Background(), `UPDATE key_hash_secret SET sealed = ?`, chosen); err != nil {
				t.Fatal(err)
			}
		}, WithSecrets(keys))
		if _, err := open(WithSecrets(keys)); err == nil || !strings.Contains(err.Error(), "key_hash_secret") {
			t.Fatalf("open with a plain key hash secret: %v, want a refusal naming key_hash_secret", err)
		}
	})
}

// TestLockedStoreCannotHashKeys: a store opened without the key file (a locked keyring) on a
// database whose key hashes are keyed refuses to hash a key (it would write one that matches
// nothing); on a database without a key it hashes as before.
func TestLockedStoreCannotHashKeys(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, open opener) {
		d := sha256.Sum256([]byte("k"))
		using(t, open, func(s *Store) {
			if h, err := s.KeyHash(d[:]); err != nil || !bytes.Equal(h, d[:]) {
				t.Fatalf("without a key: %x, %v; want the digest", h, err)
			}
		}, WithSecrets(secrets.Locked("no key file")))
		using(t, open, func(*Store) {}, WithSecrets(testKey(t, 1)))
		using(t, open, func(s *Store) {
			if _, err := s.KeyHash(d[:]); !errors.Is(err, ErrKeyHashNeedsKey) {
				t.Fatalf("locked on a keyed database: %v, want ErrKeyHashNeedsKey", err)
			}
		}, WithSecrets(secrets.Locked("no key file")))
	})
}
