package machines

import (
	"bufio"
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMachinesDieWithTheirManagersProcess kills (SIGKILL, no Close) a process that runs a
// machine: the machine's processes go with it (two ways: PID 1's Pdeathsig, and the agent
// shutting the machine down when its control channel closes; the test fails only without
// both), and a new Manager on the same Dir cleans the bridge, chains and port filters it left
// and boots the machine from its disk.
func TestMachinesDieWithTheirManagersProcess(t *testing.T) {
	requireRoot(t)
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperManagerProcess$")
	cmd.Env = append(os.Environ(), "RESELLER_TEST_MACHINES_DIR="+dir)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the helper process: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "machine-pid ")))
	if err != nil {
		t.Fatalf("the helper process said %q", line)
	}
	pidNS, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid))
	if err != nil {
		t.Fatal(err)
	}
	procs := processesIn(t, pidNS)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	deadline := time.Now().Add(eventWait)
	for !t.Failed() {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the machine's PID 1 (%d) outlived its Manager's process", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	assertExited(t, procs)
	ports := (&network{bridge: bridgeName(dir)}).portTablePrefix()
	if len(tablesWithPrefix(t, ports)) == 0 {
		t.Fatal("the killed Manager left no port filter: nothing to clean")
	}
	m := newManagerAt(t, helperOptions(dir))
	if left := tablesWithPrefix(t, ports); len(left) != 0 {
		t.Fatalf("port filters the killed Manager left are still there: %v", left)
	}
	if err := m.Start(context.Background(), "vm-h"); err != nil {
		t.Fatal(err)
	}
	mustSSH(t, netip.MustParseAddr("198.18.214.10"), "pw", "true")
}

func helperOptions(dir string) Options {
	return Options{Dir: dir, CIDR: netip.MustParsePrefix("198.18.214.0/24")}
}

// TestHelperManagerProcess is the process TestMachinesDieWithTheirManagersProcess kills: it
// boots a machine, prints its PID 1 and waits to be killed.
func TestHelperManagerProcess(t *testing.T) {
	dir := os.Getenv("RESELLER_TEST_MACHINES_DIR")
	if dir == "" {
		t.Skip("a helper process of TestMachinesDieWithTheirManagersProcess")
	}
	m, err := New(context.Background(), helperOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	ip := netip.MustParseAddr("198.18.214.10")
	if err := m.Create(context.Background(), Spec{Ref: "vm-h", Hostname: "h", Template: "t", IPv4: ip, Password: "pw"}, ""); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("machine-pid %d\n", m.machines["vm-h"].run.pid)
	time.Sleep(time.Minute)
}
