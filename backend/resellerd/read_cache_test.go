package resellerd

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/storetest"
)

// TestInstanceReadsComeFromCacheUntilAWrite reads GET /instances/{id} from SQLite's read cache
// (a repeated request reads no instance or app install row), shows that what depends on the
// time still follows the clock between writes, and that a rename, by this backend or by
// another one on the same file, is in the very next answer.
func TestInstanceReadsComeFromCacheUntilAWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "reads.db")
	var reads storetest.Reads
	st, err := sqlstore.OpenSQLite(ctx, path, sqlstore.WithReadHook(reads.Hook))
	if err != nil {
		t.Fatal(err)
	}
	clock := NewManualClock(testStart)
	srv := testOnStore(t, ctx, withDefaults(Config{DB: path, Clock: clock, WorkerInterval: -1}), st)
	t.Cleanup(func() { _ = srv.Close() })
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	e := &env{srv: srv, http: hs}
	a, err := srv.CreateAccount(ctx, NewAccount{BalanceMicros: 1_000_000_000})
	if err != nil {
		t.Fatal(err)
	}
	id := newPendingCredentials(t, st, a.ID, clock.Now(), time.Minute)
	path1 := fmt.Sprintf("/instances/%d", id)

	if got := readInstance(t, e, a.APIKey, path1); !got.Credentials.Pending || got.Name != "cached" {
		t.Fatalf("first read: %+v, want name cached and credentials pending", got)
	}
	reads.Take()
	clock.Advance(2 * time.Minute)
	if got := readInstance(t, e, a.APIKey, path1); got.Credentials.Pending || got.Credentials.Password == nil {
		t.Fatalf("a read after the credentials time: %+v, want them shown", got.Credentials)
	}
	for range 5 {
		readInstance(t, e, a.APIKey, path1)
	}
	n := reads.Take().Queries
	instances, installs := n["instances"], n["app_installs"]
	if instances != 0 || installs != 0 {
		t.Fatalf("6 reads of an unchanged instance read instances %d times and app installs %d times, want 0",
			instances, installs)
	}

	rename(t, e, a.APIKey, path1, "by-this-backend")
	if got := readInstance(t, e, a.APIKey, path1); got.Name != "by-this-backend" {
		t.Fatalf("after a rename by this backend: name %q", got.Name)
	}
	other, err := New(ctx, Config{DB: path, WorkerInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Close() })
	otherHTTP := httptest.NewServer(other.Handler())
	t.Cleanup(otherHTTP.Close)
	rename(t, &env{srv: other, http: otherHTTP}, a.APIKey, path1, "by-another-backend")
	if got := readInstance(t, e, a.APIKey, path1); got.Name != "by-another-backend" {
		t.Fatalf("after a rename by another backend on the file: name %q", got.Name)
	}
}

// instanceRead is the part of GET /instances/{id} the test looks at.
type instanceRead struct {
	Name        string `json:"name"`
	Credentials struct {
		Password *string `json:"password"`
		Pending  bool    `json:"pending"`
	} `json:"credentials"`
}

func readInstance(t *testing.T, e *env, key, path string) instanceRead {
	t.Helper()
	r, err := e.send(request{Path: path, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	var out instanceRead
	if r.Status != http.StatusOK || json.Unmarshal(r.Body.Data, &out) != nil {
		t.Fatalf("GET %s: %d %s", path, r.Status, r.Raw)
	}
	return out
}

func rename(t *testing.T, e *env, key, path, name string) {
	t.Helper()
	r, err := e.send(request{Method: http.MethodPatch, Path: path, Key: key, Body: `{"name": "` + name + `"}`})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != http.StatusOK {
		t.Fatalf("PATCH %s: %d %s", path, r.Status, r.Raw)
	}
}

// newPendingCredentials stores a deployed instance of the account, named "cached", whose
// credentials are ready after wait, and returns its id.
func newPendingCredentials(t *testing.T, st store.Store, accountID int64, now time.Time, wait time.Duration) int64 {
	t.Helper()
	ctx := context.Background()
	var id int64
	err := st.WithTx(ctx, func(tx store.Tx) error {
		o, _, err := tx.PlaceOrder(ctx, store.Order{AccountID: accountID, Status: store.OrderPending, Price: 4_000,
			CreatedAt: now, PlanID: 101, TemplateID: 1}, nil)
		if err != nil {
			return err
		}
		in, err := tx.CreateInstance(ctx, store.Instance{AccountID: accountID, OrderID: o.ID, Name: "cached", Hostname: "cached",
			PlanID: 101, TemplateID: 1, DatacenterID: 1, LocationID: 11, Status: datacenter.StatusOnline, Active: true,
			Renew: true, MachineRef: "vm-cached", Username: "root", Password: "secret", Port: 22,
			CredentialsAt: now.Add(wait), CreatedAt: now, RenewalDue: now.Add(time.Hour)})
		if err != nil {
			return err
		}
		id = in.ID
		return tx.FinishOrder(ctx, o.ID, store.OrderDeployed, now, in.ID, "")
	})
	if err != nil {
		t.Fatalf("store instance: %v", err)
	}
	return id
}
