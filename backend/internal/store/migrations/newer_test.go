package migrations

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckNotNewer: a database that records a version this binary does not know is refused
// with an error naming both versions; one at or below the last known version passes.
func TestCheckNotNewer(t *testing.T) {
	t.Parallel()
	all := []Migration{{1, "0001_a.sql", "A"}, {2, "0002_b.sql", "B"}}
	err := CheckNotNewer(3, all)
	if !errors.Is(err, ErrNewerDatabase) || !strings.Contains(err.Error(), "version 3") || !strings.Contains(err.Error(), "up to 2") {
		t.Fatalf("CheckNotNewer(3) = %v, want ErrNewerDatabase naming versions 3 and 2", err)
	}
	for _, latest := range []int{0, 1, 2} {
		if err := CheckNotNewer(latest, all); err != nil {
			t.Fatalf("CheckNotNewer(%d) = %v, want nil", latest, err)
		}
	}
}
