package apitest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

func (e *env) installs(t *testing.T, key string, id int64) api.InstanceAppsView {
	t.Helper()
	r := e.do(t, request{Path: fmt.Sprintf("/instances/%d/apps?lang=en", id), Key: key})
	r.WantStatus(t, http.StatusOK, "")
	var v api.InstanceAppsView
	r.Data(t, &v)
	return v
}

// install queues apps and returns the answer.
func (e *env) install(t *testing.T, key string, id int64, body string) response {
	t.Helper()
	return e.do(t, request{Method: http.MethodPost, Path: fmt.Sprintf("/instances/%d/apps", id), Key: key, Body: body})
}

// stages lists "app:status/stage" of every install, oldest first.
func stages(v api.InstanceAppsView) []string {
	var out []string
	for _, in := range v.Installs {
		out = append(out, in.AppID+":"+in.Status+"/"+in.Stage)
	}
	slices.Reverse(out)
	return out
}

func TestAppInstallStateMachine(t *testing.T) {
	t.Parallel()
	step := time.Minute
	e := newEnv(t, func(c *resellerd.Config) { c.CredentialsDelay = step }) // each install stage takes a minute too
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, `{"server_id": 102, "template_id": 1, "term": "hourly", "apps": ["wordpress"],
		"app_inputs": {"wordpress": {"DOMAIN": "blog.example.org"}}}`)
	want := [][]string{
		{"mysql:queued/waiting", "wordpress:queued/waiting"},       // credentials still pending
		{"mysql:installing/preparing", "wordpress:queued/waiting"}, // +1m: the machine is ready
		{"mysql:installing/running", "wordpress:queued/waiting"},   // +2m
		{"mysql:installed/done", "wordpress:queued/waiting"},       // +3m
		{"mysql:installed/done", "wordpress:installing/preparing"}, // +4m
		{"mysql:installed/done", "wordpress:installing/running"},   // +5m
		{"mysql:installed/done", "wordpress:installed/done"},       // +6m
	}
	for i, w := range want {
		if i > 0 {
			e.clock.Advance(step)
			e.runDue(t)
		}
		v := e.installs(t, a.APIKey, id)
		if got := stages(v); !slices.Equal(got, w) {
			t.Fatalf("after %d minutes: %v, want %v", i, got, w)
		}
	}
	v := e.installs(t, a.APIKey, id)
	if v.ServerID != id || !v.Supported || len(v.Installs) != 2 {
		t.Fatalf("got %+v", v)
	}
	wp, mysql := v.Installs[0], v.Installs[1] // newest first
	if wp.Name != "WordPress" || wp.Attempts != 1 || wp.Result["url"] != "https://blog.example.org/" || wp.Error != "" ||
		*wp.StartedAt != "2025-06-01T10:04:00Z" || *wp.FinishedAt != "2025-06-01T10:06:00Z" || !strings.Contains(wp.LogTail, "wordpress installed") {
		t.Fatalf("wordpress = %+v", wp)
	}
	password, _ := mysql.Result["root_password"].(string)
	host, _ := mysql.Result["host"].(string)
	if len(password) < 16 || host == "" {
		t.Fatalf("mysql result = %v, want a generated root password and the host", mysql.Result)
	}
	in := e.getInstance(t, a.APIKey, id)
	if len(in.Apps) != 2 || in.Apps[0].AppID != "mysql" || in.Apps[1].Status != "installed" {
		t.Fatalf("instance apps = %+v", in.Apps)
	}
}

// TestAppInstallStepDelayOfItsOwn: with AppStepDelay set, each install stage takes it, not the
// credentials delay, which still holds the install back until the credentials come.
func TestAppInstallStepDelayOfItsOwn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *resellerd.Config) { c.CredentialsDelay, c.AppStepDelay = time.Hour, time.Minute })
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, `{"server_id": 102, "template_id": 1, "term": "hourly", "apps": ["mysql"]}`)
	for _, step := range []struct {
		advance time.Duration
		want    string
	}{
		{59 * time.Minute, "mysql:queued/waiting"}, // credentials still pending
		{time.Minute, "mysql:installing/preparing"},
		{time.Minute, "mysql:installing/running"},
		{time.Minute, "mysql:installed/done"},
	} {
		e.clock.Advance(step.advance)
		e.runDue(t)
		if got := stages(e.installs(t, a.APIKey, id)); !slices.Equal(got, []string{step.want}) {
			t.Fatalf("after %v more: %v, want [%s]", step.advance, got, step.want)
		}
	}
}

func TestAppInstallAuthFailed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, ubuntuOn101)
	if err := e.srv.ChangeRootPasswordOutOfBand(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	r := e.install(t, a.APIKey, id, `{"apps": ["docker"]}`)
	r.WantStatus(t, http.StatusAccepted, "")
	var queued api.InstalledAppsView
	r.Data(t, &queued)
	if queued.ServerID != id || !slices.Equal(queued.Queued, []string{"docker"}) {
		t.Fatalf("got %+v", queued)
	}
	e.runDue(t) // waiting → preparing
	e.runDue(t) // the password is tried
	got := e.installs(t, a.APIKey, id).Installs[0]
	if got.Status != "failed" || got.Stage != "auth_failed" || !strings.Contains(got.Error, "reset_password") ||
		!strings.Contains(got.LogTail, "Permission denied") || got.FinishedAt == nil {
		t.Fatalf("install = %+v, want failed with stage auth_failed explained in log_tail", got)
	}
	e.act(t, a.APIKey, id, `{"action": "reset_password"}`)
	e.install(t, a.APIKey, id, `{"apps": ["docker"]}`).WantStatus(t, http.StatusAccepted, "") // a failed app is queued again
	for range 3 {
		e.runDue(t)
	}
	if got := stages(e.installs(t, a.APIKey, id)); !slices.Equal(got, []string{"docker:failed/auth_failed", "docker:installed/done"}) {
		t.Fatalf("installs = %v, want the failed one and a new installed one", got)
	}
	if err := e.srv.ChangeRootPasswordOutOfBand(context.Background(), 99999); err == nil {
		t.Fatal("unknown instance: got nil error")
	}
}

func TestInstallAppsRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, `{"server_id": 102, "template_id": 1, "term": "hourly", "apps": ["openvpn"]}`)
	queue := func(body string) []string {
		t.Helper()
		r := e.install(t, a.APIKey, id, body)
		r.WantStatus(t, http.StatusAccepted, "")
		var v api.InstalledAppsView
		r.Data(t, &v)
		return v.Queued
	}
	if got := queue(`{"apps": ["nextcloud"], "app_inputs": {"nextcloud": {"ADMIN_PASSWORD": "correct-horse"}}}`); !slices.Equal(got, []string{"docker", "nextcloud"}) {
		t.Fatalf("queued %v, want the dependency first", got)
	}
	if got := queue(`{"apps": ["docker", "nextcloud"]}`); len(got) != 0 {
		t.Fatalf("queued %v again, want nothing: both are queued already", got)
	}
	tests := []struct {
		name   string
		body   string
		status int
		code   string
		field  string
	}{
		{"conflicts with an installed app", `{"apps": ["wireguard"]}`, 409, "app_conflict", "openvpn"},
		{"conflicts with a queued app", `{"apps": ["wordpress"]}`, 409, "app_conflict", "nextcloud"},
		{"no apps", `{"apps": []}`, 400, "validation_error", "apps"},
		{"apps missing", `{}`, 400, "validation_error", "apps"},
		{"unknown app", `{"apps": ["nope"]}`, 400, "validation_error", "apps"},
		{"another OS", `{"apps": ["iis"]}`, 400, "validation_error", "apps"},
		{"too big", `{"apps": ["gitlab"]}`, 400, "validation_error", "apps"},
		{"unknown input", `{"apps": ["mysql"], "app_inputs": {"mysql": {"PORT": "1"}}}`, 400, "validation_error", "app_inputs.mysql.PORT"},
		{"apps not a list", `{"apps": "docker"}`, 400, "validation_error", "apps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.install(t, a.APIKey, id, tt.body)
			r.WantStatus(t, tt.status, tt.code)
			r.WantMessage(t, tt.field)
		})
	}
	t.Run("closed to the account", func(t *testing.T) {
		if err := e.srv.SetAppsEnabled(context.Background(), a.ID, false); err != nil {
			t.Fatal(err)
		}
		e.install(t, a.APIKey, id, `{"apps": ["mysql"]}`).WantStatus(t, http.StatusForbidden, "forbidden")
		if v := e.installs(t, a.APIKey, id); v.Supported {
			t.Fatal("supported = true for an account without apps")
		}
		if err := e.srv.SetAppsEnabled(context.Background(), a.ID, true); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a canceled instance abandons its queue", func(t *testing.T) {
		e.do(t, request{Method: http.MethodDelete, Path: fmt.Sprintf("/instances/%d", id), Key: a.APIKey}).WantStatus(t, http.StatusOK, "")
		for range 3 {
			e.runDue(t)
		}
		for _, in := range e.installs(t, a.APIKey, id).Installs {
			if in.Status != "failed" && in.Status != "installed" {
				t.Fatalf("install %s is %s on a canceled instance", in.AppID, in.Status)
			}
		}
		if v := e.installs(t, a.APIKey, id); v.Supported {
			t.Fatal("supported = true for a canceled instance")
		}
	})
}

func TestAppInstallRetriesAndFailsDependents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.funded(t, 10_000_000)
	id := e.deployed(t, a.APIKey, `{"server_id": 102, "template_id": 3, "term": "hourly"}`)
	e.install(t, a.APIKey, id, `{"apps": ["nextcloud", "wireguard"]}`).WantStatus(t, http.StatusAccepted, "")
	if err := e.srv.SetFailRate(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	for range 8 {
		e.runDue(t)
	}
	v := e.installs(t, a.APIKey, id)
	byApp := map[string]api.AppInstallView{}
	for _, in := range v.Installs {
		byApp[in.AppID] = in
	}
	docker, nextcloud := byApp["docker"], byApp["nextcloud"]
	if docker.Status != "failed" || docker.Stage != "failed" || docker.Attempts != 3 || !strings.Contains(docker.LogTail, "reference") {
		t.Fatalf("docker = %+v, want failed after 3 attempts with the datacenter's reference in the log", docker)
	}
	if nextcloud.Status != "failed" || !strings.Contains(nextcloud.Error, "dependency docker") {
		t.Fatalf("nextcloud = %+v, want failed because docker did", nextcloud)
	}
	if err := e.srv.SetFailRate(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		e.runDue(t)
	}
	if w := e.installs(t, a.APIKey, id).Installs[0]; w.AppID != "wireguard" || w.Status != "installed" {
		t.Fatalf("wireguard = %+v, want installed: it does not need docker", w)
	}
}
