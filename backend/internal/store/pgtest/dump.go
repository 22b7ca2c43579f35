package pgtest

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// dumpTimeout bounds one pg_dump.
const dumpTimeout = 2 * time.Minute

// Dump returns what pg_dump writes of the database at dsn (a URL Database returned): the rows a
// backup of it would hold, for a test that looks for what must not be stored. It skips t when
// no server can be had, as Database does (fails it under CI).
func (s *Shared) Dump(t testing.TB, dsn string) []byte {
	t.Helper()
	s.once.Do(func() { s.srv, s.err = Start(context.Background()) })
	if s.err != nil {
		skipOrFail(t, s.err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), dumpTimeout)
	defer cancel()
	out, err := s.srv.Dump(ctx, dsn)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return out
}

// Dump runs pg_dump of the database at dsn. For a throwaway server it is the pg_dump beside its
// initdb (the same version, as pg_dump must be at least the server's), run as the server's owner
// like the server binaries; for an external one, pg_dump on PATH.
func (s *Server) Dump(ctx context.Context, dsn string) ([]byte, error) {
	bin, err := exec.LookPath("pg_dump")
	if !s.external {
		bin, err = pgDumpBesideInitdb()
	}
	if err != nil {
		return nil, err
	}
	argv := append(append(append([]string(nil), s.runAs...), bin), "--no-owner", "--dbname", dsn)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if s.dir != "" {
		cmd.Dir = s.dir // the postgres user may not be allowed into the caller's directory
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("pg_dump %s: %w\n%s", redact(dsn), err, errOut.Bytes())
	}
	return out.Bytes(), nil
}

// pgDumpBesideInitdb finds the pg_dump of the installation whose initdb the server was made with
// (binaries), following a link to its real directory.
func pgDumpBesideInitdb() (string, error) {
	initdb, _, err := binaries()
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(initdb); err == nil {
		initdb = real
	}
	bin := filepath.Join(filepath.Dir(initdb), "pg_dump")
	if !isFile(bin) {
		return "", fmt.Errorf("no pg_dump beside %s", initdb)
	}
	return bin, nil
}
