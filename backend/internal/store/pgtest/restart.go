package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// Halt stops a throwaway server at once (pg_ctl stop -m immediate), keeping its data, so that a
// test sees what a backend does while its database is away; Resume starts it again. Use a
// Server of the test's own (Start), never the Shared one other tests are using.
func (s *Server) Halt(ctx context.Context) error {
	if s.external {
		return errors.New("pgtest: cannot halt an external server")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		_ = s.conn.Close(ctx)
		s.conn = nil
	}
	_, pgctl, err := binaries()
	if err != nil {
		return err
	}
	return s.run(ctx, pgctl, "-D", filepath.Join(s.dir, "data"), "-m", "immediate", "-w", "stop")
}

// Resume starts a halted server again on its port and reopens the admin connection.
func (s *Server) Resume(ctx context.Context) error {
	u, err := url.Parse(s.admin)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		return fmt.Errorf("pgtest: port of %s: %w", redact(s.admin), err)
	}
	_, pgctl, err := binaries()
	if err != nil {
		return err
	}
	if err := s.start(ctx, pgctl, port); err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, s.admin)
	if err != nil {
		return fmt.Errorf("pgtest: reconnect: %w", err)
	}
	s.mu.Lock()
	s.conn = conn
	s.mu.Unlock()
	return nil
}

// StartDurable starts a throwaway server with PostgreSQL's default durability (fsync and
// synchronous commits on), as a deployment runs it, for benchmarks; tests use Start.
func StartDurable(ctx context.Context) (*Server, error) {
	s, err := Start(ctx)
	if err != nil || s.external {
		return s, err
	}
	if err := s.Halt(ctx); err != nil {
		_ = s.Stop()
		return nil, err
	}
	s.durable = true
	if err := s.Resume(ctx); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// options are the server's settings: serverOptions, or for a durable server only those that
// keep it local and let every pool connect.
func (s *Server) options() []string {
	if s.durable {
		return []string{"-c listen_addresses=127.0.0.1", "-c max_connections=300"}
	}
	return serverOptions()
}
