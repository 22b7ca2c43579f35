package resellerd

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store/migrations"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
)

// TestParseDBIsStrict: only a path, sqlite:PATH and postgres:// URLs are databases; anything
// else is an error naming --db that does not repeat the value (it may hold a password).
func TestParseDBIsStrict(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ dsn, kind, target string }{
		{"./data/reseller.db", DBSQLite, "./data/reseller.db"},
		{"/var/lib/reseller/db.sqlite", DBSQLite, "/var/lib/reseller/db.sqlite"},
		{"sqlite:/tmp/r.db", DBSQLite, "/tmp/r.db"},
		{`C:\data\reseller.db`, DBSQLite, `C:\data\reseller.db`},
		{"postgres://u:p@db:5432/reseller", DBPostgres, "postgres://u:p@db:5432/reseller"},
		{"postgresql://db/reseller?sslmode=disable", DBPostgres, "postgresql://db/reseller?sslmode=disable"},
	} {
		kind, target, err := ParseDB(tt.dsn)
		if err != nil || kind != tt.kind || target != tt.target {
			t.Errorf("ParseDB(%q) = %q, %q, %v; want %q, %q", tt.dsn, kind, target, err, tt.kind, tt.target)
		}
	}
	for _, dsn := range []string{"", "host=db dbname=reseller password=hunter2hunter2", "postgress://u:hunter2hunter2@db/r",
		"mysql://u:hunter2hunter2@db/r", "file:reseller.db?mode=rwc", "sqlite:", "pg:hunter2hunter2"} {
		_, _, err := ParseDB(dsn)
		if err == nil || !strings.Contains(err.Error(), "--db") || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("ParseDB(%q) = %v; want an error naming --db without the value", dsn, err)
		}
	}
	// resellerd.New refuses it too, before touching any file.
	dir := t.TempDir()
	_, err := New(context.Background(), Config{DB: "host=" + filepath.Join(dir, "x") + " dbname=r", WorkerInterval: -1})
	if err == nil || !strings.Contains(err.Error(), "--db") {
		t.Fatalf("New on a key=value DSN = %v, want an error naming --db", err)
	}
}

func TestRedactDB(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"postgres://reseller:hunter2hunter2@db:5432/r?sslmode=disable": "postgres://reseller:xxxxx@db:5432/r?sslmode=disable",
		"postgresql://reseller@db/r":                                   "postgresql://reseller@db/r",
		"postgres://reseller@db/r?password=hunter2&sslmode=disable":    "postgres://reseller@db/r?password=xxxxx&sslmode=disable",
		"postgres://reseller@db/r?sslpassword=hunter2":                 "postgres://reseller@db/r?sslpassword=xxxxx",
		"./data/reseller.db":                                           "./data/reseller.db",
		"postgres://reseller:hunter2%zz@db/r":                          "postgres://(unparsable URL, not shown)",
	} {
		if got := RedactDB(in); got != want {
			t.Errorf("RedactDB(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNewRefusesANewerDatabase: a database whose schema_migrations records a version above this
// binary's last one is refused at start, with both versions named.
func TestNewRefusesANewerDatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "reseller.db")
	st, err := sqlstore.OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	all, err := migrations.SQLite()
	if err != nil {
		t.Fatal(err)
	}
	known := all[len(all)-1].Version
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'from_the_future.sql', ?)`,
		known+1, "2030-01-01T00:00:00Z"); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	_, err = New(context.Background(), Config{DB: path, WorkerInterval: -1})
	if !errors.Is(err, migrations.ErrNewerDatabase) || !strings.Contains(err.Error(), "version "+strconv.Itoa(known+1)) ||
		!strings.Contains(err.Error(), "up to "+strconv.Itoa(known)) {
		t.Fatalf("New on a newer database = %v, want ErrNewerDatabase naming %d and %d", err, known+1, known)
	}
}
