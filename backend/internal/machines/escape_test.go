package machines

import (
	"fmt"
	"testing"
)

// reproduction is one of issue 40's reproductions: what root inside a machine did to the host, to
// resellerd or to other tenants at c4c86d9, each now refused. run reproduces it, as root inside
// a machine, and fails the test if it still works.
type reproduction struct {
	point int    // the numbering
	name  string // what the tenant did, as a subtest name
	run   func(t *testing.T)
}

// reproductions are the ten reproductions, in the order. Each row's function holds its
// cases; backend/docs/machines.md's threat model names the rows.
var reproductions = []reproduction{
	{1, "host_files_through_symlinks", snapshotFilesStayInTheDisk},
	{1, "root_is_host_root", rootInAMachineIsNotTheHostsRoot},
	{2, "stuck_machine_stalls_others", stuckMachineDelaysOnlyItself},
	{3, "traffic_of_other_machines", aMachineCannotBreakOutThroughTheNetwork},
	{4, "host_memory_cpu_pids", cgroupEscapes},
	{4, "host_disk", disksGrowAndLeaveNothing},
	{5, "keyring_and_kernel_surface", escapesThroughSyscalls},
	{6, "inherited_capabilities", inheritedCapabilitiesStayOutOfMachines},
	// 7 is row 5's: one machine probes the keyring calls with the rest of the seccomp filter.
	// 8 is row 2's last cases: an agent stopped or killed is found down and booted again.
	// 9 is row 1's second (mountinfo, /proc/key-users) and row 4's (the cgroup namespace).
	{10, "snapshot_host_key", snapshotHostKeys},
}

// TestTenantCannotBreakOut runs the reproductions of issue 40 ("Why"), each as root inside a
// machine, each now refused. They need root (and CI set makes that a failure, not a skip).
func TestTenantCannotBreakOut(t *testing.T) {
	requireRoot(t)
	for _, r := range reproductions {
		t.Run(fmt.Sprintf("%d_%s", r.point, r.name), r.run)
	}
}
