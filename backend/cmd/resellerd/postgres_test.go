package main

import (
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store/pgtest"
)

// pg is this test binary's throwaway PostgreSQL server, started by the first test that needs it.
var pg pgtest.Shared

func TestMain(m *testing.M) { pg.Main(m) }

// TestAccountCommandsPostgres runs the account commands and serve with --db set to a
// postgres:// URL.
func TestAccountCommandsPostgres(t *testing.T) {
	t.Parallel()
	testAccountCommands(t, pg.Database(t))
}
