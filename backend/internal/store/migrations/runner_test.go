package migrations

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

// fakeDB is a Target that records what the runner did; failOn names a migration whose SQL fails.
type fakeDB struct {
	table   bool
	applied map[int]bool
	ran     []string
	failOn  string
	open    int // steps begun and not yet ended
}

type fakeStep struct {
	db      *fakeDB
	applied map[int]bool
	ran     []string
	table   bool
}

func (db *fakeDB) Begin(context.Context) (Step, error) {
	db.open++
	return &fakeStep{db: db, applied: map[int]bool{}, table: db.table}, nil
}

func (s *fakeStep) EnsureTable(context.Context) error { s.table = true; return nil }

func (s *fakeStep) Applied(_ context.Context, v int) (bool, error) {
	if !s.table {
		return false, errors.New("no schema_migrations")
	}
	return s.db.applied[v], nil
}

func (s *fakeStep) Exec(_ context.Context, sql string) error {
	if sql == s.db.failOn {
		return errors.New("syntax error")
	}
	s.ran = append(s.ran, sql)
	return nil
}

func (s *fakeStep) Record(_ context.Context, m Migration) error {
	s.applied[m.Version] = true
	return nil
}

func (s *fakeStep) Commit(context.Context) error {
	s.db.open--
	s.db.table = s.db.table || s.table
	s.db.ran = append(s.db.ran, s.ran...)
	for v := range s.applied {
		s.db.applied[v] = true
	}
	return nil
}

func (s *fakeStep) Rollback(context.Context) error { s.db.open--; return nil }

func TestApply(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	all := []Migration{{1, "0001_a.sql", "A"}, {2, "0002_b.sql", "B"}, {3, "0003_c.sql", "C"}}
	tests := []struct {
		name     string
		applied  map[int]bool
		failOn   string
		wantRan  []string
		wantDone map[int]bool
		wantErr  bool
	}{
		{"fresh database", map[int]bool{}, "", []string{"A", "B", "C"}, map[int]bool{1: true, 2: true, 3: true}, false},
		{"resumes after the last applied", map[int]bool{1: true, 2: true}, "", []string{"C"}, map[int]bool{1: true, 2: true, 3: true}, false},
		{"up to date", map[int]bool{1: true, 2: true, 3: true}, "", nil, map[int]bool{1: true, 2: true, 3: true}, false},
		{"a failure keeps what came before", map[int]bool{}, "B", []string{"A"}, map[int]bool{1: true}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := &fakeDB{applied: tt.applied, failOn: tt.failOn}
			err := Apply(ctx, db, all)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Apply = %v, want error %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(db.ran, tt.wantRan) || !reflect.DeepEqual(db.applied, tt.wantDone) {
				t.Fatalf("ran %v, applied %v; want %v and %v", db.ran, db.applied, tt.wantRan, tt.wantDone)
			}
			if db.open != 0 {
				t.Fatalf("%d steps left open", db.open)
			}
		})
	}
}
