package main

import (
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/devserver"
	"github.com/reseller/terraform-provider-reseller/backend/machinestest"
)

// requireMachines is machinestest.Require.
func requireMachines(t *testing.T) { machinestest.Require(t) }

// TestDevMachinesRefuseCheckpoints: under --machines sandbox, dev answers a checkpoint, a
// restore and a reset with 409 machines_unsupported and changes nothing: the server and its
// machine are still there.
func TestDevMachinesRefuseCheckpoints(t *testing.T) {
	requireMachines(t)
	d := startDevInProcess(t, "--deploy-delay", "0s", "--credentials-delay", "0s", "--machines", "sandbox",
		"--machines-cidr", "198.19.50.0/24")
	_, id := d.deployed(t)
	d.call(t, "POST", "/_dev/checkpoints", "", `{"name": "before"}`).want(t, 409, devserver.CodeMachinesUnsupported)
	d.call(t, "POST", "/_dev/checkpoints/before/restore", "", "").want(t, 404, "not_found") // none was saved
	d.call(t, "POST", "/_dev/reset", "", "").want(t, 409, devserver.CodeMachinesUnsupported)
	if status := d.instanceStatus(t, d.key, id); status != "online" {
		t.Fatalf("instance %d is %q after the refusals, want online", id, status)
	}
}
