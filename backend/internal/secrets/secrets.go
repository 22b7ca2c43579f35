// Package secrets seals the secrets resellerd keeps in its database (webhook signing secrets,
// root passwords, app inputs and the credentials installers report) with AES-256-GCM, so the
// database and every backup of it hold ciphertext instead (issue 27, part 5). It is the one
// home of the rule: the store seals a value as it writes it and opens it as it reads it, and
// `resellerd secrets rotate` moves old values to the newest key through the same functions.
//
// A stored value is one of these forms, told apart by its start:
//
//	enc:v2:<key id>:<base64url(nonce | ciphertext)>   sealed under the key of that id, bound to its cell and owner
//	enc:v1:<key id>:<base64url(nonce | ciphertext)>   sealed by an earlier resellerd, bound to its cell only
//	plain:<value>                                      a plain value that starts like one of these forms
//	anything else                                      a plain value, as resellerd stored every value before
//
// so a database written without a key (or before keys existed) is read as it is, and a value is
// sealed whenever it is next written with a key, or by rotate. The key id is a short hash of the
// key: the right key of a key file is found without trying each, and rotate skips a value
// already under the first key by its prefix alone. Each value has a random 96-bit nonce, and its
// Cell (table, column, row id and owning account) is the associated data, so a value copied into
// another row or column of the database, or whose row is moved to another account, does not
// open there: nobody with write access to the database alone can make the API show one account
// another's password (backend/docs/sharing-threat-model.md).
//
// Open reads v2 only: a v1 value, bound to its row but not to the account owning the row, would
// still open once a row is moved to another account (its account_id changed), so the store
// seals every v1 value again as v2 once, at the first start with a key (OpenLegacy), and
// refuses v1 from then on, should an old one be copied back from a backup.
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the size of a key: AES-256.
const KeySize = 32

// The prefixes of the stored forms (see the package comment).
const (
	sealedPrefix = "enc:v2:"
	legacyPrefix = "enc:v1:" // bound to the cell only (see the package comment)
	plainPrefix  = "plain:"
	familyPrefix = "enc:" // every sealed form, this version's and any later one
)

// ErrNoKey means a sealed value names a key the keyring does not have, or the keyring has no
// key at all (Locked).
var ErrNoKey = errors.New("secrets: no key for the value")

// ErrNotOpened means a key of the right id did not open the value: it was altered, or copied
// from another cell.
var ErrNotOpened = errors.New("secrets: the value does not open (altered, or moved from another row or column)")

// Cell is where a value is stored: one column of one row, and the account that row belongs to.
// It is the associated data of the value's encryption.
type Cell struct {
	Table  string
	Column string
	Row    string // the row's primary key, as text
	// Owner is the id of the account the row belongs to, as text; "" for a row of no account
	// (the simulator's machines, the canary).
	Owner string
}

func (c Cell) String() string { return c.Table + "." + c.Column + " of row " + c.Row }

// associatedData binds a v2 value to its cell and owner; the NUL separators keep two cells'
// texts apart.
func (c Cell) associatedData() []byte {
	return []byte("resellerd secret v2\x00" + c.Table + "\x00" + c.Column + "\x00" + c.Row + "\x00" + c.Owner)
}

// legacyData is the associated data of a v1 value: its cell, without its owner.
func (c Cell) legacyData() []byte {
	return []byte("resellerd secret\x00" + c.Table + "\x00" + c.Column + "\x00" + c.Row)
}

// key is one AES-256-GCM key and its id.
type key struct {
	id   string
	aead cipher.AEAD
}

// Keyring is the keys of a key file: the first seals, every one opens. A nil *Keyring is no
// key at all: values are stored plain (escaped where they would read as sealed) and a sealed
// value does not open. A Locked keyring has no key either but refuses to store a secret plain.
type Keyring struct {
	keys   []key
	source string // where the keys came from, named in errors: the key file
}

// New returns the keyring of raw keys (KeySize bytes each), the first sealing; source names
// where they came from in errors (the key file's path).
func New(source string, raw ...[]byte) (*Keyring, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("secrets: %s has no key", source)
	}
	k := &Keyring{source: source}
	for i, b := range raw {
		if len(b) != KeySize {
			return nil, fmt.Errorf("secrets: %s: key %d is %d bytes; a key is %d", source, i+1, len(b), KeySize)
		}
		block, err := aes.NewCipher(b)
		if err != nil {
			return nil, fmt.Errorf("secrets: %s: key %d: %w", source, i+1, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("secrets: %s: key %d: %w", source, i+1, err)
		}
		k.keys = append(k.keys, key{id: KeyID(b), aead: aead})
	}
	return k, nil
}

// Locked is a keyring for a process that must not read or write a secret: one that opens a
// database whose secrets are sealed without its key (the account commands, which touch none).
// Sealing a non-empty value and opening a sealed one are ErrNoKey, so nothing is ever stored
// plain beside sealed values by mistake.
func Locked(source string) *Keyring { return &Keyring{source: source} }

// KeyID is the id of raw in sealed values: the first 8 hex digits of a hash of the key, which
// tells keys apart without saying anything of them.
func KeyID(raw []byte) string {
	sum := sha256.Sum256(append([]byte("resellerd secrets key id\x00"), raw...))
	return hex.EncodeToString(sum[:4])
}

// Source names where the keys came from.
func (k *Keyring) Source() string {
	if k == nil {
		return "no key"
	}
	return k.source
}

// Seals reports whether values written through k are sealed (it has a key).
func (k *Keyring) Seals() bool { return k != nil && len(k.keys) > 0 }

// FirstID is the id of the key that seals; "" without one.
func (k *Keyring) FirstID() string {
	if !k.Seals() {
		return ""
	}
	return k.keys[0].id
}

// Seal returns plain as it is stored in cell c: sealed under the first key, or without a key
// plain (with the plain: prefix when it would otherwise read as a stored form). The empty value
// stays empty: there is nothing in it to hide, and "not set yet" stays visible to SQL.
func (k *Keyring) Seal(c Cell, plain string) (string, error) {
	switch {
	case plain == "":
		return "", nil
	case k == nil:
		return escape(plain), nil
	case len(k.keys) == 0:
		return "", fmt.Errorf("%w: %s seals nothing (%s)", ErrNoKey, c, k.source)
	}
	first := k.keys[0]
	nonce := make([]byte, first.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("secrets: nonce: %w", err)
	}
	sealed := first.aead.Seal(nonce, nonce, []byte(plain), c.associatedData())
	return sealedPrefix + first.id + ":" + base64.RawURLEncoding.EncodeToString(sealed), nil
}

// escape marks a plain value that starts like a stored form, so it reads back as itself.
func escape(plain string) string {
	if strings.HasPrefix(plain, familyPrefix) || strings.HasPrefix(plain, plainPrefix) {
		return plainPrefix + plain
	}
	return plain
}

// ErrLegacy means a value is sealed in the v1 form, bound to its row but not to the account
// owning it: resellerd seals those again at its first start of this version (OpenLegacy) and
// opens none after, so one is a value copied back from an older copy of the database.
var ErrLegacy = errors.New("secrets: the value is sealed in the old form (v1), not bound to its account; " +
	"resellerd sealed every such value again at its first start, so this one was copied back from an older copy of the database")

// Open returns the plain value of stored, read from cell c. A plain value (of any age) is
// returned as it is; a sealed one needs its key, and its own cell and owner. Errors name the
// cell and the key id, never the value.
func (k *Keyring) Open(c Cell, stored string) (string, error) {
	switch {
	case strings.HasPrefix(stored, plainPrefix):
		return strings.TrimPrefix(stored, plainPrefix), nil
	case !strings.HasPrefix(stored, familyPrefix):
		return stored, nil
	case IsLegacy(stored):
		return "", fmt.Errorf("%w (%w): %s", ErrNotOpened, ErrLegacy, c)
	case !IsSealed(stored):
		return "", fmt.Errorf("secrets: %s is sealed in a form this resellerd does not know (newer?)", c)
	}
	return k.open(c, strings.TrimPrefix(stored, sealedPrefix), c.associatedData())
}

// OpenLegacy opens a value sealed in the v1 form (IsLegacy), bound to its cell without its
// owner, so that the store can seal it again as v2 at start; nothing else reads v1.
func (k *Keyring) OpenLegacy(c Cell, stored string) (string, error) {
	if !IsLegacy(stored) {
		return "", fmt.Errorf("%w: %s is not sealed in the v1 form", ErrNotOpened, c)
	}
	return k.open(c, strings.TrimPrefix(stored, legacyPrefix), c.legacyData())
}

// LegacyPrefix is how every v1 value starts, so a database can find them by their prefix.
const LegacyPrefix = legacyPrefix

// IsLegacy reports whether stored is sealed in the v1 form (see the package comment).
func IsLegacy(stored string) bool { return strings.HasPrefix(stored, legacyPrefix) }

// IsSealed reports whether stored is sealed in this version's form: neither plain nor v1.
func IsSealed(stored string) bool { return strings.HasPrefix(stored, sealedPrefix) }

// open opens body ("<key id>:<base64url(nonce | ciphertext)>") of cell c with the associated
// data ad.
func (k *Keyring) open(c Cell, body string, ad []byte) (string, error) {
	id, text, ok := strings.Cut(body, ":")
	if !ok {
		return "", fmt.Errorf("%w: %s is malformed", ErrNotOpened, c)
	}
	sealed, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil {
		return "", fmt.Errorf("%w: %s is malformed", ErrNotOpened, c)
	}
	found := false
	if k != nil {
		for _, key := range k.keys {
			if key.id != id {
				continue
			}
			found = true
			n := key.aead.NonceSize()
			if len(sealed) < n {
				break
			}
			if plain, err := key.aead.Open(nil, sealed[:n], sealed[n:], ad); err == nil {
				return string(plain), nil
			}
		}
	}
	if !found {
		return "", fmt.Errorf("%w: %s is sealed under key %s, which %s does not hold", ErrNoKey, c, id, k.Source())
	}
	return "", fmt.Errorf("%w: %s under key %s", ErrNotOpened, c, id)
}

// Current reports whether stored needs no rotation: empty, or sealed under the first key.
// Without a key nothing is current but the empty value.
func (k *Keyring) Current(stored string) bool {
	return stored == "" || (k.Seals() && strings.HasPrefix(stored, k.CurrentPrefix()))
}

// CurrentPrefix is how every value sealed under the first key starts, so a database can pass
// over them by their prefix (rotation); "" without a key.
func (k *Keyring) CurrentPrefix() string {
	if !k.Seals() {
		return ""
	}
	return sealedPrefix + k.keys[0].id + ":"
}

// SealedKeyID is the id of the key a stored value (v2 or v1) is sealed under, for messages;
// "none" for a plain value.
func SealedKeyID(stored string) string {
	body, v2 := strings.CutPrefix(stored, sealedPrefix)
	if !v2 {
		var v1 bool
		if body, v1 = strings.CutPrefix(stored, legacyPrefix); !v1 {
			return "none"
		}
	}
	id, _, ok := strings.Cut(body, ":")
	if !ok {
		return "none"
	}
	return id
}
