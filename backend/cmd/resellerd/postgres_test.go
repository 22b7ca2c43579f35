package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store/pgtest"
)

// pg is this test binary's throwaway PostgreSQL server, started by the first test that needs it.
var pg pgtest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	if err := pg.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stop PostgreSQL:", err)
	}
	os.Exit(code)
}

// TestAccountCommandsPostgres runs the account commands and serve with --db set to a
// postgres:// URL.
func TestAccountCommandsPostgres(t *testing.T) {
	t.Parallel()
	testAccountCommands(t, pg.Database(t))
}
