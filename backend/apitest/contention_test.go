package apitest

import (
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// TestConcurrentOrdersOnOneSQLiteFile sends 100 POST /instances at once to one SQLite file,
// with the background workers deploying at the same time: write contention must queue inside
// the process, never surface as a 5xx, and every accepted order must be there afterwards.
func TestConcurrentOrdersOnOneSQLiteFile(t *testing.T) {
	t.Parallel()
	const accounts, perAccount = 20, 5
	e := openEnv(t, resellerd.Config{
		DB: filepath.Join(t.TempDir(), "contention.db"), Clock: resellerd.NewManualClock(testStart),
		WorkerInterval: time.Millisecond, // the workers write beside the requests
	})
	keys := make([]string, accounts)
	for i := range keys {
		keys[i] = e.funded(t, 100_000_000).APIKey
	}
	var wg sync.WaitGroup
	answers := make(chan response, accounts*perAccount)
	errs := make(chan error, accounts*perAccount)
	for _, key := range keys {
		for range perAccount {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := e.send(request{Method: http.MethodPost, Path: "/instances", Key: key, Body: ubuntuOn101})
				if err != nil {
					errs <- err
					return
				}
				answers <- r
			}()
		}
	}
	wg.Wait()
	close(answers)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for r := range answers {
		if r.Status != http.StatusCreated {
			t.Errorf("POST /instances answered %d: %s", r.Status, r.Raw)
		}
	}
	for _, key := range keys {
		if b := e.balance(t, key); b.PendingOrders+b.ActiveInstances != perAccount {
			t.Errorf("account has %d pending orders and %d instances, want %d in all", b.PendingOrders, b.ActiveInstances, perAccount)
		}
	}
}
