package sqlstore

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore/sqlitefast"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/storetest"
)

// withoutShm has a store watch PRAGMA data_version, the fallback of a store that cannot map
// the -shm file.
func withoutShm(o *options) { o.noShm = true }

// watchers are the two ways a SQLite store watches its file, as options of OpenSQLite.
var watchers = []struct {
	name string
	opts []Option
}{
	{"shm", nil},
	{"data_version", []Option{withoutShm}},
}

// openWatched opens a SQLite store whose cache uses the named watcher; it skips the test where
// the -shm file cannot be mapped (not on Linux, where it must be).
func openWatched(t *testing.T, name, path string, opts ...Option) *Store {
	t.Helper()
	s := mustOpen(t, OpenSQLite, path, opts...)
	if mapped := sqlitefast.Mapped(s.cache.(*sqlitefast.ReadCache[cacheKey])); mapped != (name == "shm") {
		if runtime.GOOS != "linux" {
			t.Skip("no -shm mapping on " + runtime.GOOS)
		}
		t.Fatalf("the store's cache watches the mapped -shm file: %v, want %v", mapped, name == "shm")
	}
	return s
}

// getPath reads what GET /instances/{id} reads outside transactions: the account of the key,
// the instance and its app installs.
func getPath(t *testing.T, s *Store, a store.Account, id int64) (store.Instance, []store.AppInstall) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.AccountByKeyHash(ctx, a.KeyHash); err != nil {
		t.Fatal(err)
	}
	in, err := s.Instance(ctx, a.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	installs, err := s.AppInstalls(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return in, installs
}

// TestReadCacheServesUnchangedRowsWithoutSQL shows, for both watchers of sqlitefast's cache,
// that the store's repeated reads of an unchanged instance run no SQL and hand out copies,
// that the next read after a write (through the store, or by another connection) returns the
// new row, and that a transaction always reads the database.
func TestReadCacheServesUnchangedRowsWithoutSQL(t *testing.T) {
	t.Parallel()
	for _, w := range watchers {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "cache.db")
			var reads storetest.Reads
			s := openWatched(t, w.name, path, append([]Option{WithReadHook(reads.Hook)}, w.opts...)...)
			a := newTestAccount(t, s, "cache", 1)
			made := newCachedInstance(t, s, a.ID)

			in, installs := getPath(t, s, a, made.ID)
			if !reflect.DeepEqual(in, made) || len(installs) != 1 {
				t.Fatalf("first read: %+v with %d installs, want %+v with 1", in, len(installs), made)
			}
			reads.Take()
			for range 20 {
				again, againInstalls := getPath(t, s, a, made.ID)
				if !reflect.DeepEqual(again, in) || !reflect.DeepEqual(againInstalls, installs) {
					t.Fatalf("a cached read returned %+v %+v, want %+v %+v", again, againInstalls, in, installs)
				}
			}
			if n := reads.Take(); n.All != 0 {
				t.Fatalf("20 reads of an unchanged instance ran SQL: %v, want none", n)
			}

			in.Features[0] = 99 // a caller's change stays out of the cache
			installs[0].Inputs["K"] = "changed"
			if again, againInstalls := getPath(t, s, a, made.ID); again.Features[0] != 1 || againInstalls[0].Inputs["K"] != "v" {
				t.Fatalf("a caller's change reached the cache: features %v, inputs %v", again.Features, againInstalls[0].Inputs)
			}

			renamed := made
			renamed.Name = "renamed-by-store"
			if err := s.UpdateInstance(ctx, renamed); err != nil {
				t.Fatal(err)
			}
			if got, _ := getPath(t, s, a, made.ID); got.Name != renamed.Name {
				t.Fatalf("after a rename through the store: name %q, want %q", got.Name, renamed.Name)
			}

			other, err := sql.Open("sqlite", sqlitefast.DSN(path, sqlitefast.BusyTimeout))
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			if _, err := other.ExecContext(ctx, `UPDATE instances SET name = 'renamed-by-other' WHERE id = ?`, made.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := other.ExecContext(ctx, `UPDATE app_installs SET status = ? WHERE instance_id = ?`,
				store.InstallFailed, made.ID); err != nil {
				t.Fatal(err)
			}
			if got, gotInstalls := getPath(t, s, a, made.ID); got.Name != "renamed-by-other" || gotInstalls[0].Status != store.InstallFailed {
				t.Fatalf("after another connection's write: name %q, install %s; want renamed-by-other, %s",
					got.Name, gotInstalls[0].Status, store.InstallFailed)
			}

			getPath(t, s, a, made.ID) // cached again
			reads.Take()
			err = s.WithTx(ctx, func(tx store.Tx) error {
				if _, err := tx.Instance(ctx, a.ID, made.ID); err != nil {
					return err
				}
				_, err := tx.AppInstalls(ctx, made.ID)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			// The app installs' statement reads their instance's account too (the owner their
			// sealed values are bound to), so instances appear in two statements.
			if n := reads.Take().Queries; n["instances"] != 2 || n["app_installs"] != 1 {
				t.Fatalf("a transaction's reads ran %v, want 1 read of instances and 1 of app_installs (which reads instances too)", n)
			}
		})
	}
}

// newCachedInstance creates an order, its instance and one app install of the account.
func newCachedInstance(t *testing.T, s *Store, accountID int64) store.Instance {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	o, err := s.createOrder(ctx, store.Order{AccountID: accountID, Status: store.OrderPending, Price: 4_000,
		CreatedAt: now, PlanID: 101, TemplateID: 1})
	if err != nil {
		t.Fatal(err)
	}
	in, err := s.CreateInstance(ctx, store.Instance{AccountID: accountID, OrderID: o.ID, Name: "web-1", Hostname: "web-1",
		PlanID: 101, TemplateID: 1, DatacenterID: 1, LocationID: 11, Features: []int64{1}, Status: datacenter.StatusOnline,
		Active: true, Renew: true, MachineRef: "vm-1", CredentialsAt: now, CreatedAt: now, RenewalDue: now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddAppInstall(ctx, store.AppInstall{InstanceID: in.ID, AppID: "mysql", Status: store.InstallQueued,
		Stage: store.StageWaiting, Inputs: map[string]string{"K": "v"}, QueuedAt: now, NextAt: now}); err != nil {
		t.Fatal(err)
	}
	return in
}
