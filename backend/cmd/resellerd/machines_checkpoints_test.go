package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// instanceAction posts action on instance id and wants it accepted.
func (d *devAPI) instanceAction(t *testing.T, id int64, action string) {
	t.Helper()
	d.call(t, "POST", "/api/v1/instances/"+itoa(id)+"/actions", d.key, `{"action": "`+action+`"}`).want(t, 200, "")
}

// waitStatus waits until instance id reads status, within machineWait.
func (d *devAPI) waitStatus(t *testing.T, id int64, status string) {
	t.Helper()
	deadline := time.Now().Add(machineWait)
	for time.Now().Before(deadline) {
		if d.instanceStatus(t, d.key, id) == status {
			return
		}
		time.Sleep(pollEvery)
	}
	t.Fatalf("instance %d is %q, not %q, after %s", id, d.instanceStatus(t, d.key, id), status, machineWait)
}

// waitNoSSH waits until nothing at addr answers SSH, within machineWait.
func waitNoSSH(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(machineWait)
	for time.Now().Before(deadline) {
		if ok, _ := answersSSH(t, addr); !ok {
			return
		}
		time.Sleep(time.Second)
	}
	wantNoSSH(t, addr)
}

// TestDevMachinesCheckpoint: under --machines sandbox a checkpoint holds the database and every
// machine's disk of one moment. A file written just before the save is restored, one written
// after is gone; a machine deleted after the save is back, at its address, with its password,
// online; a machine powered off at the save is off again; the disks left on the host are the
// checkpoint's machines', no more. The checkpoint's size counts its disks.
func TestDevMachinesCheckpoint(t *testing.T) {
	// Not t.Parallel, nor are the other checkpoint tests here: run beside the package's other
	// machine tests, this one's checkpoint once answered 500 (cause not yet found; dev's errors
	// now reach the test log, see startDevInProcess).
	d, dir := startDevMachines(t, "198.19.52.0/24")
	type server struct {
		id             int64
		addr, password string
	}
	var s [3]server
	for i := range s {
		_, s[i].id = d.deployed(t)
		s[i].addr, s[i].password = d.loginOf(t, s[i].id)
		sshMachine(t, s[i].addr, s[i].password, "true")
	}
	d.instanceAction(t, s[2].id, "power_off")
	d.waitStatus(t, s[2].id, "offline")
	sshMachine(t, s[0].addr, s[0].password, "echo A > /root/a")

	var saved checkpointEntry
	d.call(t, "POST", "/_dev/checkpoints", "", `{"name": "machines"}`).want(t, 200, "").into(t, &saved)
	if saved.SizeBytes < 1<<20 {
		t.Errorf("the checkpoint takes %d bytes; want its disks counted (more than a MiB)", saved.SizeBytes)
	}
	// The service goes on after the save: the machines answer again.
	sshMachine(t, s[0].addr, s[0].password, "echo B > /root/b")
	d.call(t, "DELETE", "/api/v1/instances/"+itoa(s[1].id), d.key, "").want(t, 200, "")
	waitNoSSH(t, s[1].addr)
	d.instanceAction(t, s[2].id, "power_on")
	d.waitStatus(t, s[2].id, "online")

	d.call(t, "POST", "/_dev/checkpoints/machines/restore", "", "").want(t, 200, "")
	if got := sshMachine(t, s[0].addr, s[0].password, "cat /root/a; test -e /root/b && echo B is there; true"); got != "A\n" {
		t.Errorf("machine 1 after the restore: %q; want A only", got)
	}
	if got := sshMachine(t, s[1].addr, s[1].password, "echo back"); got != "back\n" {
		t.Errorf("the deleted machine after the restore: %q", got)
	}
	if st := d.instanceStatus(t, d.key, s[1].id); st != "online" {
		t.Errorf("the deleted server after the restore is %q, want online", st)
	}
	if st := d.instanceStatus(t, d.key, s[2].id); st != "offline" {
		t.Errorf("the server off at the save is %q after the restore, want offline", st)
	}
	wantNoSSH(t, s[2].addr)
	if disks := diskDirs(t, dir); !slices.Equal(disks, []string{"vm-1", "vm-2", "vm-3"}) {
		t.Errorf("disks after the restore: %v, want the checkpoint's three", disks)
	}
	wantNoStaging(t, dir)
}

// TestDevMachinesCheckpointLimitCountsDisks: --max-checkpoint-bytes counts the machines' disks:
// a limit a database alone stays under refuses a checkpoint of a machine, and removes its copy.
func TestDevMachinesCheckpointLimitCountsDisks(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where dev keeps its checkpoints
	d, _ := startDevMachines(t, "198.19.53.0/24", "--max-checkpoint-bytes", "4194304")
	d.call(t, "POST", "/_dev/checkpoints", "", `{"name": "empty"}`).want(t, 200, "")
	_, id := d.deployed(t)
	addr, password := d.loginOf(t, id)
	sshMachine(t, addr, password, "dd if=/dev/urandom of=/root/blob bs=1M count=6 2>/dev/null")
	d.call(t, "POST", "/_dev/checkpoints", "", `{"name": "with-machine"}`).want(t, 409, "checkpoint_limit")
	left, _ := filepath.Glob(filepath.Join(tmp, "resellerd-dev-*", "checkpoints", "with-machine*"))
	if len(left) != 0 {
		t.Fatalf("the refused checkpoint left %v", left)
	}
	sshMachine(t, addr, password, "true") // the machine runs again after the refused save
}

// machineRows reads the refs of the machine rows the database at db holds that are created,
// and those of them that are online.
func machineRows(t *testing.T, db string) (created, online []string) {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.Query(`SELECT ref, power FROM machines WHERE created = 1 ORDER BY ref`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var ref, power string
		if err := rows.Scan(&ref, &power); err != nil {
			t.Fatal(err)
		}
		created = append(created, ref)
		if power == "online" {
			online = append(online, ref)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return created, online
}

// specDirs lists the machines under the machines' directory dir that have a disk and a spec.
func specDirs(t *testing.T, dir string) []string {
	t.Helper()
	var refs []string
	for _, name := range diskDirs(t, dir) {
		if _, err := os.Stat(filepath.Join(dir, "machines", name, "spec.json")); err == nil {
			refs = append(refs, name)
		}
	}
	slices.Sort(refs)
	return refs
}

// TestDevMachinesRestoreUnderLoad: a restore while orders are being built leaves every machine
// row with its machine and every machine with its row, the machines running being those online;
// orders placed after it (whose machine refs the dropped builds had taken) build machines that
// log in.
func TestDevMachinesRestoreUnderLoad(t *testing.T) {
	db := filepath.Join(t.TempDir(), "dev.db")
	// Builds take a second, so the restores find them in flight.
	d, dir := startDevMachines(t, "198.19.54.0/24", "--db", db, "--deploy-delay", "1s")
	d.deployed(t)
	d.call(t, "POST", "/_dev/checkpoints", "", `{"name": "one"}`).want(t, 200, "")
	for round := range 2 {
		for range 3 {
			d.call(t, "POST", "/api/v1/instances", d.key, `{"server_id": 101, "template_id": 1, "term": "hourly"}`).want(t, 201, "")
		}
		var orders []struct {
			Status string `json:"status"`
		}
		d.call(t, "GET", "/api/v1/orders", d.key, "").want(t, 200, "").into(t, &orders)
		if !slices.ContainsFunc(orders, func(o struct {
			Status string `json:"status"`
		}) bool {
			return o.Status == "pending"
		}) {
			t.Fatalf("round %d: no order in flight before the restore: %+v", round, orders)
		}
		d.call(t, "POST", "/_dev/checkpoints/one/restore", "", "").want(t, 200, "")
		created, online := machineRows(t, db)
		if disks := specDirs(t, dir); !slices.Equal(created, disks) || !slices.Equal(created, []string{"vm-1"}) {
			t.Fatalf("round %d: machine rows %v, disks %v; want the checkpoint's vm-1 in both", round, created, disks)
		}
		if running := tracesOf(t, dir); len(online) != 1 || len(running.links) != len(online) {
			t.Fatalf("round %d: %d machines plugged in, %d online rows", round, len(running.links), len(online))
		}
	}
	_, id := d.deployed(t)
	addr, password := d.loginOf(t, id)
	if got := sshMachine(t, addr, password, "echo new"); got != "new\n" {
		t.Fatalf("the machine ordered after the restores answers %q", got)
	}
	created, _ := machineRows(t, db)
	if disks := specDirs(t, dir); !slices.Equal(created, disks) || len(created) != 2 {
		t.Fatalf("machine rows %v, disks %v; want the same two", created, disks)
	}
}

// TestDevMachinesStateAcrossRestart: `dev --state FILE --machines sandbox` writes the machines'
// disks to FILE.machines/ on SIGTERM, beside the database, and a second dev on FILE (its
// machines' directory a new temporary one) boots them from there: the same key, the machine at
// its address with its password and the file written before the exit, the one powered off
// still off. Nothing of the machines is left in the first run's TMPDIR.
func TestDevMachinesStateAcrossRestart(t *testing.T) {
	requireMachines(t)
	bin := buildResellerd(t)
	state := filepath.Join(t.TempDir(), "reseller.state")
	args := []string{"--state", state, "--deploy-delay", "0s", "--credentials-delay", "0s", "--machines", "sandbox",
		"--machines-cidr", "198.19.55.0/24"}
	p := startDev(t, bin, args...)
	d := &devAPI{base: strings.TrimSuffix(p.env["RESELLER_ENDPOINT"], "/api/v1"), key: p.env["RESELLER_API_KEY"]}
	_, on := d.deployed(t)
	_, off := d.deployed(t)
	addr, password := d.loginOf(t, on)
	offAddr, _ := d.loginOf(t, off)
	sshMachine(t, addr, password, "echo kept > /root/kept")
	d.instanceAction(t, off, "power_off")
	d.waitStatus(t, off, "offline")
	p.terminate(t)
	if left, _ := os.ReadDir(p.tmp); len(left) != 0 {
		t.Fatalf("dev left %d entries in TMPDIR (its database and machines), first %q", len(left), left[0].Name())
	}
	if refs := specDirs(t, state+".machines"); !slices.Equal(refs, []string{"vm-1", "vm-2"}) {
		t.Fatalf("%s.machines holds %v, want both machines", state, refs)
	}
	wantNoSSH(t, addr)

	p2 := startDev(t, bin, args...)
	if p2.env["RESELLER_API_KEY"] != d.key {
		t.Fatalf("second run printed key %q, want the first run's", p2.env["RESELLER_API_KEY"])
	}
	d2 := &devAPI{base: strings.TrimSuffix(p2.env["RESELLER_ENDPOINT"], "/api/v1"), key: d.key}
	if got := sshMachine(t, addr, password, "cat /root/kept"); got != "kept\n" {
		t.Fatalf("the machine after the restart: %q", got)
	}
	if st := d2.instanceStatus(t, d.key, off); st != "offline" {
		t.Fatalf("the server off at the exit is %q after the restart, want offline", st)
	}
	wantNoSSH(t, offAddr)
	p2.terminate(t)
}

// TestDevMachinesDBAcrossRestart: `dev --db FILE --machines sandbox` keeps its machines beside
// FILE (FILE.machines/), so dev started again on the file prints the same key and boots the
// machines its servers are, with their files.
func TestDevMachinesDBAcrossRestart(t *testing.T) {
	requireMachines(t)
	db := filepath.Join(t.TempDir(), "dev.db")
	args := []string{"--db", db, "--deploy-delay", "0s", "--credentials-delay", "0s", "--machines", "sandbox",
		"--machines-cidr", "198.19.56.0/24"}
	var key, addr, password string
	t.Run("first run", func(t *testing.T) {
		d := startDevInProcess(t, args...)
		_, id := d.deployed(t)
		key = d.key
		addr, password = d.loginOf(t, id)
		sshMachine(t, addr, password, "echo kept > /root/kept")
	})
	if refs := specDirs(t, db+".machines"); !slices.Equal(refs, []string{"vm-1"}) {
		t.Fatalf("%s.machines holds %v, want the machine", db, refs)
	}
	d := startDevInProcess(t, args...)
	if d.key != key {
		t.Fatalf("the second run printed another key")
	}
	if got := sshMachine(t, addr, password, "cat /root/kept"); got != "kept\n" {
		t.Fatalf("the machine after the restart: %q", got)
	}
}
