package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/machines"
	"github.com/reseller/terraform-provider-reseller/backend/internal/sim"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
)

// fakeMachine is what fakeMachines keeps of a machine.
type fakeMachine struct {
	spec    machines.Spec
	running bool
	from    string
	limits  machines.Limits
	scripts []string
	traffic machines.Traffic // its interface's counters while it runs
}

// fakeMachines is a machine runtime in memory, for the sandbox's own logic without root.
type fakeMachines struct {
	mu       sync.Mutex
	machines map[string]*fakeMachine
	images   map[string]bool
	creates  int           // Create calls
	gate     chan struct{} // when set, Create waits until it is closed
	failing  int           // the next Create calls that fail

	failingDeletes int // the next Delete calls that fail

	hung     map[string]bool // machines whose Run hangs until its ctx ends, as a script that never ends
	hungRuns int             // the Runs that hung so far

	startGates map[string]chan struct{} // machines whose Start waits until their channel is closed
}

func newFake() *fakeMachines {
	return &fakeMachines{machines: map[string]*fakeMachine{}, images: map[string]bool{}}
}

func (f *fakeMachines) with(ref string, fn func(m *fakeMachine) error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, ok := f.machines[ref]
	if !ok {
		return machines.ErrNotFound
	}
	return fn(m)
}

func (f *fakeMachines) get(ref string) (fakeMachine, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, ok := f.machines[ref]
	if !ok {
		return fakeMachine{}, false
	}
	return *m, true
}

func (f *fakeMachines) Create(_ context.Context, s machines.Spec, from string) error {
	f.mu.Lock()
	gate := f.gate
	f.mu.Unlock()
	if gate != nil {
		<-gate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.creates++
	if f.failing > 0 {
		f.failing--
		return errors.New("fake: create failed")
	}
	if _, ok := f.machines[s.Ref]; !ok {
		f.machines[s.Ref] = &fakeMachine{spec: s, running: true, from: from, limits: s.Limits}
	}
	return nil
}

func (f *fakeMachines) Start(_ context.Context, ref string) error {
	f.mu.Lock()
	gate := f.startGates[ref]
	f.mu.Unlock()
	if gate != nil {
		<-gate
	}
	return f.with(ref, func(m *fakeMachine) error { m.running = true; return nil })
}

func (f *fakeMachines) Stop(_ context.Context, ref string) error {
	return f.with(ref, func(m *fakeMachine) error { m.running = false; return nil })
}

func (f *fakeMachines) Traffic(ref string) (machines.Traffic, bool, error) {
	var t machines.Traffic
	var ok bool
	err := f.with(ref, func(m *fakeMachine) error { t, ok = m.traffic, m.running; return nil })
	if errors.Is(err, machines.ErrNotFound) {
		return machines.Traffic{}, false, nil
	}
	return t, ok, err
}

func (f *fakeMachines) Reboot(ctx context.Context, ref string) error { return f.Start(ctx, ref) }

func (f *fakeMachines) Rebuild(_ context.Context, ref, template, password string) error {
	return f.with(ref, func(m *fakeMachine) error {
		m.spec.Template, m.spec.Password, m.running = template, password, true
		return nil
	})
}

func (f *fakeMachines) SetPassword(_ context.Context, ref, password string) error {
	return f.with(ref, func(m *fakeMachine) error { m.spec.Password = password; return nil })
}

func (f *fakeMachines) CheckPassword(_ context.Context, ref, password string) (bool, error) {
	var ok bool
	err := f.with(ref, func(m *fakeMachine) error { ok = m.spec.Password == password; return nil })
	return ok, err
}

func (f *fakeMachines) SetAddress(_ context.Context, ref string, ip netip.Addr) error {
	return f.with(ref, func(m *fakeMachine) error { m.spec.IPv4 = ip; return nil })
}

func (f *fakeMachines) SetLimits(_ context.Context, ref string, l machines.Limits) error {
	return f.with(ref, func(m *fakeMachine) error { m.limits = l; return nil })
}

func (f *fakeMachines) Snapshot(_ context.Context, ref, image string) (int64, error) {
	err := f.with(ref, func(*fakeMachine) error { f.images[image] = true; return nil })
	return 3<<30 + 1, err
}

func (f *fakeMachines) Restore(_ context.Context, ref, image string) error {
	return f.with(ref, func(m *fakeMachine) error {
		if !f.images[image] {
			return machines.ErrNotFound
		}
		m.running = false
		return nil
	})
}

func (f *fakeMachines) DeleteSnapshot(_ context.Context, image string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.images, image)
	return nil
}

func (f *fakeMachines) Delete(_ context.Context, ref string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failingDeletes > 0 {
		f.failingDeletes--
		return errors.New("fake: delete failed")
	}
	delete(f.machines, ref)
	return nil
}

func (f *fakeMachines) Run(ctx context.Context, ref, script string, _ map[string]string) (string, int, error) {
	f.mu.Lock()
	hung := f.hung[ref]
	if hung {
		f.hungRuns++
	}
	f.mu.Unlock()
	if hung {
		<-ctx.Done()
		return "", -1, ctx.Err()
	}
	err := f.with(ref, func(m *fakeMachine) error {
		if !m.running {
			return errors.New("not running")
		}
		m.scripts = append(m.scripts, script)
		return nil
	})
	return "ran\n", 0, err
}

// Console has no terminal to give in these tests: the console's tests use real machines.
func (f *fakeMachines) Console(_ context.Context, ref string, _, _ int) (*machines.Terminal, error) {
	return nil, fmt.Errorf("fake machine %s has no console", ref)
}

func (f *fakeMachines) Close(context.Context) error { return nil }

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

// replicas are two sandbox datacenters, hosts a and b, on one database, each with its own
// machine runtime and range, their reconcilers running until the test ends.
func replicas(t *testing.T) (a, b *Datacenter, fa, fb *fakeMachines) {
	t.Helper()
	return replicasOver(t, func(s State) State { return s })
}

// replicasOver is replicas with the state both read through wrap's.
func replicasOver(t *testing.T, wrap func(State) State) (a, b *Datacenter, fa, fb *fakeMachines) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "sandbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		_ = st.Close()
	})
	s := sim.New(sim.Options{Clock: fixedClock{time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}, State: st})
	open := func(host, cidr string) (*Datacenter, *fakeMachines) {
		f := newFake()
		d, err := New(Options{Sim: s, State: wrap(st), GivenUp: neverGivenUp, Machines: f, Catalog: catalog.New(), Host: host,
			CIDR: netip.MustParsePrefix(cidr), LookEvery: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.Run(ctx)
		}()
		return d, f
	}
	a, fa = open("host-a", "198.18.0.0/16")
	b, fb = open("host-b", "10.99.0.0/24")
	return a, b, fa, fb
}

// eventWait bounds a test's wait for something to happen. It only keeps a broken test from
// hanging: a loaded CI host is many times slower than an idle one, and the tests assert no
// speed.
const eventWait = time.Minute

// pollDone polls ticket through d until its build is done, for eventWait at most.
func pollDone(t *testing.T, d *Datacenter, ticket string) datacenter.Build {
	t.Helper()
	for deadline := time.Now().Add(eventWait); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, err := d.Poll(context.Background(), ticket)
		if err != nil {
			t.Fatalf("Poll %s: %v", ticket, err)
		}
		if b.Done {
			return b
		}
	}
	t.Fatalf("build %s: not done within %s", ticket, eventWait)
	return datacenter.Build{}
}

// neverGivenUp is Options.GivenUp for tests that give up no build: their machines stay.
func neverGivenUp(context.Context, string) (bool, error) { return false, nil }

// eventually fails t unless cond holds within eventWait.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(eventWait); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("%s: not within %s", what, eventWait)
}

// TestMachineOnItsHost: a machine is built on the replica that built it, with the address and
// password the API hands out; every call through the other replica reaches it there.
func TestMachineOnItsHost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, fa, fb := replicas(t)
	ticket, err := a.Build(ctx, datacenter.BuildSpec{OrderID: 7, DatacenterID: 1, PlanID: 102, TemplateID: 1, OSType: "linux", Hostname: "web7"})
	if err != nil {
		t.Fatal(err)
	}
	built := pollDone(t, b, ticket) // polled by the other replica: built on a
	m, ok := fa.get("vm-7")
	if !ok {
		t.Fatal("the machine is not on host a, which built it")
	}
	if _, onB := fb.get("vm-7"); onB {
		t.Fatal("the machine is on host b too")
	}
	want := machines.Spec{Ref: "vm-7", Hostname: "web7", Template: "Ubuntu 24.04", IPv4: netip.MustParseAddr("198.18.0.8"),
		Username: "root", Password: built.Machine.Password, Limits: machines.Limits{CPUs: 2, MemoryMB: 2048, DiskGB: 50}}
	if m.spec != want || built.Machine.IPv4 != "198.18.0.8" || built.Machine.Port != 22 {
		t.Fatalf("machine %+v, build %+v; want %+v at 198.18.0.8:22", m.spec, built.Machine, want)
	}
	again, err := a.Poll(ctx, ticket)
	if err != nil || again.Machine.Password != built.Machine.Password {
		t.Fatalf("a second poll answers password %q, want the first %q (%v)", again.Machine.Password, built.Machine.Password, err)
	}

	if _, err := b.Power(ctx, "vm-7", datacenter.PowerOff); err != nil {
		t.Fatal(err)
	}
	eventually(t, "power_off through b stops the machine on a", func() bool { m, _ := fa.get("vm-7"); return !m.running })

	pw, err := b.ResetPassword(ctx, "vm-7")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "reset_password through b", func() bool { ok, _ := a.CheckPassword(ctx, "vm-7", pw); return ok })
	if ok, err := b.CheckPassword(ctx, "vm-7", built.Machine.Password); err != nil || ok {
		t.Fatalf("the old password through b: %v, %v; want refused", ok, err)
	}

	change, err := b.ChangeIP(ctx, "vm-7", 1, false)
	if err != nil || change.IPv4 != "198.18.128.0" {
		t.Fatalf("ChangeIP = %+v, %v; want 198.18.128.0, the first of the upper half of a's range", change, err)
	}
	eventually(t, "change_ip through b", func() bool { m, _ := fa.get("vm-7"); return m.spec.IPv4.String() == change.IPv4 })

	if _, err := b.Resize(ctx, "vm-7", 103); err != nil {
		t.Fatal(err)
	}
	eventually(t, "resize through b applies plan 103's limits and runs the machine", func() bool {
		m, _ := fa.get("vm-7")
		return m.limits == machines.Limits{CPUs: 4, MemoryMB: 8192, DiskGB: 160} && m.running
	})

	fa.mu.Lock()
	fa.failingDeletes = 2 // on the host; b, which asked, has long returned
	fa.mu.Unlock()
	if err := b.Delete(ctx, "vm-7"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "delete through b removes the machine on a, though its first two tries fail", func() bool { _, ok := fa.get("vm-7"); return !ok })
	eventually(t, "and forgets it", func() bool { _, ok, _ := a.machine(ctx, "vm-7"); return !ok })
}

// TestMachineBuiltDuringItsBuild: a machine is created and booted while the simulator's build
// runs, without waiting for a poll. A poll while it is still booting says the build is not done
// (its order waits for the next poll, not the poll for the boot); the poll after it is up finds
// it and creates nothing more.
func TestMachineBuiltDuringItsBuild(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, fa, _ := replicas(t)
	boot := make(chan struct{})
	fa.mu.Lock()
	fa.gate = boot
	fa.mu.Unlock()
	ticket, err := a.Build(ctx, datacenter.BuildSpec{OrderID: 11, DatacenterID: 1, PlanID: 102, TemplateID: 1, OSType: "linux", Hostname: "early"})
	if err != nil {
		t.Fatal(err)
	}
	polled := make(chan datacenter.Build, 1)
	go func() {
		b, err := a.Poll(ctx, ticket)
		if err != nil {
			t.Error(err)
		}
		polled <- b
	}()
	select {
	case b := <-polled:
		if b.Done {
			t.Fatalf("Poll while the machine boots = %+v; want not done", b)
		}
	case <-time.After(eventWait): // the boot is held until the test lets it go
		t.Fatal("Poll waited for the machine's boot")
	}
	close(boot)
	eventually(t, "the machine is up without a poll", func() bool { m, ok := fa.get("vm-11"); return ok && m.running })
	eventually(t, "and recorded as built", func() bool { row, _, _ := a.machine(ctx, "vm-11"); return row.Created })
	built, err := a.Poll(ctx, ticket)
	if err != nil || !built.Done || built.Machine.IPv4 != "198.18.0.12" {
		t.Fatalf("Poll = %+v, %v; want done at 198.18.0.12", built, err)
	}
	fa.mu.Lock()
	creates := fa.creates
	fa.mu.Unlock()
	if creates != 1 {
		t.Fatalf("%d creates on the host, want 1", creates)
	}
	// The create's op row is finished just after the machine is recorded built: wait for that
	// event (a loaded CI machine saw it still pending at the first look).
	eventually(t, "the build's op to be finished", func() bool {
		ops, err := a.state.PendingMachineOps(ctx, "host-a", "", 100)
		return err == nil && len(ops) == 0
	})
}

// TestPollCreatesWhatTheBuildCouldNot: when the create started with the build fails on the
// machine's host, the build's poll (through another replica) asks that host again, without
// waiting for it, so the order is deployed with its machine at a later poll rather than waiting
// for a machine never made.
func TestPollCreatesWhatTheBuildCouldNot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, fa, _ := replicas(t)
	fa.mu.Lock()
	fa.failing = 1
	fa.mu.Unlock()
	ticket, err := a.Build(ctx, datacenter.BuildSpec{OrderID: 12, DatacenterID: 1, PlanID: 102, TemplateID: 1, OSType: "linux", Hostname: "retry"})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the build's create is tried, and fails", func() bool {
		fa.mu.Lock()
		defer fa.mu.Unlock()
		return fa.creates == 1
	})
	eventually(t, "and forgotten", func() bool { building, err := a.building(ctx, "vm-12"); return err == nil && !building })
	built := pollDone(t, b, ticket)
	if m, ok := fa.get("vm-12"); !ok || !m.running || built.Machine.IPv4 != m.spec.IPv4.String() {
		t.Fatalf("after the poll: machine %+v (%v), build %+v; want it running on a at the build's address", m, ok, built.Machine)
	}
}

// TestSnapshotOnItsHost: a snapshot's image is a copy made on the machine's host, sized in
// whole GB; a build from it runs on that host, from the copy; a restore leaves the machine off.
func TestSnapshotOnItsHost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, fa, fb := replicas(t)
	ticket, err := a.Build(ctx, datacenter.BuildSpec{OrderID: 3, PlanID: 101, TemplateID: 1, OSType: "linux", Hostname: "db"})
	if err != nil {
		t.Fatal(err)
	}
	pollDone(t, a, ticket)
	image, err := b.CreateSnapshot(ctx, datacenter.SnapshotSpec{SnapshotID: 11, Ref: "vm-3", DatacenterID: 1, DiskGB: 25})
	if err != nil {
		t.Fatal(err)
	}
	if again, err := a.CreateSnapshot(ctx, datacenter.SnapshotSpec{SnapshotID: 11, Ref: "vm-3", DatacenterID: 1, DiskGB: 25}); err != nil || again != image {
		t.Fatalf("a second CreateSnapshot = %q, %v; want the first image %q", again, err, image)
	}
	var img datacenter.SnapshotImage
	eventually(t, "the copy is made on a", func() bool { img, _ = b.PollSnapshot(ctx, image); return img.Done })
	if img.Failed || img.SizeGB != 4 {
		t.Fatalf("image %+v; want 4 GB (3 GiB and a byte, rounded up)", img)
	}
	clone, err := b.Build(ctx, datacenter.BuildSpec{OrderID: 4, PlanID: 101, TemplateID: 1, OSType: "linux", SnapshotID: 11,
		SnapshotPassword: "snapshot-pw"})
	if err != nil {
		t.Fatal(err)
	}
	built := pollDone(t, b, clone)
	if m, ok := fa.get("vm-4"); !ok || m.from != image {
		t.Fatalf("clone on a = %+v, %v; want it built from %s on a, the image's host", m, ok, image)
	}
	if m, _ := fa.get("vm-4"); m.spec.Password != "snapshot-pw" || built.Machine.Password != "snapshot-pw" {
		t.Fatalf("clone's password %q, handed out %q; want the spec's snapshot password", m.spec.Password, built.Machine.Password)
	}
	if _, ok := fb.get("vm-4"); ok {
		t.Fatal("the clone is on b, which has no copy of the image")
	}
	if _, err := b.RestoreSnapshot(ctx, "vm-3", image); err != nil {
		t.Fatal(err)
	}
	eventually(t, "restore through b leaves the machine off", func() bool { m, _ := fa.get("vm-3"); return !m.running })
	if err := b.DeleteSnapshot(ctx, image); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the image is deleted on a", func() bool { fa.mu.Lock(); defer fa.mu.Unlock(); return !fa.images[image] })
}

// TestWindowsStaysSimulated: a Windows build has no machine; its credentials are RDP's.
func TestWindowsStaysSimulated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, fa, _ := replicas(t)
	ticket, err := a.Build(ctx, datacenter.BuildSpec{OrderID: 9, PlanID: 102, TemplateID: 5, OSType: catalog.OSWindows})
	if err != nil {
		t.Fatal(err)
	}
	built, err := a.Poll(ctx, ticket)
	if err != nil || !built.Done || built.Machine.Port != 3389 || built.Machine.Username != "Administrator" {
		t.Fatalf("Poll = %+v, %v; want the simulator's RDP credentials", built, err)
	}
	if _, ok := fa.get("vm-9"); ok {
		t.Fatal("a Windows server got a machine")
	}
	if _, err := a.Power(ctx, "vm-9", datacenter.PowerOff); err != nil {
		t.Fatalf("power_off of a simulated server: %v", err)
	}
	linux, err := a.Build(ctx, datacenter.BuildSpec{OrderID: 10, PlanID: 102, TemplateID: 1, OSType: "linux", Hostname: "l"})
	if err != nil {
		t.Fatal(err)
	}
	pollDone(t, a, linux)
	if _, err := a.Rebuild(ctx, "vm-10", 5, catalog.OSWindows); err != nil {
		t.Fatal(err)
	}
	if _, ok := fa.get("vm-10"); ok {
		t.Fatal("a server rebuilt to Windows still has its machine")
	}
	if _, ok, _ := a.machine(ctx, "vm-10"); ok {
		t.Fatal("a server rebuilt to Windows is still recorded as a machine")
	}
}

func TestAddresses(t *testing.T) {
	t.Parallel()
	p := netip.MustParsePrefix("10.0.0.0/24")
	tests := []struct {
		got, want string
	}{
		{buildAddress(p, 1).String(), "10.0.0.2"},
		{buildAddress(p, 126).String(), "10.0.0.127"},
		{buildAddress(p, 127).String(), "10.0.0.2"}, // wraps: a /24 holds 126 builds
		{changeAddress(p, 1).String(), "10.0.0.128"},
		{changeAddress(p, 127).String(), "10.0.0.254"}, // never the broadcast address
		{changeAddress(p, 128).String(), "10.0.0.128"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%d: %s, want %s", i, tt.got, tt.want)
		}
	}
	for _, bad := range []string{"10.0.0.0/30", "10.0.0.1/24", "fd00::/64", "0.0.0.0/4"} {
		if err := CheckCIDR(netip.MustParsePrefix(bad)); err == nil {
			t.Errorf("CheckCIDR(%s) accepted it", bad)
		}
	}
}

func TestSizeGB(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		bytes int64
		want  int
	}{{0, 1}, {1, 1}, {1 << 30, 1}, {1<<30 + 1, 2}, {5 << 30, 5}} {
		if got := sizeGB(tt.bytes); got != tt.want {
			t.Errorf("sizeGB(%d) = %d, want %d", tt.bytes, got, tt.want)
		}
	}
}

// TestInstallScript: the inputs reach the script only through its environment, each stored in
// its own file, password inputs (given or generated) with mode 0600; the stand-in listens on
// the app's TCP ports.
func TestInstallScript(t *testing.T) {
	t.Parallel()
	cat := catalog.New()
	mysql, _ := cat.App("mysql")
	job := datacenter.AppJob{Ref: "vm-1", AppID: "mysql", Host: "198.18.0.2", Inputs: map[string]string{"DATABASE": "shop"},
		Generate: []string{"ROOT_PASSWORD"}}
	script, env, err := installScript(mysql, job, map[string]string{"root_password": "gen-Secret-1"})
	if err != nil {
		t.Fatal(err)
	}
	if env["IN_ROOT_PASSWORD"] != "gen-Secret-1" || env["IN_DATABASE"] != "shop" {
		t.Fatalf("env = %v", env)
	}
	for _, want := range []string{"chmod 0600 /etc/reseller/apps/mysql/ROOT_PASSWORD", "chmod 0644 /etc/reseller/apps/mysql/DATABASE",
		"nc -ll -p 3306", "/etc/reseller/rc.d/mysql"} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	if strings.Contains(script, "gen-Secret-1") || strings.Contains(script, "shop") {
		t.Error("a value is in the script's text")
	}
	wp, _ := cat.App("wordpress")
	script, _, err = installScript(wp, datacenter.AppJob{AppID: "wordpress", Inputs: map[string]string{}}, nil)
	if err != nil || !strings.Contains(script, "busybox httpd -p 80") || !strings.Contains(script, "SITE_TITLE") {
		t.Fatalf("wordpress script (%v):\n%s", err, script)
	}
}
