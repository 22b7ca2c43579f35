package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// Machines: a machine is stored once (a second add returns the first), updated under its
// lock without moving host, listed by host, and forgotten; images finish and go.
func (suite) Machines(t *testing.T, s store.Store) {
	ctx := context.Background()
	first := store.Machine{Ref: "vm-1", Host: "host-a", CIDR: "198.18.0.0/16", IPv4: "198.18.0.2", Password: "pw-one",
		Hostname: "web1", Template: "Ubuntu 24.04", CPUs: 2, MemoryMB: 2048, DiskGB: 50, Power: "online"}
	got, err := s.AddMachine(ctx, first)
	if err != nil || !reflect.DeepEqual(got, first) {
		t.Fatalf("AddMachine = %+v, %v; want %+v", got, err, first)
	}
	again := first
	again.Host, again.Password = "host-b", "pw-two"
	if got, err := s.AddMachine(ctx, again); err != nil || !reflect.DeepEqual(got, first) {
		t.Fatalf("second AddMachine = %+v, %v; want the first %+v", got, err, first)
	}
	if _, err := s.AddMachine(ctx, store.Machine{Ref: "vm-2", Host: "host-b", Power: "offline"}); err != nil {
		t.Fatal(err)
	}
	err = s.UpdateMachine(ctx, "vm-1", func(m *store.Machine) {
		m.Power, m.Created, m.IPv4, m.Host, m.DiskGB = "offline", true, "198.18.128.1", "host-b", 160
		m.Traffic = store.TrafficCount{Bytes: 5_000_000_000_123, Link: 4242, Counter: 3_000_000_000}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := first
	want.Power, want.Created, want.IPv4, want.DiskGB = "offline", true, "198.18.128.1", 160
	want.Traffic = store.TrafficCount{Bytes: 5_000_000_000_123, Link: 4242, Counter: 3_000_000_000}
	if got, err := s.Machine(ctx, "vm-1"); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("after update = %+v, %v; want %+v (host unchanged)", got, err, want)
	}
	if list, err := s.HostMachines(ctx, "host-a"); err != nil || len(list) != 1 || list[0].Ref != "vm-1" {
		t.Fatalf("HostMachines(host-a) = %+v, %v; want vm-1 alone", list, err)
	}
	if err := s.UpdateMachine(ctx, "vm-9", func(*store.Machine) {}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("update of an unknown machine = %v, want ErrNotFound", err)
	}
	if err := s.DeleteMachine(ctx, "vm-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Machine(ctx, "vm-1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted machine: %v, want ErrNotFound", err)
	}
	testMachineImages(t, s)
}

func testMachineImages(t *testing.T, s store.Store) {
	ctx := context.Background()
	img := store.MachineImage{Image: "img-7", SnapshotID: 7, Ref: "vm-2", Host: "host-b"}
	if got, err := s.AddMachineImage(ctx, img); err != nil || got != img {
		t.Fatalf("AddMachineImage = %+v, %v", got, err)
	}
	if err := s.FinishMachineImage(ctx, "img-7", false, 12345); err != nil {
		t.Fatal(err)
	}
	img.Done, img.SizeBytes = true, 12345
	if got, err := s.SnapshotMachineImage(ctx, 7); err != nil || got != img {
		t.Fatalf("SnapshotMachineImage = %+v, %v; want %+v", got, err, img)
	}
	if err := s.DeleteMachineImage(ctx, "img-7"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.MachineImage(ctx, "img-7"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted image: %v, want ErrNotFound", err)
	}
}

// MachineOps: a host reads its pending ops in the order asked (of one machine when asked),
// an op added twice is one, a finished op leaves the pending list and keeps its result.
func (suite) MachineOps(t *testing.T, s store.Store) {
	ctx := context.Background()
	ops := []store.MachineOp{
		{ID: "op-b", Host: "host-a", Ref: "vm-1", Kind: "power_off"},
		{ID: "op-a", Host: "host-a", Ref: "vm-2", Kind: "set_password", Args: map[string]string{"password": "secret"}, Wait: true},
		{ID: "op-c", Host: "host-b", Ref: "vm-3", Kind: "delete"},
		{ID: "op-d", Host: "host-a", Ref: "vm-1", Kind: "power_on"},
	}
	for _, op := range ops {
		if added, err := s.AddMachineOp(ctx, op); err != nil || !added {
			t.Fatalf("AddMachineOp(%s) = %v, %v", op.ID, added, err)
		}
	}
	if added, err := s.AddMachineOp(ctx, ops[0]); err != nil || added {
		t.Fatalf("second AddMachineOp = %v, %v; want not added", added, err)
	}
	pending, err := s.PendingMachineOps(ctx, "host-a", "", 10)
	if err != nil || opIDs(pending) != "op-b op-a op-d" {
		t.Fatalf("pending of host-a = %q, %v; want op-b op-a op-d (the order asked)", opIDs(pending), err)
	}
	if pending[1].Args["password"] != "secret" || !pending[1].Wait || pending[1].Status != store.MachineOpPending {
		t.Fatalf("op-a read back as %+v", pending[1])
	}
	if of, err := s.PendingMachineOps(ctx, "host-a", "vm-1", 1); err != nil || opIDs(of) != "op-b" {
		t.Fatalf("first pending op of vm-1 = %q, %v; want op-b", opIDs(of), err)
	}
	if err := s.FinishMachineOp(ctx, "op-a", store.MachineOpDone, "true", 3); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishMachineOp(ctx, "op-a", store.MachineOpFailed, "", 0); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("finishing a finished op = %v, want ErrNotFound", err)
	}
	if err := s.DeleteMachineOp(ctx, "op-b"); err != nil {
		t.Fatal(err)
	}
	if pending, err := s.PendingMachineOps(ctx, "host-a", "", 10); err != nil || opIDs(pending) != "op-d" {
		t.Fatalf("pending of host-a after finish and delete = %q, %v; want op-d", opIDs(pending), err)
	}
	op, err := s.MachineOp(ctx, "op-a")
	if err != nil || op.Status != store.MachineOpDone || op.Result != "true" || op.Exit != 3 {
		t.Fatalf("finished op = %+v, %v", op, err)
	}
}

func opIDs(ops []store.MachineOp) string {
	out := ""
	for i, op := range ops {
		if i > 0 {
			out += " "
		}
		out += op.ID
	}
	return out
}
