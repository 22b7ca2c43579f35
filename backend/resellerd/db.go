package resellerd

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Database kinds, by the form of Config.DB.
const (
	DBSQLite   = "sqlite"
	DBPostgres = "postgres"
)

// schemeLike matches a value that starts like a URL or a driver name ("mysql:", "file:",
// "postgres+ssl:"); a single letter before the colon is a Windows drive, not a scheme.
var schemeLike = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]+:`)

// ParseDB reads the form of Config.DB (the --db flag) strictly: a postgres:// or postgresql://
// URL is PostgreSQL; sqlite:PATH or a plain path is SQLite; anything else (a key=value DSN, a
// typo in the scheme, another database's URL) is an error naming --db, so a replica is never
// started on a new, empty SQLite file by mistake. The error never repeats the value: it may hold
// a password.
func ParseDB(dsn string) (kind, target string, err error) {
	switch {
	case dsn == "":
		return "", "", errors.New("no database: --db is empty: give a SQLite path, sqlite:PATH or a postgres:// URL")
	case isPostgres(dsn):
		return DBPostgres, dsn, nil
	case strings.HasPrefix(dsn, "sqlite:"):
		path := strings.TrimPrefix(dsn, "sqlite:")
		if path == "" {
			return "", "", errors.New("--db sqlite: has no path (sqlite:PATH)")
		}
		return DBSQLite, path, nil
	case schemeLike.MatchString(dsn):
		scheme, _, _ := strings.Cut(dsn, ":")
		return "", "", fmt.Errorf("--db has the scheme %q, which is not supported: give a SQLite path, sqlite:PATH or "+
			"a postgres:// (postgresql://) URL", scheme)
	case strings.Contains(dsn, "="):
		return "", "", errors.New("--db looks like a key=value connection string, which is not supported: write it as " +
			"a postgres://USER:PASSWORD@HOST:PORT/DBNAME URL (or give a SQLite path without '=')")
	}
	return DBSQLite, dsn, nil
}

// RedactDB is dsn as it may be logged: a URL with its password replaced by "xxxxx", in the
// user part (url.URL.Redacted) and in the password and sslpassword parameters pgx also reads;
// a path as it is.
func RedactDB(dsn string) string {
	if !isPostgres(dsn) {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		scheme, _, _ := strings.Cut(dsn, "://")
		return scheme + "://(unparsable URL, not shown)"
	}
	if q := u.Query(); q.Has("password") || q.Has("sslpassword") {
		for _, k := range []string{"password", "sslpassword"} {
			if q.Has(k) {
				q.Set(k, "xxxxx")
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}
