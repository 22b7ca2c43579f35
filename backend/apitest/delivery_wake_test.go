package apitest

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// TestWorkerEventsAreDeliveredAtOnce: with an idle interval of an hour, the order.deployed event
// the provisioning loop writes is delivered at once, because each provisioning tick wakes the
// delivery loop (no request wakes it after the deploy).
func TestWorkerEventsAreDeliveredAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) {
		c.AllowHTTPWebhooks = true
		c.WorkerInterval, c.IdleInterval = 5*time.Millisecond, time.Hour
	})
	a := e.account(t, 100_000_000)
	hook := newReceiver(t, http.StatusOK)
	e.register(t, a.APIKey, hook.url())
	e.do(t, request{Method: http.MethodPost, Path: "/instances", Key: a.APIKey, Body: ubuntuOn101}).
		WantStatus(t, http.StatusCreated, "")
	deadline := time.Now().Add(eventWait) // the idle interval is an hour: only a wake delivers sooner
	for time.Now().Before(deadline) {
		for _, d := range hook.deliveries() {
			if strings.Contains(string(d.body), `"order.deployed"`) {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no order.deployed delivery in %s (got %d deliveries): the delivery loop slept through the deploy",
		eventWait, len(hook.deliveries()))
}
