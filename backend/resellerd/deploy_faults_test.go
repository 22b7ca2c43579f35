package resellerd

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestDeployFaultsFireAtTheDeploy: HoldDeploys keeps a finished build pending however many
// ticks pass, and ReleaseDeploys lets it deploy; ChangeRootPasswordAtDeploy makes the next
// deployed server's first install fail at auth_failed, with no goroutine racing the installs,
// and the server after it installs normally.
func TestDeployFaultsFireAtTheDeploy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := NewManualClock(testStart)
	e := openEnv(t, Config{DB: pg.TestDB(t), RateLimitScale: 100, Clock: clock, WorkerInterval: -1,
		DeployDelay: time.Second, CredentialsDelay: time.Second})
	a, err := e.srv.CreateAccount(ctx, NewAccount{BalanceMicros: 1_000_000_000, ServerLimit: 10, OrderLimit: 10})
	if err != nil {
		t.Fatal(err)
	}
	order := func() int64 {
		r := e.do(t, request{Method: http.MethodPost, Path: "/instances", Key: a.APIKey,
			Body: `{"server_id": 102, "template_id": 1, "term": "hourly", "apps": ["docker"]}`})
		var created struct {
			OrderID int64 `json:"order_id"`
		}
		if err := json.Unmarshal(r.Body.Data, &created); err != nil || created.OrderID == 0 {
			t.Fatalf("POST /instances: %d %s", r.Status, r.Raw)
		}
		return created.OrderID
	}
	tick := func(n int) {
		for range n {
			clock.Advance(2 * time.Second)
			if err := e.srv.RunDue(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}

	e.srv.HoldDeploys()
	held := order()
	tick(5)
	if status, _ := e.orderStatus(t, a.APIKey, held); status != "pending" {
		t.Fatalf("order %d held: status %s, want pending", held, status)
	}
	e.srv.ChangeRootPasswordAtDeploy()
	e.srv.ReleaseDeploys()
	tick(8)
	status, broken := e.orderStatus(t, a.APIKey, held)
	if status != "deployed" {
		t.Fatalf("order %d released: status %s, want deployed", held, status)
	}
	if got := e.installOf(t, a.APIKey, broken, "docker"); got != "failed/auth_failed" {
		t.Fatalf("install on the server whose password changed at its deploy: %s, want failed/auth_failed", got)
	}

	next := order()
	tick(8)
	_, fine := e.orderStatus(t, a.APIKey, next)
	if got := e.installOf(t, a.APIKey, fine, "docker"); got != "installed/done" {
		t.Fatalf("install on the next server: %s, want installed (the fault fires once)", got)
	}
}

// orderStatus reads order id's status and the server it built (0 while pending).
func (e *env) orderStatus(t *testing.T, key string, id int64) (string, int64) {
	t.Helper()
	r := e.do(t, request{Path: fmt.Sprintf("/orders/%d", id), Key: key})
	var o struct {
		Status string `json:"status"`
		Server *struct {
			ID int64 `json:"id"`
		} `json:"server"`
	}
	if err := json.Unmarshal(r.Body.Data, &o); err != nil {
		t.Fatalf("GET /orders/%d: %d %s", id, r.Status, r.Raw)
	}
	if o.Server == nil {
		return o.Status, 0
	}
	return o.Status, o.Server.ID
}

// installOf reads the install of app on server id as "status/stage".
func (e *env) installOf(t *testing.T, key string, id int64, app string) string {
	t.Helper()
	r := e.do(t, request{Path: fmt.Sprintf("/instances/%d/apps", id), Key: key})
	var apps struct {
		Installs []struct {
			AppID  string  `json:"app_id"`
			Status string  `json:"status"`
			Stage  *string `json:"stage"`
		} `json:"installs"`
	}
	if err := json.Unmarshal(r.Body.Data, &apps); err != nil {
		t.Fatalf("GET /instances/%d/apps: %d %s", id, r.Status, r.Raw)
	}
	for _, in := range apps.Installs {
		if in.AppID == app {
			stage := ""
			if in.Stage != nil {
				stage = *in.Stage
			}
			return in.Status + "/" + stage
		}
	}
	return "absent: " + string(r.Raw)
}
