package machines

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// envInheritedCaps marks the process inheritedCapabilitiesStayOutOfMachines starts.
const envInheritedCaps = "RESELLER_TEST_INHERITED_CAPS"

// inheritedCapabilitiesStayOutOfMachines reproduces issue 40 (6): a resellerd started with
// an inheritable (and ambient) CAP_SYS_ADMIN, as `capsh --inh=cap_sys_admin -- -c resellerd`
// starts it. It runs TestHelperInheritedCaps in a process started from a thread holding those
// sets; every thread of that process inherits them, the one that boots machines too.
func inheritedCapabilitiesStayOutOfMachines(t *testing.T) {
	requireRoot(t)
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the runtime discards the thread
		if err := raiseInheritedSysAdmin(); err != nil {
			done <- result{err: fmt.Errorf("raise CAP_SYS_ADMIN in the inheritable and ambient sets: %w", err)}
			return
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperInheritedCaps$", "-test.count=1")
		cmd.Env = append(os.Environ(), envInheritedCaps+"=1")
		out, err := cmd.CombinedOutput()
		done <- result{out, err}
	}()
	r := <-done
	if r.err != nil {
		t.Fatalf("the process with an inheritable CAP_SYS_ADMIN: %v\n%s", r.err, r.out)
	}
	if !strings.Contains(string(r.out), "PASS") {
		t.Fatalf("the helper did not run:\n%s", r.out)
	}
}

// raiseInheritedSysAdmin adds CAP_SYS_ADMIN to the calling thread's inheritable and ambient
// sets.
func raiseInheritedSysAdmin() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	data[0].Inheritable |= 1 << unix.CAP_SYS_ADMIN
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return err
	}
	return unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_RAISE, unix.CAP_SYS_ADMIN, 0, 0)
}

// TestHelperInheritedCaps is the process inheritedCapabilitiesStayOutOfMachines starts: it
// checks that it holds the inheritable and ambient CAP_SYS_ADMIN, boots a machine, and checks
// the capability sets of a script in it: inheritable and ambient empty, permitted and effective
// the kept ones, and no mount.
func TestHelperInheritedCaps(t *testing.T) {
	if os.Getenv(envInheritedCaps) == "" {
		t.Skip("a helper process of inheritedCapabilitiesStayOutOfMachines")
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	sysAdmin := fmt.Sprintf("%016x", uint64(1)<<unix.CAP_SYS_ADMIN)
	for _, field := range []string{"CapInh", "CapAmb"} {
		if got := statusField(string(status), field); got != sysAdmin {
			t.Fatalf("this process's %s is %s, want CAP_SYS_ADMIN alone (%s): the test would prove nothing", field, got, sysAdmin)
		}
	}
	m := newManager(t, "198.18.234.0/24")
	ctx := context.Background()
	ip := netip.MustParseAddr("198.18.234.10")
	if err := m.Create(ctx, Spec{Ref: "vm-caps", Hostname: "caps", Template: "t", IPv4: ip, Password: "pw"}, ""); err != nil {
		t.Fatal(err)
	}
	out, code, err := m.Run(ctx, "vm-caps", "cat /proc/self/status", nil)
	if err != nil || code != 0 {
		t.Fatalf("Run: %d %v: %s", code, err, out)
	}
	for field, want := range map[string]string{"CapInh": "0000000000000000", "CapAmb": "0000000000000000", "CapPrm": wantBounding(), "CapEff": wantBounding(), "CapBnd": wantBounding()} {
		if got := statusField(out, field); got != want {
			t.Errorf("a machine's root: %s %s, want %s", field, got, want)
		}
	}
	out = mustSSH(t, ip, "pw", "mkdir -p /mnt; mount -t tmpfs none /mnt && echo mounted || echo refused")
	if !strings.Contains(out, "refused") {
		t.Errorf("mount -t tmpfs in the machine: %q, want it refused", out)
	}
}

// statusField is the value of field in a /proc/PID/status text.
func statusField(status, field string) string {
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
