package pgtest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// What a test package that starts backends shares: its TestMain and the database of a new test
// backend, picked by EnvStore. Each package keeps its one Shared in a variable (pg) and runs
//
//	func TestMain(m *testing.M) { pg.Main(m) }

// EnvStore names the variable that picks the store of TestDB: "postgres" runs the tests on the
// throwaway PostgreSQL server, a fresh database per test; anything else on SQLite files.
const EnvStore = "RESELLER_TEST_STORE"

// Main runs the test binary's tests, stops the server if one of them started it, and exits
// with the tests' code: a package's TestMain is this one call. A server that fails to stop is
// reported on stderr without changing the code, since every test has already passed or failed.
func (s *Shared) Main(m *testing.M) {
	code := m.Run()
	if err := s.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stop PostgreSQL:", err)
	}
	os.Exit(code)
}

// TestDB is the database of a new test backend, as resellerd's --db takes it: a fresh
// PostgreSQL database (Database) when EnvStore says "postgres", else a SQLite file in t's
// temporary directory.
func (s *Shared) TestDB(t testing.TB) string {
	t.Helper()
	if os.Getenv(EnvStore) == "postgres" {
		return s.Database(t)
	}
	return filepath.Join(t.TempDir(), "reseller.db")
}
