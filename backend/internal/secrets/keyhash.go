package secrets

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"strconv"
)

// keyHashLabel and keyTagLabel are the fixed labels the HMAC keys of API key hashes and of
// their tags are derived under, so the random secret they come from (KeyHasher) serves each
// purpose with a key of its own.
const (
	keyHashLabel = "resellerd api key hashes v1"
	keyTagLabel  = "resellerd api key tags v1"
)

// KeyHashSecretSize is the size of the random secret API key hashes are keyed from.
const KeyHashSecretSize = 32

// KeyHasher keys the hashes of API keys: what the database stores of a key is
// HMAC-SHA256(k, SHA-256(key)), k derived from a random secret the database keeps sealed under
// the key file, not SHA-256(key) alone. Whoever can write the database but lacks the key file
// cannot make a hash that matches a key of their choosing, so cannot act as an account
// (backend/docs/sharing-threat-model.md).
//
// The hash is of the SHA-256 digest an unkeyed database stores, so a database can be moved to
// keyed hashes at start without any API key: each stored digest is replaced by its HMAC.
//
// The secret is random and kept in the database, sealed like any secret, rather than derived
// from the key file's first key: `resellerd secrets rotate` replaces the first key, and hashes
// keyed by it could not be moved to the next one (they cannot be undone to the digest), so every
// API key would stop working at a rotation. Sealed, the secret is rotated with the other secrets
// and stays the same.
//
// A keyed hash alone still lets whoever writes the database and holds a key of an account of
// their own copy that account's hash into another account's row, and act as that account. So
// each hash has a tag (Tag) binding it to its account's id, which the service checks after the
// lookup: a hash moved to another row no longer matches its tag, and a tag for another id
// cannot be made without the secret.
type KeyHasher struct {
	key, tagKey []byte
}

// NewKeyHasher returns the hasher of the random secret (KeyHashSecretSize bytes).
func NewKeyHasher(secret []byte) (*KeyHasher, error) {
	if len(secret) != KeyHashSecretSize {
		return nil, fmt.Errorf("secrets: the API key hash secret is %d bytes, want %d", len(secret), KeyHashSecretSize)
	}
	return &KeyHasher{key: derive(secret, keyHashLabel), tagKey: derive(secret, keyTagLabel)}, nil
}

// derive is the key of secret for the purpose label: HMAC-SHA256(secret, label).
func derive(secret []byte, label string) []byte {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(label))
	return mac.Sum(nil)
}

// Tag binds hash, a keyed hash (Hash), to the account accountID: HMAC-SHA256 under a key of
// its own of the id and the hash.
func (h *KeyHasher) Tag(accountID int64, hash []byte) []byte {
	mac := hmac.New(sha256.New, h.tagKey)
	mac.Write([]byte(strconv.FormatInt(accountID, 10) + "\x00"))
	mac.Write(hash)
	return mac.Sum(nil)
}

// Hash is the keyed hash of digest, the SHA-256 of an API key.
func (h *KeyHasher) Hash(digest []byte) []byte {
	mac := hmac.New(sha256.New, h.key)
	mac.Write(digest)
	return mac.Sum(nil)
}
