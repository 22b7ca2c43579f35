package machines

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestInNetnsGivesItsThreadBack: the thread inNetns runs on goes back to the host's network
// namespace and lives on. Were it discarded, any child another part of the process had forked
// from it with Pdeathsig would be killed (Terraform, started so by terraform-exec in tests that
// run resellerd in-process: their applies died with "signal: killed").
func TestInNetnsGivesItsThreadBack(t *testing.T) {
	requireRoot(t)
	other := exec.Command("unshare", "--net", "sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Process.Kill(); _ = other.Wait() }()
	otherNS := waitForNetns(t, other.Process.Pid)
	hostNS, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	var tid int
	var inside string
	if err := inNetns(other.Process.Pid, func() error {
		tid = unix.Gettid()
		inside, err = os.Readlink("/proc/thread-self/ns/net")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if inside != otherNS {
		t.Fatalf("fn ran in %s, want the other namespace %s", inside, otherNS)
	}
	time.Sleep(200 * time.Millisecond) // a discarded thread has ended by now
	task := "/proc/self/task/" + strconv.Itoa(tid)
	ns, err := os.Readlink(task + "/ns/net")
	if err != nil {
		t.Fatalf("the thread inNetns ran on is gone (%v): it was discarded", err)
	}
	if ns != hostNS {
		t.Fatalf("the thread is back in %s, want the host's %s", ns, hostNS)
	}
}

// waitForNetns is the network namespace of pid once it is not the host's (unshare has run).
func waitForNetns(t *testing.T, pid int) string {
	t.Helper()
	host, _ := os.Readlink("/proc/self/ns/net")
	for deadline := time.Now().Add(eventWait); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if ns, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/net"); err == nil && ns != host {
			return ns
		}
	}
	t.Fatal("the other process never left the host's network namespace")
	return ""
}
