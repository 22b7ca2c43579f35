package migrations

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func (s *fakeStep) Latest(context.Context) (int, error) {
	latest := 0
	for v := range s.db.applied {
		latest = max(latest, v)
	}
	return latest, nil
}

// TestApplyRefusesANewerDatabase: a database that records a version this binary does not know
// is refused with an error naming both versions, and nothing is run on it.
func TestApplyRefusesANewerDatabase(t *testing.T) {
	t.Parallel()
	all := []Migration{{1, "0001_a.sql", "A"}, {2, "0002_b.sql", "B"}}
	db := &fakeDB{applied: map[int]bool{1: true, 2: true, 3: true}}
	err := Apply(context.Background(), db, all)
	if !errors.Is(err, ErrNewerDatabase) || !strings.Contains(err.Error(), "version 3") || !strings.Contains(err.Error(), "up to 2") {
		t.Fatalf("Apply = %v, want ErrNewerDatabase naming versions 3 and 2", err)
	}
	if len(db.ran) != 0 || db.open != 0 {
		t.Fatalf("ran %v with %d steps open, want nothing run", db.ran, db.open)
	}
}
