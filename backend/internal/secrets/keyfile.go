package secrets

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// Load reads the key file at path (--secrets-key-file): one base64 key of KeySize bytes a
// line, the first sealing and every one opening; blank lines and lines starting with # are
// skipped. Errors name the file and the line, never a key.
func Load(path string) (*Keyring, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("secrets: key file: %w", err)
	}
	return Parse(text, path)
}

// Exposure is the mode of the key file at path when its group or others may read or write it
// (any of the bits 0o077), and 0 when only its owner may: a key file others can read gives them
// every secret of the database. Errors name the file.
func Exposure(path string) (fs.FileMode, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("secrets: key file: %w", err)
	}
	if fi.Mode().Perm()&0o077 == 0 {
		return 0, nil
	}
	return fi.Mode().Perm(), nil
}

// Parse reads the text of a key file (see Load); source names it in errors.
func Parse(text []byte, source string) (*Keyring, error) {
	var raw [][]byte
	lines := bufio.NewScanner(bytes.NewReader(text))
	for n := 1; lines.Scan(); n++ {
		line := strings.TrimSpace(lines.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(line)
		if err != nil {
			return nil, fmt.Errorf("secrets: key file %s: line %d is not base64 (make a key with: head -c 32 /dev/urandom | base64)", source, n)
		}
		if len(b) != KeySize {
			return nil, fmt.Errorf("secrets: key file %s: line %d holds %d bytes; a key is %d (head -c 32 /dev/urandom | base64)", source, n, len(b), KeySize)
		}
		raw = append(raw, b)
	}
	if err := lines.Err(); err != nil {
		return nil, fmt.Errorf("secrets: key file %s: %w", source, err)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("secrets: key file %s holds no key (one base64 key a line: head -c 32 /dev/urandom | base64)", source)
	}
	return New("key file "+source, raw...)
}

// devKeyLabel is what resellerd dev's key is derived from.
const devKeyLabel = "resellerd dev: the built-in key of throwaway dev databases; it is not a secret"

// Dev is the keyring `resellerd dev` seals with when it is given no key file: one key derived
// from a fixed label, the same in every dev process. A dev database holds throwaway test data,
// so the key protects nothing; what it gives is that dev stores secrets exactly as a keyed serve
// does (what a test sees is what production does), while any dev database, a state file or a
// checkpoint of it opens in any later dev run, whatever copied it. A random key would have to be
// stored beside the data it seals (so just as public) and carried by every copy of it.
func Dev() *Keyring {
	sum := sha256.Sum256([]byte(devKeyLabel))
	k, err := New("resellerd dev's built-in key", sum[:])
	if err != nil {
		panic(err) // a fixed 32-byte key: cannot happen
	}
	return k
}
