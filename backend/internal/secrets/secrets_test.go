package secrets

import (
	"bytes"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rawKey is a key of n repeated bytes.
func rawKey(b byte) []byte { return bytes.Repeat([]byte{b}, KeySize) }

func mustNew(t *testing.T, raw ...[]byte) *Keyring {
	t.Helper()
	k, err := New("test keys", raw...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

var cell = Cell{Table: "instances", Column: "password", Row: "7"}

// TestSealOpen: a sealed value is not the plain text, names the first key's id, differs each
// time (a nonce per value) and opens to the plain text in its own cell.
func TestSealOpen(t *testing.T) {
	k := mustNew(t, rawKey(1))
	const plain = "root-Pa55word"
	a, err := k.Seal(cell, plain)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := k.Seal(cell, plain)
	if strings.Contains(a, plain) || !strings.HasPrefix(a, "enc:v2:"+KeyID(rawKey(1))+":") {
		t.Fatalf("sealed = %q", a)
	}
	if a == b {
		t.Fatal("two seals of one value are equal: the nonce is not random")
	}
	for _, s := range []string{a, b} {
		got, err := k.Open(cell, s)
		if err != nil || got != plain {
			t.Fatalf("Open = %q, %v", got, err)
		}
	}
	if !k.Current(a) || !strings.HasPrefix(a, k.CurrentPrefix()) {
		t.Fatal("a value sealed under the first key is not current")
	}
	if SealedKeyID(a) != KeyID(rawKey(1)) || SealedKeyID(plain) != "none" {
		t.Fatalf("SealedKeyID = %q, %q", SealedKeyID(a), SealedKeyID(plain))
	}
}

// TestSealedValueBoundToItsCell: the same value copied into another row, another column or
// another table does not open there.
func TestSealedValueBoundToItsCell(t *testing.T) {
	k := mustNew(t, rawKey(1))
	sealed, err := k.Seal(cell, "secret")
	if err != nil {
		t.Fatal(err)
	}
	for _, other := range []Cell{
		{Table: "instances", Column: "password", Row: "8"},
		{Table: "snapshots", Column: "password", Row: "7"},
		{Table: "instances", Column: "username", Row: "7"},
	} {
		if _, err := k.Open(other, sealed); !errors.Is(err, ErrNotOpened) {
			t.Errorf("opened in %s: err = %v", other, err)
		}
	}
}

// TestOldKeyOpensAfterRotation: a key file with a new first key still opens what the old key
// sealed, which is then not current; a keyring without the old key cannot.
func TestOldKeyOpensAfterRotation(t *testing.T) {
	old := mustNew(t, rawKey(1))
	sealed, _ := old.Seal(cell, "secret")
	rotated := mustNew(t, rawKey(2), rawKey(1))
	if got, err := rotated.Open(cell, sealed); err != nil || got != "secret" {
		t.Fatalf("Open with the old key second = %q, %v", got, err)
	}
	if rotated.Current(sealed) {
		t.Fatal("a value under the second key is current")
	}
	resealed, _ := rotated.Seal(cell, "secret")
	if !rotated.Current(resealed) {
		t.Fatal("a value sealed by the rotated keyring is not current")
	}
	onlyNew := mustNew(t, rawKey(2))
	_, err := onlyNew.Open(cell, sealed)
	if !errors.Is(err, ErrNoKey) || !strings.Contains(err.Error(), KeyID(rawKey(1))) {
		t.Fatalf("Open without the old key: %v", err)
	}
	if strings.Contains(err.Error(), "secret\"") {
		t.Fatalf("the error shows the value: %v", err)
	}
}

// TestPlainValues: without a key values are stored plain, a plain value that starts like a
// stored form is escaped and reads back as itself, plain values of before are read as they
// are, and a sealed value does not open without a key.
func TestPlainValues(t *testing.T) {
	var none *Keyring
	for _, plain := range []string{"whsec_abc", "enc:v2:abcd1234:xyz", "enc:v1:abcd1234:xyz", "plain:x", "enc:", "{\"a\":\"b\"}"} {
		stored, err := none.Seal(cell, plain)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []*Keyring{none, mustNew(t, rawKey(1))} {
			if got, err := k.Open(cell, stored); err != nil || got != plain {
				t.Errorf("Open(%q) = %q, %v; want %q", stored, got, err, plain)
			}
		}
	}
	if got, _ := none.Seal(cell, "whsec_abc"); got != "whsec_abc" {
		t.Errorf("a plain value is stored as %q", got)
	}
	sealed, _ := mustNew(t, rawKey(1)).Seal(cell, "x")
	if _, err := none.Open(cell, sealed); !errors.Is(err, ErrNoKey) {
		t.Errorf("Open without a key: %v", err)
	}
	if none.Current("x") || !none.Current("") {
		t.Error("without a key only the empty value is current")
	}
}

// TestLocked: a locked keyring stores no secret plain and opens nothing sealed, but reads plain
// values and writes empty ones.
func TestLocked(t *testing.T) {
	k := Locked("no key file")
	if _, err := k.Seal(cell, "x"); !errors.Is(err, ErrNoKey) {
		t.Errorf("Seal: %v", err)
	}
	if got, err := k.Seal(cell, ""); err != nil || got != "" {
		t.Errorf("Seal of empty = %q, %v", got, err)
	}
	if got, err := k.Open(cell, "plain text"); err != nil || got != "plain text" {
		t.Errorf("Open of plain = %q, %v", got, err)
	}
	sealed, _ := mustNew(t, rawKey(1)).Seal(cell, "x")
	if _, err := k.Open(cell, sealed); !errors.Is(err, ErrNoKey) {
		t.Errorf("Open of sealed: %v", err)
	}
}

// TestOpenRefusesAlteredValues: a changed byte, a cut value or an unknown version is an error.
func TestOpenRefusesAlteredValues(t *testing.T) {
	k := mustNew(t, rawKey(1))
	sealed, _ := k.Seal(cell, "secret")
	mid := len(sealed) - 8 // inside the ciphertext, away from the last character's spare bits
	swap := byte('A')
	if sealed[mid] == 'A' {
		swap = 'B'
	}
	flipped := sealed[:mid] + string(swap) + sealed[mid+1:]
	for name, s := range map[string]string{
		"flipped":  flipped,
		"cut":      sealed[:len(sealed)-10],
		"no body":  "enc:v2:" + k.FirstID(),
		"short":    "enc:v2:" + k.FirstID() + ":AAAA",
		"version3": strings.Replace(sealed, "enc:v2:", "enc:v3:", 1),
		"version1": strings.Replace(sealed, "enc:v2:", "enc:v1:", 1),
	} {
		if _, err := k.Open(cell, s); err == nil {
			t.Errorf("%s: opened", name)
		}
	}
}

func TestParseKeyFile(t *testing.T) {
	k1, k2 := base64.StdEncoding.EncodeToString(rawKey(1)), base64.StdEncoding.EncodeToString(rawKey(2))
	k, err := Parse([]byte("# rotated 2025-01-01\n\n  "+k2+"  \n"+k1+"\n"), "keys.txt")
	if err != nil {
		t.Fatal(err)
	}
	if k.FirstID() != KeyID(rawKey(2)) || len(k.keys) != 2 {
		t.Fatalf("first = %s, %d keys", k.FirstID(), len(k.keys))
	}
	short := base64.StdEncoding.EncodeToString(rawKey(1)[:16])
	for name, text := range map[string]string{
		"empty":      "",
		"comments":   "# nothing\n\n",
		"not base64": k1 + "\nnot-base64!\n",
		"short key":  short + "\n",
	} {
		_, err := Parse([]byte(text), "keys.txt")
		if err == nil || !strings.Contains(err.Error(), "keys.txt") {
			t.Errorf("%s: err = %v, want one naming the file", name, err)
		}
		if err != nil && (strings.Contains(err.Error(), k1) || strings.Contains(err.Error(), short)) {
			t.Errorf("%s: the error shows a key: %v", name, err)
		}
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(path, []byte(base64.StdEncoding.EncodeToString(rawKey(3))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	k, err := Load(path)
	if err != nil || k.FirstID() != KeyID(rawKey(3)) || !strings.Contains(k.Source(), path) {
		t.Fatalf("Load = %v, %v", k, err)
	}
	if _, err := Load(path + ".missing"); err == nil || !strings.Contains(err.Error(), path+".missing") {
		t.Fatalf("Load of a missing file: %v", err)
	}
}

// TestDevKeyStable: dev's key is the same in every process, so a dev database opens in any
// later dev run.
func TestDevKeyStable(t *testing.T) {
	sealed, err := Dev().Seal(cell, "x")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Dev().Open(cell, sealed); err != nil || got != "x" {
		t.Fatalf("Open = %q, %v", got, err)
	}
}

// TestSealedValueBoundToItsOwner: a value sealed for a row of one account does not open for the
// same row once it belongs to another account (its account_id changed), nor for no account.
func TestSealedValueBoundToItsOwner(t *testing.T) {
	k := mustNew(t, rawKey(1))
	mine := Cell{Table: "instances", Column: "password", Row: "7", Owner: "1"}
	sealed, err := k.Seal(mine, "root-pw")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := k.Open(mine, sealed); err != nil || got != "root-pw" {
		t.Fatalf("Open for its owner = %q, %v", got, err)
	}
	for _, owner := range []string{"2", "", "10"} {
		moved := mine
		moved.Owner = owner
		if _, err := k.Open(moved, sealed); !errors.Is(err, ErrNotOpened) {
			t.Errorf("owner %q: %v, want ErrNotOpened", owner, err)
		}
	}
}

// TestLegacyValuesOpenOnlyToBeSealedAgain: a v1 value (bound to its cell without an owner, as
// the resellerd before sealed them) opens through OpenLegacy alone, for the store to seal it
// again at start; Open refuses it, so one copied back from an old backup reads nothing.
func TestLegacyValuesOpenOnlyToBeSealedAgain(t *testing.T) {
	k := mustNew(t, rawKey(1))
	c := Cell{Table: "instances", Column: "password", Row: "7", Owner: "1"}
	key := k.keys[0]
	nonce := make([]byte, key.aead.NonceSize())
	legacy := "enc:v1:" + key.id + ":" + base64.RawURLEncoding.EncodeToString(key.aead.Seal(nonce, nonce, []byte("old-pw"), c.legacyData()))
	if got, err := k.OpenLegacy(c, legacy); err != nil || got != "old-pw" {
		t.Fatalf("OpenLegacy = %q, %v", got, err)
	}
	if _, err := k.Open(c, legacy); !errors.Is(err, ErrLegacy) || !errors.Is(err, ErrNotOpened) {
		t.Fatalf("Open of a v1 value: %v, want ErrLegacy", err)
	}
	if SealedKeyID(legacy) != key.id || !IsLegacy(legacy) {
		t.Fatalf("SealedKeyID = %q, IsLegacy = %v", SealedKeyID(legacy), IsLegacy(legacy))
	}
	sealed, _ := k.Seal(c, "new-pw")
	if _, err := k.OpenLegacy(c, sealed); err == nil {
		t.Fatal("OpenLegacy opened a v2 value")
	}
}

// TestKeyHasher: a keyed hash depends on the secret and on the digest, is not the digest, and
// is the same for the same secret (so every replica and every restart computes it alike).
func TestKeyHasher(t *testing.T) {
	a, err := NewKeyHasher(rawKey(1))
	if err != nil {
		t.Fatal(err)
	}
	again, _ := NewKeyHasher(rawKey(1))
	other, _ := NewKeyHasher(rawKey(2))
	d1, d2 := bytes.Repeat([]byte{9}, 32), bytes.Repeat([]byte{8}, 32)
	switch {
	case !bytes.Equal(a.Hash(d1), again.Hash(d1)):
		t.Fatal("one secret hashes one digest two ways")
	case bytes.Equal(a.Hash(d1), other.Hash(d1)), bytes.Equal(a.Hash(d1), a.Hash(d2)), bytes.Equal(a.Hash(d1), d1):
		t.Fatal("the hash does not depend on both the secret and the digest")
	}
	if bytes.Equal(a.Tag(1, d1), a.Tag(2, d1)) || bytes.Equal(a.Tag(1, d1), a.Tag(1, d2)) ||
		!bytes.Equal(a.Tag(1, d1), again.Tag(1, d1)) || bytes.Equal(a.Tag(1, d1), other.Tag(1, d1)) {
		t.Fatal("a tag does not depend on the account, the hash and the secret alone")
	}
	if _, err := NewKeyHasher(rawKey(1)[:16]); err == nil {
		t.Fatal("a 16-byte secret was taken")
	}
}
