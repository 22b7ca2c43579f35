package sqlitefast

import (
	"os"
	"syscall"
	"testing"
)

// dmsByte is the offset in the -shm file of SQLite's DMS lock, which every process using the
// wal-index holds shared: ((22 + SQLITE_SHM_NLOCK) * 4 + SQLITE_SHM_NLOCK, unixLockSharedMemory).
const dmsByte = (22+8)*4 + 8

// TestStoreKeepsSQLiteLocks shows that mapping the -shm file leaves SQLite's locks on it in
// place: another process still sees this one's shared DMS lock, so it does not take the
// wal-index for abandoned and rebuild it under this process's readers. (Opening and closing
// a descriptor of the file would drop every lock the process holds on it.)
func TestStoreKeepsSQLiteLocks(t *testing.T) {
	t.Parallel()
	_, _, path := openWatched(t, "shm", false)
	runHelperProcess(t, "TestDMSLockProbeProcess", "SQLSTORE_PROBE_SHM="+path+"-shm")
}

// TestDMSLockProbeProcess is the other process of TestStoreKeepsSQLiteLocks: it fails unless
// another process holds a shared lock on the DMS byte. Run alone, it does nothing.
func TestDMSLockProbeProcess(t *testing.T) {
	name := os.Getenv("SQLSTORE_PROBE_SHM")
	if name == "" {
		t.Skip("the probe process of TestStoreKeepsSQLiteLocks")
	}
	f, err := os.Open(name) //nolint:gosec // the test's own file
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lock := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: dmsByte, Len: 1}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lock); err != nil {
		t.Fatal(err)
	}
	if lock.Type != syscall.F_RDLCK {
		t.Fatalf("the DMS byte of %s: lock type %d, want %d (shared, held by the store's process)", name, lock.Type, syscall.F_RDLCK)
	}
}
