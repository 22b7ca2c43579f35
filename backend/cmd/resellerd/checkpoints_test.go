package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/devserver"
)

// checkpointEntry is one checkpoint as the checkpoint routes answer it.
type checkpointEntry struct {
	Name      string `json:"name"`
	Time      string `json:"time"`
	SavedAt   string `json:"saved_at"`
	SizeBytes int64  `json:"size_bytes"`
}

// instanceStatus is the status of instance id as the API shows it to key, "" when it is gone (404).
func (d *devAPI) instanceStatus(t *testing.T, key string, id int64) string {
	t.Helper()
	a := d.call(t, "GET", "/api/v1/instances/"+itoa(id), key, "")
	if a.status == 404 {
		return ""
	}
	var in struct {
		Status string `json:"status"`
	}
	a.want(t, 200, "").into(t, &in)
	return in.Status
}

// clockNow moves the service clock by a second and answers its time.
func (d *devAPI) clockNow(t *testing.T) time.Time {
	t.Helper()
	var moved struct {
		Now time.Time `json:"now"`
	}
	d.call(t, "POST", "/_dev/clock", "", `{"advance": "1s"}`).want(t, 200, "").into(t, &moved)
	return moved.Now
}

// TestDevCheckpointRestoresADeletedServer: a checkpoint saved before a server is deleted brings
// it back on restore, online, reached with the same key, with the wallet and the clock of the
// moment of the save; the database stays marked as dev's, so a reset still works.
func TestDevCheckpointRestoresADeletedServer(t *testing.T) {
	db := filepath.Join(t.TempDir(), "dev.db")
	d := startDevInProcess(t, "--deploy-delay", "0s", "--credentials-delay", "0s", "--db", db)
	_, id := d.deployed(t)
	balance := d.balance(t)
	var saved checkpointEntry
	d.call(t, "POST", "/_dev/checkpoints", "", `{"name": "before-delete"}`).want(t, 200, "").into(t, &saved)
	if saved.Name != "before-delete" || saved.SizeBytes <= 0 {
		t.Fatalf("saved %+v", saved)
	}
	savedAt, err := time.Parse(time.RFC3339, saved.Time)
	if err != nil {
		t.Fatalf("time %q: %v", saved.Time, err)
	}

	d.call(t, "POST", "/_dev/clock", "", `{"advance": "48h"}`).want(t, 200, "")
	d.call(t, "DELETE", "/api/v1/instances/"+itoa(id), d.key, "").want(t, 200, "")
	if s := d.instanceStatus(t, d.key, id); s == "online" {
		t.Fatalf("instance still online after DELETE")
	}

	var restored struct {
		Restored checkpointEntry `json:"restored"`
		Now      time.Time       `json:"now"`
	}
	d.call(t, "POST", "/_dev/checkpoints/before-delete/restore", "", "").want(t, 200, "").into(t, &restored)
	if s := d.instanceStatus(t, d.key, id); s != "online" {
		t.Fatalf("after restore the instance is %q, want online", s)
	}
	if b := d.balance(t); b != balance {
		t.Fatalf("after restore the balance is %v, want %v as saved", b, balance)
	}
	if restored.Restored.Name != "before-delete" || restored.Now.Before(savedAt) || restored.Now.After(savedAt.Add(time.Hour)) {
		t.Fatalf("restore answered %+v; want the clock back near %s (not 48 h on)", restored, savedAt)
	}
	if !devserver.IsDevDB(db) {
		t.Fatalf("after restore %s is not a dev database", db)
	}
	d.call(t, "POST", "/_dev/reset", "", "").want(t, 200, "")
	if s := d.instanceStatus(t, d.key, id); s != "" {
		t.Fatalf("after reset the instance is %q, want 404", s)
	}
}

// TestDevCheckpointsListAndDelete: the list shows each checkpoint, newest first, with its times
// and size; a name is taken once (409) until deleted; a deleted checkpoint's file is gone and its
// name 404.
func TestDevCheckpointsListAndDelete(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where dev keeps its checkpoints
	d := startDevInProcess(t)
	d.call(t, "POST", "/_dev/checkpoints", "", `{"name": "first"}`).want(t, 200, "")
	d.call(t, "POST", "/_dev/clock", "", `{"advance": "2h"}`).want(t, 200, "")
	d.call(t, "POST", "/_dev/checkpoints", "", `{"name": "second"}`).want(t, 200, "")
	if a := d.call(t, "POST", "/_dev/checkpoints", "", `{"name": "first"}`).want(t, 409, "checkpoint_exists"); !strings.Contains(a.Error.Message, "first") {
		t.Fatalf("message %q does not name the checkpoint", a.Error.Message)
	}

	var list []checkpointEntry
	d.call(t, "GET", "/_dev/checkpoints", "", "").want(t, 200, "").into(t, &list)
	if len(list) != 2 || list[0].Name != "second" || list[1].Name != "first" {
		t.Fatalf("list %+v, want second then first", list)
	}
	t0, err0 := time.Parse(time.RFC3339, list[1].Time)
	t1, err1 := time.Parse(time.RFC3339, list[0].Time)
	if err0 != nil || err1 != nil || t1.Sub(t0) < 2*time.Hour || list[0].SizeBytes <= 0 || list[1].SizeBytes <= 0 {
		t.Fatalf("list %+v: want service times 2 h apart and sizes", list)
	}
	if _, err := time.Parse(time.RFC3339, list[0].SavedAt); err != nil {
		t.Fatalf("saved_at %q: %v", list[0].SavedAt, err)
	}
	files, _ := filepath.Glob(filepath.Join(tmp, "resellerd-dev-*", "checkpoints", "*.db"))
	if len(files) != 2 {
		t.Fatalf("checkpoint files %v, want 2", files)
	}

	d.call(t, "DELETE", "/_dev/checkpoints/first", "", "").want(t, 200, "")
	d.call(t, "GET", "/_dev/checkpoints", "", "").want(t, 200, "").into(t, &list)
	if len(list) != 1 || list[0].Name != "second" {
		t.Fatalf("after delete the list is %+v, want only second", list)
	}
	if files, _ = filepath.Glob(filepath.Join(tmp, "resellerd-dev-*", "checkpoints", "*.db")); len(files) != 1 || filepath.Base(files[0]) != "second.db" {
		t.Fatalf("after delete the checkpoint files are %v, want second.db", files)
	}
	d.call(t, "DELETE", "/_dev/checkpoints/first", "", "").want(t, 404, "not_found")
	d.call(t, "POST", "/_dev/checkpoints/first/restore", "", "").want(t, 404, "not_found")
	d.call(t, "POST", "/_dev/checkpoints", "", `{"name": "first"}`).want(t, 200, "") // the name is free again
}

// TestDevCheckpointNames: a name that is not 1 to 64 of a-z, 0-9, '.', '_', '-' (starting with a
// letter or digit) is 400 validation_error naming `name`, in the body and in the path alike.
func TestDevCheckpointNames(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	d := startDevInProcess(t)
	for _, body := range []string{`{}`, `{"name": ""}`, `{"name": "Before"}`, `{"name": "-x"}`, `{"name": ".x"}`,
		`{"name": "a/b"}`, `{"name": "../x"}`, `{"name": "a b"}`, `{"name": "` + strings.Repeat("a", 65) + `"}`, `{"name": 7}`} {
		a := d.call(t, "POST", "/_dev/checkpoints", "", body).want(t, 400, "validation_error")
		if !strings.Contains(a.Error.Message, "name") {
			t.Errorf("%s: message %q does not name `name`", body, a.Error.Message)
		}
	}
	for _, path := range []string{"/_dev/checkpoints/Bad/restore", "/_dev/checkpoints/_x/restore", "/_dev/checkpoints/a%20b/restore"} {
		if a := d.call(t, "POST", path, "", "").want(t, 400, "validation_error"); !strings.Contains(a.Error.Message, "name") {
			t.Errorf("POST %s: message %q does not name `name`", path, a.Error.Message)
		}
	}
	if a := d.call(t, "DELETE", "/_dev/checkpoints/Bad", "", "").want(t, 400, "validation_error"); !strings.Contains(a.Error.Message, "name") {
		t.Errorf("DELETE: message %q does not name `name`", a.Error.Message)
	}
	for _, name := range []string{"a", "before-upgrade", "v1.2_rc-3", "0" + strings.Repeat("z", 63)} {
		d.call(t, "POST", "/_dev/checkpoints", "", `{"name": "`+name+`"}`).want(t, 200, "")
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "resellerd-dev-*", "checkpoints", "*")); len(left) != 4 {
		t.Fatalf("checkpoint directory holds %v, want the 4 good names only", left)
	}
	if _, err := os.Stat(filepath.Join(tmp, "x")); err == nil {
		t.Fatal("a name with .. wrote outside the checkpoint directory")
	}
}

// TestDevCheckpointLimitFlags: dev's checkpoint limits default to 20 checkpoints and 256 MiB,
// are set by --max-checkpoints and --max-checkpoint-bytes or their RESELLER_ variables, and a
// limit below 1 is a usage error naming its flag.
func TestDevCheckpointLimitFlags(t *testing.T) {
	t.Parallel()
	o, err := parseDev(nil, noEnv)
	if err != nil || o.MaxCheckpoints != 20 || o.MaxCheckpointBytes != 256<<20 {
		t.Fatalf("defaults: %d checkpoints, %d bytes, %v", o.MaxCheckpoints, o.MaxCheckpointBytes, err)
	}
	o, err = parseDev([]string{"--max-checkpoint-bytes", "1000"}, mapEnv(map[string]string{"RESELLER_MAX_CHECKPOINTS": "3"}))
	if err != nil || o.MaxCheckpoints != 3 || o.MaxCheckpointBytes != 1000 {
		t.Fatalf("set: %d checkpoints, %d bytes, %v", o.MaxCheckpoints, o.MaxCheckpointBytes, err)
	}
	for _, flag := range []string{"--max-checkpoints", "--max-checkpoint-bytes"} {
		if _, err := parseDev([]string{flag, "0"}, noEnv); err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("%s 0: %v; want a usage error naming it", flag, err)
		}
	}
}
