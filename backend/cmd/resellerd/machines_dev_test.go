package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/machinestest"
)

// requireMachines is machinestest.Require.
func requireMachines(t *testing.T) { machinestest.Require(t) }

// machineWait bounds a machine's boot, its answer over SSH once booted, and its
// disappearance: long, because a loaded CI host boots slowly and the host may hold the
// neighbour (ARP) entry of a machine's previous boot until it expires.
const machineWait = 2 * time.Minute

// startDevMachines starts dev in-process under --machines sandbox on cidr, with its machines
// under a directory of the test's (returned) and builds without delays.
func startDevMachines(t *testing.T, cidr string, extra ...string) (*devAPI, string) {
	t.Helper()
	requireMachines(t)
	dir := filepath.Join(t.TempDir(), "machines")
	args := append([]string{"--deploy-delay", "0s", "--credentials-delay", "0s", "--machines", "sandbox",
		"--machines-cidr", cidr, "--machines-dir", dir}, extra...)
	return startDevInProcess(t, args...), dir
}

// loginOf is where and how instance id is logged into, as the API says once its credentials
// are delivered.
func (d *devAPI) loginOf(t *testing.T, id int64) (addr, password string) {
	t.Helper()
	deadline := time.Now().Add(machineWait)
	for time.Now().Before(deadline) {
		var in struct {
			Credentials *struct {
				IPv4     *string `json:"ipv4"`
				Password *string `json:"password"`
			} `json:"credentials"`
		}
		if d.poll(t, "/api/v1/instances/"+itoa(id), &in) && in.Credentials != nil && in.Credentials.IPv4 != nil && in.Credentials.Password != nil {
			return *in.Credentials.IPv4, *in.Credentials.Password
		}
		time.Sleep(pollEvery)
	}
	t.Fatalf("instance %d: no credentials within %s", id, machineWait)
	return "", ""
}

// sshMachine runs cmd on the machine at addr as root with password, trying again until it
// answers (a machine that has just booted) within machineWait.
func sshMachine(t *testing.T, addr, password, cmd string) string {
	t.Helper()
	var out string
	var err error
	for deadline := time.Now().Add(machineWait); time.Now().Before(deadline); time.Sleep(time.Second) {
		if out, err = machinestest.SSH(t.Context(), addr, 22, "root", password, cmd); err == nil {
			return out
		}
	}
	t.Fatalf("ssh root@%s %q: %v (output %q)", addr, cmd, err, out)
	return ""
}

// answersSSH reports whether an SSH server answers at addr (a wrong password refused is an
// answer), and what it answered.
func answersSSH(t *testing.T, addr string) (bool, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := machinestest.SSH(ctx, addr, 22, "root", "not-the-password", "true")
	return err == nil || strings.Contains(err.Error(), "unable to authenticate"), err
}

// wantNoSSH fails t when anything at addr answers SSH.
func wantNoSSH(t *testing.T, addr string) {
	t.Helper()
	if ok, err := answersSSH(t, addr); ok {
		t.Fatalf("ssh root@%s answered (%v); want nothing there", addr, err)
	}
}

// hostTraces are what this host holds of the machines a dev runs: the processes of their PID
// namespaces (PID and start time), their cgroup directories, the ports of their bridge (the host
// ends of their veths) and what is mounted under their directory.
type hostTraces struct {
	procs   []string // "PID start"
	cgroups []string
	links   []string
	mounts  []string
}

// tracesOf reads the traces of the machines dev runs under dir. A machine's PID 1 is a child of
// this test process (dev runs in it), in a PID namespace of its own, and in the cgroups of dir's
// Manager (reseller-BRIDGE/REF): the machines of the other dev servers this process runs for
// tests alongside are children of it too, and are not dir's (a reset leaves them running).
func tracesOf(t *testing.T, dir string) hostTraces {
	t.Helper()
	var tr hostTraces
	self, _ := os.Readlink("/proc/self/ns/pid")
	ours := "/reseller-" + bridgeOf(t, dir) + "/"
	namespaces := map[string]bool{}
	paths, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range paths {
		ns, err := os.Readlink(p + "/ns/pid")
		if err != nil || ns == self || parentOf(p) != os.Getpid() {
			continue
		}
		dirs := cgroupDirs(p)
		if !slices.ContainsFunc(dirs, func(d string) bool { return strings.Contains(d, ours) }) {
			continue
		}
		namespaces[ns] = true
		tr.cgroups = append(tr.cgroups, dirs...)
	}
	for _, p := range paths {
		if ns, err := os.Readlink(p + "/ns/pid"); err == nil && namespaces[ns] {
			if start := procStart(p); start != "" {
				tr.procs = append(tr.procs, filepath.Base(p)+" "+start)
			}
		}
	}
	ports, _ := os.ReadDir(filepath.Join("/sys/class/net", bridgeOf(t, dir), "brif"))
	for _, e := range ports {
		tr.links = append(tr.links, e.Name())
	}
	tr.mounts = mountsUnder(t, dir)
	return tr
}

// parentOf is the parent PID of the process at /proc/PID, 0 when it is gone.
func parentOf(proc string) int {
	status, err := os.ReadFile(proc + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// procStart is the start time of the process at /proc/PID (field 22 of its stat), "" when it
// is gone: with the PID it names the process across PID reuse.
func procStart(proc string) string {
	stat, err := os.ReadFile(proc + "/stat")
	if err != nil {
		return ""
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(fields) < 20 {
		return ""
	}
	return fields[19]
}

// cgroupDirs are the cgroup directories of the process at /proc/PID other than the root ones,
// on cgroup v1 (a hierarchy per controller under /sys/fs/cgroup) and v2 (/sys/fs/cgroup, or
// /sys/fs/cgroup/unified beside v1).
func cgroupDirs(proc string) []string {
	data, err := os.ReadFile(proc + "/cgroup")
	if err != nil {
		return nil
	}
	var dirs []string
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 || parts[2] == "/" {
			continue
		}
		hierarchies := []string{"", "unified"}
		if parts[1] != "" {
			hierarchies = strings.Split(strings.TrimPrefix(parts[1], "name="), ",")
		}
		for _, h := range hierarchies {
			if dir := filepath.Join("/sys/fs/cgroup", h, parts[2]); dirExists(dir) {
				dirs = append(dirs, dir)
			}
		}
	}
	return dirs
}

func dirExists(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// bridgeOf is the name of the bridge of the machines under dir, as package machines names it
// ("rsm" and the first 4 bytes of the SHA-256 of the directory's absolute path, hex).
func bridgeOf(t *testing.T, dir string) string {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(abs))
	return "rsm" + hex.EncodeToString(sum[:4])
}

// mountsUnder lists what is mounted under dir, from this process's mount table.
func mountsUnder(t *testing.T, dir string) []string {
	t.Helper()
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) > 4 && strings.HasPrefix(fields[4], dir+"/") {
			out = append(out, fields[4])
		}
	}
	return out
}

// wantGone fails t for every trace of before still on the host.
func wantGone(t *testing.T, before hostTraces, dir string) {
	t.Helper()
	for _, p := range before.procs {
		pid, start, _ := strings.Cut(p, " ")
		if procStart("/proc/"+pid) == start {
			t.Errorf("process %s of a machine is still running", pid)
		}
	}
	for _, c := range before.cgroups {
		if _, err := os.Stat(c); err == nil {
			t.Errorf("cgroup %s of a machine is still there", c)
		}
	}
	for _, l := range before.links {
		if _, err := os.Stat(filepath.Join("/sys/class/net", l)); err == nil {
			t.Errorf("link %s of a machine is still there", l)
		}
	}
	if m := mountsUnder(t, dir); len(m) > 0 {
		t.Errorf("still mounted under the machines' directory: %v", m)
	}
}

// diskDirs lists the machine directories (disks) under the machines' directory dir.
func diskDirs(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "machines"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// wantNoStaging fails t when the machines' directory dir holds anything but what a Manager keeps
// there (the disks and snapshots, the image, the host id and the lock): no disk set moved aside
// or staged by a reset or a restore is left.
func wantNoStaging(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch e.Name() {
		case "machines", "snapshots", "image", "host-id", "manager.lock":
		default:
			t.Errorf("left in the machines' directory: %s", e.Name())
		}
	}
}

// TestDevMachinesReset: under --machines sandbox, POST /_dev/reset removes every machine and
// answers once that is done: their addresses answer no SSH, and none of their processes,
// cgroups, veths, mounts or disks is left on the host; the API is empty, the key stays, and a
// new order's machine logs in over SSH at once.
func TestDevMachinesReset(t *testing.T) {
	t.Parallel()
	d, dir := startDevMachines(t, "198.19.51.0/24")
	var addrs []string
	for range 2 {
		_, id := d.deployed(t)
		addr, password := d.loginOf(t, id)
		if got := sshMachine(t, addr, password, "echo up"); got != "up\n" {
			t.Fatalf("machine %s answers %q", addr, got)
		}
		addrs = append(addrs, addr)
	}
	before := tracesOf(t, dir)
	if len(before.procs) < 2 || len(before.cgroups) < 2 || len(before.links) != 2 || len(before.mounts) < 2 || len(diskDirs(t, dir)) != 2 {
		t.Fatalf("before the reset: %+v, disks %v; want the traces of two machines", before, diskDirs(t, dir))
	}
	d.call(t, "POST", "/_dev/reset", "", "").want(t, 200, "")
	wantGone(t, before, dir)
	if disks := diskDirs(t, dir); len(disks) != 0 {
		t.Errorf("disks left after the reset: %v", disks)
	}
	wantNoStaging(t, dir)
	for _, addr := range addrs {
		wantNoSSH(t, addr)
	}
	var list []json.RawMessage
	d.call(t, "GET", "/api/v1/instances", d.key, "").want(t, 200, "").into(t, &list)
	if len(list) != 0 {
		t.Fatalf("%d instances after the reset, want none", len(list))
	}
	_, id := d.deployed(t) // the key printed at start still works
	addr, password := d.loginOf(t, id)
	if got := sshMachine(t, addr, password, "hostname >/dev/null && echo in"); got != "in\n" {
		t.Fatalf("the new machine answers %q", got)
	}
}
