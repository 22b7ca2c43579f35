package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// HostIDFile is the file under --machines-dir that holds this replica's host id.
const HostIDFile = "host-id"

// HostID is the host id of the replica whose machines live under dir: read from dir/host-id,
// written there (a random id) the first time. It names the replica in the database for as long
// as its machines directory is kept, across restarts; two replicas need two directories.
func HostID(dir string) (string, error) {
	path := filepath.Join(dir, HostIDFile)
	b, err := os.ReadFile(path)
	if err == nil {
		if id := strings.TrimSpace(string(b)); id != "" {
			return id, nil
		}
		return "", fmt.Errorf("sandbox: %s is empty; remove it to draw a new host id", path)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("sandbox: host id: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("sandbox: host id: %w", err)
	}
	raw := make([]byte, 16)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("sandbox: host id: %w", err)
	}
	id := "host-" + hex.EncodeToString(raw)
	// O_EXCL: of two processes starting on one directory at once, one id wins and both read it.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return HostID(dir)
	}
	if err != nil {
		return "", fmt.Errorf("sandbox: host id: %w", err)
	}
	_, werr := f.WriteString(id + "\n")
	if err := errors.Join(werr, f.Close()); err != nil {
		return "", fmt.Errorf("sandbox: host id: %w", err)
	}
	return id, nil
}
