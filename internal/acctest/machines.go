package acctest

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/machinestest"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// WithMachines runs the backend with --machines sandbox: every Linux server is a real machine on
// this host, reached over SSH (backend/docs/machines.md; machinestest.SSH logs in). It needs
// root; without it the test is skipped, unless CI is set, where it fails (machinestest.Require).
//
// Each backend gets a /24 of 198.19.128.0/17 that no other test process on this host holds (a
// lock file per range, held until the test ends), so the matrix's legs can run side by side.
// (The backend's own tests take fixed ranges below it: 198.18.0.0/16 and 198.19.0.0/17.)
func WithMachines(t *testing.T) Option {
	t.Helper()
	machinestest.Require(t)
	cidr := lockMachinesCIDR(t)
	dir := t.TempDir()
	return WithServerConfig(func(c *resellerd.Config) {
		c.Machines = resellerd.MachinesConfig{Mode: resellerd.MachinesSandbox, Dir: dir, CIDR: cidr}
	})
}

// lockMachinesCIDR takes the first 198.19.N.0/24 (N from 128) whose lock file no other process
// holds; the lock goes with the test.
func lockMachinesCIDR(t *testing.T) netip.Prefix {
	t.Helper()
	dir := filepath.Join(os.TempDir(), "reseller-acctest-cidrs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for n := 128; n < 255; n++ {
		f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(n)+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			_ = f.Close()
			continue
		}
		t.Cleanup(func() { _ = f.Close() }) // closing the file releases the lock
		return netip.MustParsePrefix(fmt.Sprintf("198.19.%d.0/24", n))
	}
	t.Fatal("no free 198.19.N.0/24 for the test's machines: 127 ranges are held by other test processes")
	return netip.Prefix{}
}
