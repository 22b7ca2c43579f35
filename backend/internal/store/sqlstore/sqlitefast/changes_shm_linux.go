package sqlitefast

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// shmWatcher reads the version of a SQLite database in WAL mode from its wal-index header, in
// the -shm file mapped read-only and shared, so a version costs two dozen atomic loads and no
// query.
//
// The header (https://www.sqlite.org/walformat.html, "The WAL-Index Header") is two copies of
// 48 bytes at offsets 0 and 48. Its format is frozen: processes of different SQLite versions
// share it. Every commit rewrites it, whichever connection or process commits; in the SQLite
// of modernc.org/sqlite v1.59.0 (lib/sqlite_g_000000000001fea8.go, the C of wal.c):
//
//   - walFrames, which appends a transaction's pages to the WAL, ends a commit with
//     "if( isCommit ){ pWal->hdr.iChange++; pWal->hdr.nPage = nTruncate; }" and then
//     "if( isCommit ){ walIndexWriteHdr(pWal); ... }", with mxFrame already set to the last
//     frame; iChange only grows (a writer starts from the header in shared memory), so the
//     header never comes back to an earlier value;
//   - walIndexWriteHdr recomputes the checksum and writes copy 1, a memory barrier, then copy 0;
//     walIndexTryHdr reads copy 0, a barrier, copy 1 and takes the header only if both are
//     equal. version reads in the same order with atomic loads, and reports ok false on a
//     mismatch (a writer is halfway): the caller then reads the database and keeps nothing;
//   - walRestartHdr (a writer reusing the WAL after a full checkpoint) also rewrites it, with
//     mxFrame 0 and a new salt: a change that changes no row, so only a needless miss.
//
// The mapping stays valid because conn keeps the database open: SQLite truncates the -shm file
// only when the first connection of any process opens it (unixLockSharedMemory, when no other
// process holds the DMS lock), and deletes it only when a closing connection gets an
// EXCLUSIVE lock on the database (sqlite3WalClose), which a connection in WAL mode prevents by
// keeping its SHARED lock (pager_unlock leaves it while the WAL is open).
//
// The store never opens the -shm file itself: closing any descriptor of a file drops every
// POSIX lock the process holds on it, SQLite's DMS and reader locks included, after which
// another process would take this one's wal-index for abandoned, truncate and rebuild it under
// its readers (seen as "database disk image is malformed"). It maps SQLite's own descriptor
// instead, found in /proc/self/fd, and closes nothing. Hence Linux only; elsewhere the store
// watches PRAGMA data_version (changes_shm_other.go).
//
// Close unmaps the header, after which reading it would fault the whole process (SIGSEGV, which
// no recover catches): Version holds mu for reading, Close for writing, and a Version after
// Close reports ok false, as a version it cannot read, instead of reading.
type shmWatcher struct {
	conn *sql.Conn // keeps the database, its WAL and its -shm file open

	mu  sync.RWMutex
	mem []byte // the first walHeaderBytes of the -shm file; nil once closed
}

// walIndexVersion is the iVersion the wal-index header of every SQLite since 3.7.0 carries.
const walIndexVersion = 3007000

// openShmWatcher maps the -shm file of the database at path, after taking the connection that
// keeps it open, and checks that it holds an initialised wal-index header.
func openShmWatcher(ctx context.Context, reads *sql.DB, path string) (changeWatcher, error) {
	name, err := shmPath(path)
	if err != nil {
		return nil, err
	}
	conn, err := openWALConn(ctx, reads)
	if err != nil {
		return nil, err
	}
	mem, err := mapHeader(name)
	if err != nil {
		return nil, errors.Join(err, conn.Close())
	}
	w := &shmWatcher{conn: conn, mem: mem}
	if !initialised(mem) {
		w.Close()
		return nil, fmt.Errorf("sqlite: %s holds no wal-index header", name)
	}
	return w, nil
}

// mapHeader maps the start of the file name read-only and shared, through the descriptor
// SQLite holds on it.
func mapHeader(name string) ([]byte, error) {
	var want syscall.Stat_t
	if err := syscall.Stat(name, &want); err != nil {
		return nil, fmt.Errorf("sqlite: stat wal-index: %w", err)
	}
	if want.Mode&syscall.S_IFMT != syscall.S_IFREG || want.Size < walHeaderBytes {
		return nil, fmt.Errorf("sqlite: %s is not a wal-index (mode %o, %d bytes)", name, want.Mode, want.Size)
	}
	fd, err := descriptorOf(want)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", name, err)
	}
	mem, err := syscall.Mmap(fd, 0, walHeaderBytes, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("sqlite: map wal-index: %w", err)
	}
	if !sameFile(fd, want) { // the descriptor was closed and reused meanwhile
		_ = syscall.Munmap(mem)
		return nil, fmt.Errorf("sqlite: %s: its descriptor changed while mapping", name)
	}
	return mem, nil
}

// descriptorOf finds an open descriptor of this process on the file want describes.
func descriptorOf(want syscall.Stat_t) (int, error) {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0, fmt.Errorf("list descriptors: %w", err)
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err == nil && sameFile(fd, want) {
			return fd, nil
		}
	}
	return 0, errors.New("no open descriptor of the wal-index")
}

// sameFile tells whether fd is open on the file want describes.
func sameFile(fd int, want syscall.Stat_t) bool {
	var st syscall.Stat_t
	return syscall.Fstat(fd, &st) == nil && st.Dev == want.Dev && st.Ino == want.Ino
}

// initialised tells whether mem starts with a header SQLite wrote: iVersion, then isInit set.
func initialised(mem []byte) bool {
	return binary.NativeEndian.Uint32(mem[0:4]) == walIndexVersion && mem[12] == 1
}

// version reads copy 0 and then copy 1 of the header; ok is false when they differ.
func (w *shmWatcher) Version(context.Context) (dbVersion, bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.mem == nil {
		return dbVersion{}, false // closed: the mapping is gone
	}
	var first, second dbVersion
	for i := range first {
		first[i] = w.word(i)
	}
	for i := range second {
		second[i] = w.word(walHeaderWords + i)
	}
	return first, first == second
}

// word loads the i-th 32-bit word of the mapping atomically. Called with mu held, mem mapped.
func (w *shmWatcher) word(i int) uint32 {
	return atomic.LoadUint32((*uint32)(unsafe.Pointer(&w.mem[4*i])))
}

// Close unmaps the header, once Version calls in progress are done, and closes the connection;
// later calls of Version read nothing. Closing twice does nothing more.
func (w *shmWatcher) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.mem == nil {
		return
	}
	_ = syscall.Munmap(w.mem)
	w.mem = nil
	_ = w.conn.Close()
}
