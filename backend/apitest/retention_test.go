package apitest

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// TestRetentionBoundsTheTables: under a steady churn (an order an hour that times out, its
// event and its delivery), the rows of orders, events and deliveries stop growing once the
// retention has passed: timed-out orders go 24 hours after they finished, events and deliveries
// after --retain-events (here 24 h too).
func TestRetentionBoundsTheTables(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "reseller.db")
	e := newEnv(t, func(c *resellerd.Config) {
		c.DB, c.FailRate, c.OrderWindow, c.RetainEvents, c.AllowHTTPWebhooks = path, 1, 30*time.Minute, 24*time.Hour, true
	})
	a := e.funded(t, 1_000_000_000)
	hook := newReceiver(t, 200)
	e.register(t, a.APIKey, hook.url())
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	counts := func() (n [3]int) {
		for i, table := range []string{"orders", "events", "deliveries"} {
			if err := db.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n[i]); err != nil {
				t.Fatal(err)
			}
		}
		return n
	}
	var at40 [3]int
	const hours = 70
	for hour := 1; hour <= hours; hour++ {
		e.placed(t, a.APIKey, ubuntuOn101)
		e.clock.Advance(time.Hour)
		e.runDue(t)
		if hour == 40 {
			at40 = counts()
		}
	}
	at70 := counts()
	if got := len(hook.deliveries()); got != hours {
		t.Fatalf("the receiver got %d events, want %d (one order.timed_out an hour)", got, hours)
	}
	for i, table := range []string{"orders", "events", "deliveries"} {
		if at70[i] != at40[i] || at70[i] > 26 {
			t.Fatalf("%s: %d rows after 40 hours, %d after 70; want a steady count near 24", table, at40[i], at70[i])
		}
	}
	t.Logf("rows after 40 and 70 hours (orders, events, deliveries): %v %v", at40, at70)
}
