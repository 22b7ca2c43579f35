package resellerd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestMachineOnItsReplica: two replicas on one PostgreSQL database, each with its own
// machines directory and range. A server ordered through replica a runs on a; power_off
// through replica b reaches it there (through the database and a's reconciler), and so does
// power_on.
func TestMachineOnItsReplica(t *testing.T) {
	t.Parallel()
	requireMachines(t)
	db := pg.Database(t)
	a := openEnv(t, sandboxConfig(db, t.TempDir(), "198.19.20.0/24"))
	b := openEnv(t, sandboxConfig(db, t.TempDir(), "198.19.21.0/24"))
	acct, err := a.srv.CreateAccount(context.Background(), NewAccount{BalanceMicros: 100_000_000, ServerLimit: 10, OrderLimit: 10})
	if err != nil {
		t.Fatal(err)
	}
	onA, onB := life{e: a, key: acct.APIKey}, life{e: b, key: acct.APIKey}
	in := onA.deploy(t, `{"server_id": 102, "template_id": 1, "term": "hourly"}`)
	addr, password := login(t, onB.instance(t, in.ID))
	if got := addr[:len("198.19.20.")]; got != "198.19.20." {
		t.Fatalf("address %s is not in replica a's range", addr)
	}
	mustSSH(t, addr, password, "echo kept > /root/f")

	onB.act(t, in.ID, `{"action": "power_off"}`)
	eventually(t, machineWait, "power_off through b stops the machine on a", func() bool {
		_, err := sshRun(addr, password, "true")
		return err != nil
	})
	wantRefused(t, addr, password, true)

	onB.act(t, in.ID, `{"action": "power_on"}`)
	eventually(t, afterBoot, "power_on through b boots it on a", func() bool {
		_, err := sshRun(addr, password, `[ "$(cat /root/f)" = kept ]`)
		return err == nil
	})
	if a.srv.MachinesHost() == b.srv.MachinesHost() {
		t.Fatal("the two replicas have one host id")
	}
}

// TestWindowsStaysSimulatedUnderSandbox: a Windows server under --machines sandbox is the
// simulator's (RDP credentials on 3389) and has no machine.
func TestWindowsStaysSimulatedUnderSandbox(t *testing.T) {
	requireMachines(t)
	dir := t.TempDir()
	e := openEnv(t, sandboxConfig(pg.TestDB(t), dir, "198.19.30.0/24"))
	acct, err := e.srv.CreateAccount(context.Background(), NewAccount{BalanceMicros: 100_000_000, ServerLimit: 10, OrderLimit: 10})
	if err != nil {
		t.Fatal(err)
	}
	l := life{e: e, key: acct.APIKey}
	in := l.deploy(t, `{"server_id": 102, "template_id": 5, "term": "hourly"}`)
	c := in.Credentials
	if c == nil || c.Port == nil || *c.Port != 3389 || c.Username == nil || *c.Username != "Administrator" {
		t.Fatalf("credentials %+v; want Administrator on 3389", c)
	}
	ref := fmt.Sprintf("vm-%d", in.OrderID)
	if _, err := os.Stat(filepath.Join(dir, "machines", ref)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a Windows server has a machine directory (%v)", err)
	}
	l.act(t, in.ID, `{"action": "reboot"}`) // the simulator's, as with --machines sim
}

// TestMachinesAcrossRestarts: Close stops every machine (SSH refused, no process left, disk
// kept); the next backend on the same database and directory boots those the database says
// are online, from their disks, and leaves the others off.
func TestMachinesAcrossRestarts(t *testing.T) {
	t.Parallel()
	requireMachines(t)
	db, dir := pg.TestDB(t), t.TempDir()
	cfg := sandboxConfig(db, dir, "198.19.40.0/24")
	first := openEnv(t, cfg)
	acct, err := first.srv.CreateAccount(context.Background(), NewAccount{BalanceMicros: 100_000_000, ServerLimit: 10, OrderLimit: 10})
	if err != nil {
		t.Fatal(err)
	}
	l := life{e: first, key: acct.APIKey}
	on := l.deploy(t, `{"server_id": 102, "template_id": 1, "term": "hourly"}`)
	off := l.deploy(t, `{"server_id": 102, "template_id": 1, "term": "hourly"}`)
	onAddr, onPassword := login(t, on)
	offAddr, offPassword := login(t, off)
	mustSSH(t, onAddr, onPassword, "echo kept > /root/f")
	l.act(t, off.ID, `{"action": "power_off"}`)
	first.http.Close()
	if err := first.srv.Close(); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, onAddr, onPassword, true)
	for _, id := range []int64{on.OrderID, off.OrderID} {
		machineDir := filepath.Join(dir, "machines", fmt.Sprintf("vm-%d", id))
		if _, err := os.Stat(machineDir); err != nil {
			t.Fatalf("the disk of vm-%d is gone after Close: %v", id, err)
		}
		if pids := processesOf(machineDir); len(pids) > 0 {
			t.Fatalf("processes %v of vm-%d are left after Close", pids, id)
		}
	}

	cfg.Clock = NewManualClock(testStart)
	openEnv(t, cfg)
	bootedSSH(t, onAddr, onPassword, `[ "$(cat /root/f)" = kept ]`)
	wantRefused(t, offAddr, offPassword, true)
}
