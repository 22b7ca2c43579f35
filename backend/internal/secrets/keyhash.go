package secrets

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
)

// keyHashLabel is the fixed label the HMAC key of API key hashes is derived under, so the
// random secret it comes from (KeyHasher) serves that one purpose.
const keyHashLabel = "resellerd api key hashes v1"

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
type KeyHasher struct {
	key []byte
}

// NewKeyHasher returns the hasher of the random secret (KeyHashSecretSize bytes).
func NewKeyHasher(secret []byte) (*KeyHasher, error) {
	if len(secret) != KeyHashSecretSize {
		return nil, fmt.Errorf("secrets: the API key hash secret is %d bytes, want %d", len(secret), KeyHashSecretSize)
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(keyHashLabel))
	return &KeyHasher{key: mac.Sum(nil)}, nil
}

// Hash is the keyed hash of digest, the SHA-256 of an API key.
func (h *KeyHasher) Hash(digest []byte) []byte {
	mac := hmac.New(sha256.New, h.key)
	mac.Write(digest)
	return mac.Sum(nil)
}
