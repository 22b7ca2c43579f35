package sqlstore

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestSQLiteWholeListPageSeeksItsPlaces: a page of the whole list at any offset is found through
// the index of places, not walked to.
func TestSQLiteWholeListPageSeeksItsPlaces(t *testing.T) {
	t.Parallel()
	s := mustOpen(t, OpenSQLite, filepath.Join(t.TempDir(), "plan.db"))
	got := queryPlan(t, s, `SELECT `+instanceColumns+` FROM instances
		WHERE account_id = 1 AND account_seq BETWEEN 100 AND 199 ORDER BY account_seq DESC`)
	if !strings.Contains(got, "USING INDEX instances_account_seq (account_id=? AND account_seq>? AND account_seq<?)") {
		t.Fatalf("query plan %q: want a search of the index of places", got)
	}
}

// TestSQLiteActiveInstancesSeekTheirIndex: the traffic worker's read of the live instances is a
// range of their partial index, so its work does not grow with the instances ever stored.
func TestSQLiteActiveInstancesSeekTheirIndex(t *testing.T) {
	t.Parallel()
	s := mustOpen(t, OpenSQLite, filepath.Join(t.TempDir(), "plan.db"))
	query := strings.NewReplacer("id > ?", "id > 0", "LIMIT ?", "LIMIT 200").Replace(activeInstancesAfter)
	if got := queryPlan(t, s, query); !strings.Contains(got, "USING INDEX instances_active_id") {
		t.Fatalf("query plan %q: want a search of instances_active_id", got)
	}
}

// queryPlan is SQLite's plan of query, its steps joined by "; ".
func queryPlan(t *testing.T, s *Store, query string) string {
	t.Helper()
	rows, err := s.db.QueryContext(context.Background(), `EXPLAIN QUERY PLAN `+query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "; ")
}

// TestSQLiteImageQueueSeeksItsIndex: the housekeeping queue of images to delete, and WorkDue's
// look at it, go through the partial index of undeleted images (migration 0010), not through
// every ended snapshot in history.
func TestSQLiteImageQueueSeeksItsIndex(t *testing.T) {
	t.Parallel()
	s := mustOpen(t, OpenSQLite, filepath.Join(t.TempDir(), "plan.db"))
	for name, query := range map[string]string{
		"WorkDue":         workDueQuery,
		"UndeletedImages": selectSnapshots + `WHERE ` + imageUndeleted + ` ORDER BY s.id LIMIT 10`,
	} {
		if got := queryPlan(t, s, query); !strings.Contains(got, "s USING INDEX snapshots_image_undeleted") {
			t.Errorf("%s: query plan %q: want a search of snapshots_image_undeleted", name, got)
		}
	}
}

// TestSQLiteOverviewSeeksItsIndexes: every read of the console's overview is a search of an
// index (or, for the accounts, the first rows of the primary key), and the ledger read takes
// each account's last entries as a range of ledger_account, not its whole history (its running
// sum then passes over those rows only).
func TestSQLiteOverviewSeeksItsIndexes(t *testing.T) {
	t.Parallel()
	s := mustOpen(t, OpenSQLite, filepath.Join(t.TempDir(), "plan.db"))
	for name, c := range map[string]struct{ query, want string }{
		"accounts":            {overviewAccounts, "SCAN accounts"},
		"instances":           {overviewInstances, "SEARCH instances USING INDEX instances_renewal (active=?)"},
		"orders":              {overviewOrders, "SEARCH orders USING INDEX orders_status (status=?)"},
		"snapshots":           {overviewSnapshots, "SEARCH s USING INDEX snapshots_status (status=?)"},
		"pending deliveries":  {overviewPendingDeliveries, "SEARCH deliveries USING INDEX deliveries_due (status=?)"},
		"finished deliveries": {overviewFinishedDeliveries, "SEARCH deliveries USING INDEX deliveries_finished (finished_at>?)"},
		"ledger":              {fmt.Sprintf(overviewLedger, "(1, 2)"), "SEARCH l USING INDEX ledger_account (account_id=? AND id>?)"},
	} {
		got := queryPlan(t, s, strings.ReplaceAll(c.query, "?", "10"))
		tables := strings.Count(got, "SCAN") - strings.Count(got, "SCAN (subquery") // the window's pass over the rows found
		if !strings.Contains(got, c.want) || tables > strings.Count(c.want, "SCAN") {
			t.Errorf("%s: query plan %q: want %q and no other scan", name, got, c.want)
		}
	}
}

// TestLimitsCastOnSQLite: SQLite gets every LIMIT's parameter inside a cast, so binding it does
// not mark the statement to be compiled again (castLimits); PostgreSQL gets the query as
// written. The traffic worker's read keeps its plan with the cast.
func TestLimitsCastOnSQLite(t *testing.T) {
	t.Parallel()
	const query = `SELECT id FROM instances WHERE id > ? ORDER BY id LIMIT ? OFFSET ?`
	for _, tc := range []struct {
		d    *dialect
		want string
	}{
		{newSQLiteDialect(), `SELECT id FROM instances WHERE id > ? ORDER BY id LIMIT CAST(? AS INTEGER) OFFSET ?`},
		{newPostgresDialect(), `SELECT id FROM instances WHERE id > $1 ORDER BY id LIMIT $2 OFFSET $3`},
	} {
		if got := tc.d.sql(query); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.d.name, got, tc.want)
		}
	}
	s := mustOpen(t, OpenSQLite, filepath.Join(t.TempDir(), "plan.db"))
	cast := strings.NewReplacer("id > ?", "id > 0", "CAST(? AS", "CAST(200 AS").Replace(s.queries.d.sql(activeInstancesAfter))
	if got := queryPlan(t, s, cast); !strings.Contains(got, "USING INDEX instances_active_id") {
		t.Fatalf("query plan %q: want a search of instances_active_id", got)
	}
}

// BenchmarkSQLiteEmptyPoll is the machine dispatcher's poll of a host with no op pending, the
// most frequent worker read, with the LIMIT cast (as sent) and as written (castLimits off): the
// second is compiled again at every run.
func BenchmarkSQLiteEmptyPoll(b *testing.B) {
	for _, cast := range []bool{true, false} {
		b.Run(fmt.Sprintf("castLimits=%v", cast), func(b *testing.B) {
			s, err := OpenSQLite(context.Background(), filepath.Join(b.TempDir(), "poll.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			s.queries.d.castLimits = cast // before the query is first rebound
			ctx := context.Background()
			for b.Loop() {
				ops, err := s.PendingMachineOps(ctx, "host-a", "", 16)
				if err != nil || len(ops) != 0 {
					b.Fatalf("%v, %v", ops, err)
				}
			}
		})
	}
}
