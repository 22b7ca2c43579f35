package preflight

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/devserver"
	"github.com/reseller/terraform-provider-reseller/backend/internal/cliflag"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

func logTo(buf *bytes.Buffer) *slog.Logger { return slog.New(slog.NewTextHandler(buf, nil)) }

func keyFileWithMode(t *testing.T, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(path, []byte("# no key needed here\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestKeyFile(t *testing.T) {
	private, shared := keyFileWithMode(t, 0o600), keyFileWithMode(t, 0o644)
	var buf bytes.Buffer
	if err := KeyFile(logTo(&buf), private, true); err != nil || buf.Len() != 0 {
		t.Errorf("0600: err %v, log %q: want neither", err, buf.String())
	}
	if err := KeyFile(logTo(&buf), "", true); err != nil || buf.Len() != 0 {
		t.Errorf("no key file: err %v, log %q: want neither", err, buf.String())
	}
	if err := KeyFile(logTo(&buf), shared, false); err != nil {
		t.Errorf("0644 not strict: err %v, want only a warning", err)
	}
	if log := buf.String(); !strings.Contains(log, "level=WARN") || !strings.Contains(log, "file="+shared) || !strings.Contains(log, "mode=0644") {
		t.Errorf("0644: log %q, want a warning naming the file and its mode", log)
	}
	err := KeyFile(logTo(&bytes.Buffer{}), shared, true)
	if err == nil || !strings.Contains(err.Error(), "--secrets-key-file "+shared+" has mode 0644") || !strings.Contains(err.Error(), "--strict-key-file") {
		t.Errorf("0644 strict: err = %v, want a refusal naming the file, its mode and --strict-key-file", err)
	}
}

func TestWarnPlainSecrets(t *testing.T) {
	var buf bytes.Buffer
	WarnPlainSecrets(logTo(&buf), resellerd.Config{SecretsKeyFile: "/etc/reseller/keys"})
	if buf.Len() != 0 {
		t.Errorf("with a key file: %q, want no warning", buf.String())
	}
	WarnPlainSecrets(logTo(&buf), resellerd.Config{})
	if !strings.Contains(buf.String(), "level=WARN") || !strings.Contains(buf.String(), "no --secrets-key-file") {
		t.Errorf("without one: %q, want the warning naming --secrets-key-file", buf.String())
	}
}

func TestDevKeyOnDevDB(t *testing.T) {
	dir := t.TempDir()
	dev := filepath.Join(dir, "dev.db")
	if err := devserver.CreateDevDB(context.Background(), dev); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cfg  resellerd.Config
		want bool
	}{
		{"a dev database without a key file", resellerd.Config{DB: dev}, true},
		{"a dev database given sqlite:", resellerd.Config{DB: "sqlite:" + dev}, true},
		{"a dev database with a key file", resellerd.Config{DB: dev, SecretsKeyFile: "/keys"}, false},
		{"another database", resellerd.Config{DB: filepath.Join(dir, "serve.db")}, false},
		{"PostgreSQL", resellerd.Config{DB: "postgres://db.example/reseller"}, false},
	} {
		c := tc.cfg
		DevKeyOnDevDB(&c)
		if c.DevSecrets != tc.want {
			t.Errorf("%s: DevSecrets = %v, want %v", tc.name, c.DevSecrets, tc.want)
		}
	}
}

func TestPprof(t *testing.T) {
	for _, ok := range []string{"", "127.0.0.1:6060", "[::1]:6060"} {
		if err := Pprof(ok); err != nil {
			t.Errorf("Pprof(%q) = %v, want accepted", ok, err)
		}
	}
	for addr, want := range map[string]string{
		"0.0.0.0:6060":   `serve: --pprof must be a loopback address, not "0.0.0.0:6060"`,
		"localhost:6060": `serve: --pprof must be a loopback address, not "localhost:6060"`,
		"6060":           "serve: --pprof: ",
	} {
		err := Pprof(addr)
		if !errors.Is(err, cliflag.ErrUsage) || !strings.Contains(err.Error(), want) {
			t.Errorf("Pprof(%q) = %v, want a usage error containing %q", addr, err, want)
		}
	}
}

func TestMachines(t *testing.T) {
	if err := Machines("serve", resellerd.Config{Machines: resellerd.MachinesConfig{Mode: resellerd.MachinesSim}}); err != nil {
		t.Errorf("sim: %v, want nothing to check", err)
	}
	v6 := netip.MustParsePrefix("fd00::/64") // machines' addresses are IPv4
	err := Machines("dev", resellerd.Config{Machines: resellerd.MachinesConfig{Mode: resellerd.MachinesSandbox, CIDR: v6}})
	if !errors.Is(err, cliflag.ErrUsage) || !strings.Contains(err.Error(), "dev: --machines sandbox: --machines-cidr: ") {
		t.Errorf("sandbox on an IPv6 range: err = %v, want a usage error of dev naming --machines sandbox and the range", err)
	}
}
