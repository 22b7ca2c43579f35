package main

import (
	"errors"
	"os"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines"
)

// requireMachines skips a test that needs root and the machine runtime only where that is
// allowed: under CI (CI=true) it fails instead.
func requireMachines(t *testing.T) {
	t.Helper()
	err := machines.Check(machines.Options{})
	if os.Geteuid() != 0 {
		err = errors.Join(err, errors.New("not root"))
	}
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("--machines sandbox tests must run under CI (run them as root): %v", err)
	}
	t.Skipf("--machines sandbox tests need root and the machine runtime: %v", err)
}

// TestDevMachinesRefuseCheckpoints: under --machines sandbox, dev answers a checkpoint, a
// restore and a reset with 409 machines_unsupported and changes nothing: the server and its
// machine are still there.
func TestDevMachinesRefuseCheckpoints(t *testing.T) {
	requireMachines(t)
	d := startDevInProcess(t, "--deploy-delay", "0s", "--credentials-delay", "0s", "--machines", "sandbox",
		"--machines-cidr", "198.19.50.0/24")
	_, id := d.deployed(t)
	d.call(t, "POST", "/_dev/checkpoints", "", `{"name": "before"}`).want(t, 409, codeMachinesUnsupported)
	d.call(t, "POST", "/_dev/checkpoints/before/restore", "", "").want(t, 404, "not_found") // none was saved
	d.call(t, "POST", "/_dev/reset", "", "").want(t, 409, codeMachinesUnsupported)
	if status := d.instanceStatus(t, d.key, id); status != "online" {
		t.Fatalf("instance %d is %q after the refusals, want online", id, status)
	}
}
