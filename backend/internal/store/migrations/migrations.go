// Package migrations embeds the versioned schema of every store dialect; sqlstore applies it
// at Open (sqlstore/migrate.go). A migration file is named NNNN_description.sql and is applied
// once, in version order. Every dialect has the same versions under the same names, so a
// SQLite and a PostgreSQL database at one version have the same schema.
package migrations

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

//go:embed sqlite/*.sql postgres/*.sql
var files embed.FS

// The dialects, named as their directories.
const (
	DialectSQLite   = "sqlite"
	DialectPostgres = "postgres"
)

// Migration is one schema step.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// SQLite returns the SQLite migrations in version order.
func SQLite() ([]Migration, error) { return load(files, DialectSQLite) }

// Postgres returns the PostgreSQL migrations in version order.
func Postgres() ([]Migration, error) { return load(files, DialectPostgres) }

func load(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	var out []Migration
	seen := map[int]string{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		m, err := parse(fsys, dir, e.Name())
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[m.Version]; dup {
			return nil, fmt.Errorf("migrations: version %d used by %s and %s", m.Version, prev, m.Name)
		}
		seen[m.Version] = m.Name
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

func parse(fsys fs.FS, dir, name string) (Migration, error) {
	prefix, _, ok := strings.Cut(name, "_")
	version, err := strconv.Atoi(prefix)
	if !ok || err != nil || version <= 0 {
		return Migration{}, fmt.Errorf("migrations: %s: name must start with a positive version and '_'", name)
	}
	body, err := fs.ReadFile(fsys, path.Join(dir, name))
	if err != nil {
		return Migration{}, fmt.Errorf("migrations: %w", err)
	}
	return Migration{Version: version, Name: name, SQL: string(body)}, nil
}

// ErrNewerDatabase marks a database migrated by a newer binary: its schema has versions this
// binary does not know, and writing to it could corrupt what they added.
var ErrNewerDatabase = errors.New("the database was migrated by a newer resellerd")

// CheckNotNewer fails with ErrNewerDatabase, naming both versions, when latest (the highest
// version a database records) is above the last of all.
func CheckNotNewer(latest int, all []Migration) error {
	known := 0
	if len(all) > 0 {
		known = all[len(all)-1].Version
	}
	if latest > known {
		return fmt.Errorf("migrations: %w: the database is at schema version %d, this binary knows versions up to %d; "+
			"run a resellerd at least as new as the one that migrated it", ErrNewerDatabase, latest, known)
	}
	return nil
}
