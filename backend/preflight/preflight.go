// Package preflight holds what resellerd's commands settle before they open the database or a
// listener: whether --secrets-key-file is exposed to other users, whether --pprof is loopback,
// whether the host can run --machines sandbox, which key a dev database's secrets are under,
// and the one warning serve gives when it keeps secrets in plain text. A refusal here changes
// nothing. cmd/resellerd parses the flags and calls these in order. It sits beside
// backend/resellerd, not under backend/internal, because it checks a resellerd.Config.
package preflight

import (
	"fmt"
	"log/slog"
	"net"

	"github.com/reseller/terraform-provider-reseller/backend/devserver"
	"github.com/reseller/terraform-provider-reseller/backend/internal/cliflag"
	"github.com/reseller/terraform-provider-reseller/backend/internal/secrets"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// KeyFile checks who may read the key file path (--secrets-key-file; empty: none): a file its
// group or others may read or write (mode & 0o077) lets other users of the machine read every
// secret of the database, or replace the keys. It is logged as a warning naming the file and
// its mode, or refused when strict (--strict-key-file). Only warned by default because the
// usual ways of handing a container a file make it 0644 or 0444 (Kubernetes secret volumes,
// Docker and Compose secrets), inside a container whose only user is resellerd: refusing those
// would break deployments that are safe. See backend/docs/sharing-threat-model.md.
func KeyFile(logger *slog.Logger, path string, strict bool) error {
	if path == "" {
		return nil
	}
	mode, err := secrets.Exposure(path)
	if err != nil || mode == 0 {
		return err
	}
	if strict {
		return fmt.Errorf("--secrets-key-file %s has mode %04o: its group or others may read it; chmod 600 it "+
			"(refused because of --strict-key-file)", path, mode)
	}
	logger.Warn("--secrets-key-file may be read by other users than resellerd's: chmod 600 it (--strict-key-file refuses to start instead)",
		slog.String("file", path), slog.String("mode", fmt.Sprintf("%04o", mode)))
	return nil
}

// WarnPlainSecrets logs serve's one warning at start when it keeps the secrets readable to
// anyone with the database: without a key file (on a dev database they are under dev's built-in
// key, which is no secret either). It is called once the backend has started: a database whose
// secrets are encrypted is refused without a key, and a warning that they are stored in plain
// text before that refusal would say the opposite of what is true.
func WarnPlainSecrets(logger *slog.Logger, c resellerd.Config) {
	if c.SecretsKeyFile == "" {
		logger.Warn("no --secrets-key-file: webhook signing secrets, root passwords and app inputs are stored as plain text " +
			"in the database and in every backup of it; see backend/docs/sharing-safely.md")
	}
}

// DevKeyOnDevDB has serve (and seed, and the account commands) open a database resellerd dev
// created with dev's built-in key when given no key file, as dev encrypted its secrets with it:
// serve on a dev database (which it warns about, devserver.WarnIfDevDB) keeps working as it did
// before secrets were encrypted.
func DevKeyOnDevDB(c *resellerd.Config) {
	if c.SecretsKeyFile != "" {
		return
	}
	if path, ok := devserver.SQLitePath(c.DB); ok && devserver.IsDevDB(path) {
		c.DevSecrets = true
	}
}

// Pprof refuses a --pprof that is not a loopback address (a usage error, cliflag.ErrUsage):
// profiles show the process's internals. Empty is no pprof listener.
func Pprof(addr string) error {
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%w: serve: --pprof: %w", cliflag.ErrUsage, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%w: serve: --pprof must be a loopback address, not %q", cliflag.ErrUsage, addr)
	}
	return nil
}

// Machines refuses --machines sandbox on a host that lacks what it needs, with machines.Check's
// message (a usage error of command), before anything is opened.
func Machines(command string, c resellerd.Config) error {
	if err := resellerd.CheckMachines(c); err != nil {
		return fmt.Errorf("%w: %s: --machines %s: %w", cliflag.ErrUsage, command, resellerd.MachinesSandbox, err)
	}
	return nil
}
