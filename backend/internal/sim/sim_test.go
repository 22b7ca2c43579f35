package sim

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
)

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// newState returns the simulator's state in a new SQLite store, the one State there is.
func newState(t *testing.T) State {
	t.Helper()
	st, err := sqlstore.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "sim.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func newSim(t *testing.T, failRate float64) (*Sim, *clock) {
	t.Helper()
	c := &clock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := New(Options{Clock: c, State: newState(t), DeployDelay: 3 * time.Second, StepDelay: time.Second, Seed: 1})
	setFailRate(t, s, failRate)
	return s, c
}

func setFailRate(t *testing.T, s *Sim, rate float64) {
	t.Helper()
	if err := s.SetFailRate(context.Background(), rate); err != nil {
		t.Fatal(err)
	}
}

func TestBuildSurvivesANewSimulator(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, c := newSim(t, 0)
	ticket, err := s.Build(ctx, datacenter.BuildSpec{OrderID: 300, DatacenterID: 2, OSType: "windows"})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Poll(ctx, ticket); b.Done {
		t.Fatal("done before the deploy delay")
	}
	c.advance(3 * time.Second)
	// A restarted backend has a new simulator: the ticket alone carries the build.
	fresh := New(Options{Clock: c, State: newState(t), StepDelay: time.Second})
	b, err := fresh.Poll(ctx, ticket)
	if err != nil || !b.Done {
		t.Fatalf("poll after the delay = %+v, %v; want done", b, err)
	}
	m := b.Machine
	if m.Ref != "vm-300" || m.IPv4 != "185.102.1.44" || m.Username != "Administrator" || m.Port != 3389 ||
		!m.CredentialsAt.Equal(c.Now().Add(time.Second)) || len(m.Password) != 20 {
		t.Fatalf("machine = %+v", m)
	}
	if _, err := s.Poll(ctx, "bogus"); err == nil {
		t.Fatal("bogus ticket: got nil error")
	}
}

func TestFailRate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, c := newSim(t, 1)
	ticket, err := s.Build(ctx, datacenter.BuildSpec{OrderID: 1, DatacenterID: 1, OSType: "linux"})
	if err != nil {
		t.Fatal(err)
	}
	c.advance(time.Hour)
	if b, _ := s.Poll(ctx, ticket); b.Done {
		t.Fatal("a lost build finished")
	}
	_, err = s.ResetPassword(ctx, "vm-1")
	var de *datacenter.Error
	if !errors.As(err, &de) || !regexp.MustCompile(`^[A-Z2-9]{10}$`).MatchString(de.Reference) {
		t.Fatalf("operation at fail rate 1: %v, want a datacenter error with a reference", err)
	}
	setFailRate(t, s, 0)
	if _, err := s.ResetPassword(ctx, "vm-1"); err != nil {
		t.Fatalf("fail rate 0: %v", err)
	}
	// A rate in between fails some and not all.
	setFailRate(t, s, 0.5)
	failed := 0
	for range 200 {
		if _, err := s.Console(ctx, "vm-1"); err != nil {
			failed++
		}
	}
	if failed < 50 || failed > 150 {
		t.Fatalf("%d of 200 failed at rate 0.5", failed)
	}
}

func TestCleanPool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, c := newSim(t, 0)
	want := []bool{true, true, false, false}
	for i, clean := range want {
		got, err := s.ChangeIP(ctx, "vm-1", 2, true)
		if err != nil || got.Clean != clean || got.IPv4 == "" {
			t.Fatalf("change %d = %+v, %v; want clean %v", i+1, got, err, clean)
		}
	}
	c.advance(30 * time.Minute)
	if got, _ := s.ChangeIP(ctx, "vm-1", 2, true); !got.Clean {
		t.Fatal("no clean address 30 minutes later")
	}
	if got, _ := s.ChangeIP(ctx, "vm-1", 2, true); got.Clean {
		t.Fatal("two addresses came back in 30 minutes")
	}
	if got, _ := s.ChangeIP(ctx, "vm-1", 1, true); !got.Clean {
		t.Fatal("pools are per datacenter")
	}
	if got, _ := s.ChangeIP(ctx, "vm-1", 1, false); got.Clean {
		t.Fatal("a clean address without asking")
	}
}

func TestPasswordsAndTransitions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, c := newSim(t, 0)
	if ok, _ := s.CheckPassword(ctx, "vm-1", "anything"); !ok {
		t.Fatal("a machine without out-of-band changes refused its stored password")
	}
	if err := s.SetRootPasswordOutOfBand(ctx, "vm-1"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.CheckPassword(ctx, "vm-1", "stored"); ok {
		t.Fatal("the stored password still works after an out-of-band change")
	}
	if _, err := s.ResetPassword(ctx, "vm-1"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.CheckPassword(ctx, "vm-1", "new"); !ok {
		t.Fatal("reset_password did not take over the password")
	}
	tr, err := s.Power(ctx, "vm-1", datacenter.Reboot)
	if err != nil || tr.Status != "rebooting" || tr.Settled != "online" || !tr.SettlesAt.Equal(c.Now().Add(time.Second)) {
		t.Fatalf("reboot = %+v, %v", tr, err)
	}
	if _, err := s.Power(ctx, "vm-1", "explode"); err == nil {
		t.Fatal("unknown power action: got nil error")
	}
	if tr, _ := s.Power(ctx, "vm-1", datacenter.PowerOff); tr.Status != "offline" {
		t.Fatalf("power_off = %+v", tr)
	}
	c.advance(5 * time.Hour)
	live, _ := s.Live(ctx, "vm-1", c.Now().Add(-5*time.Hour))
	if live.Status != "offline" || live.TrafficUsedGB != 5 {
		t.Fatalf("live = %+v, want offline with 5 GB", live)
	}
}

func TestSnapshotImages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := &clock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	state := newState(t)
	s := New(Options{Clock: c, State: state, StepDelay: time.Second, SnapshotDelay: time.Minute, Seed: 1})
	image, err := s.CreateSnapshot(ctx, datacenter.SnapshotSpec{SnapshotID: 7, Ref: "vm-1", DatacenterID: 1, DiskGB: 25})
	if err != nil {
		t.Fatal(err)
	}
	if img, _ := s.PollSnapshot(ctx, image); img.Done {
		t.Fatal("image done before the snapshot delay")
	}
	c.advance(time.Minute)
	// A restarted backend has a new simulator: the image id alone carries the image.
	fresh := New(Options{Clock: c, State: state})
	img, err := fresh.PollSnapshot(ctx, image)
	if err != nil || !img.Done || img.Failed || img.SizeGB != 10 || !img.ReadyAt.Equal(c.Now()) {
		t.Fatalf("image = %+v, %v; want done, 10 GB (40 %% of 25, rounded up)", img, err)
	}
	if _, err := s.PollSnapshot(ctx, "bogus"); err == nil {
		t.Fatal("bogus image: got nil error")
	}
	if err := s.SetRootPasswordOutOfBand(ctx, "vm-1"); err != nil {
		t.Fatal(err)
	}
	tr, err := s.RestoreSnapshot(ctx, "vm-1", image)
	if err != nil || tr.Status != "restoring" || tr.Settled != "offline" || !tr.SettlesAt.Equal(c.Now().Add(time.Second)) {
		t.Fatalf("restore = %+v, %v", tr, err)
	}
	if ok, _ := s.CheckPassword(ctx, "vm-1", "from the snapshot"); !ok {
		t.Fatal("an out-of-band password survived the restore of the disk")
	}
	if live, _ := s.Live(ctx, "vm-1", c.Now()); live.Status != "offline" {
		t.Fatalf("after a restore the machine is %q, want offline", live.Status)
	}
	if err := s.DeleteSnapshot(ctx, image); err != nil {
		t.Fatal(err)
	}

	setFailRate(t, s, 1)
	failing, err := s.CreateSnapshot(ctx, datacenter.SnapshotSpec{SnapshotID: 8, DiskGB: 1})
	if err != nil {
		t.Fatalf("a failing image is reported when polled, not when started: %v", err)
	}
	c.advance(time.Minute)
	if img, _ := s.PollSnapshot(ctx, failing); !img.Done || !img.Failed {
		t.Fatalf("image at fail rate 1 = %+v, want done and failed", img)
	}
	if _, err := s.RestoreSnapshot(ctx, "vm-1", image); err == nil {
		t.Fatal("restore at fail rate 1: got nil error")
	}
}

// TestSimulatorsOnOneStateAgree: two simulators on one State (two replicas, or a restart) show
// one power state, one out-of-band password, one clean-IP pool and one fail rate.
func TestSimulatorsOnOneStateAgree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := &clock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	state := newState(t)
	a := New(Options{Clock: c, State: state, Seed: 1})
	b := New(Options{Clock: c, State: state, Seed: 2})

	if _, err := a.Power(ctx, "vm-1", datacenter.PowerOff); err != nil {
		t.Fatal(err)
	}
	if live, err := b.Live(ctx, "vm-1", c.Now()); err != nil || live.Status != datacenter.StatusOffline {
		t.Fatalf("live on the other simulator = %+v, %v; want offline", live, err)
	}
	if err := a.SetRootPasswordOutOfBand(ctx, "vm-1"); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.CheckPassword(ctx, "vm-1", "stored"); err != nil || ok {
		t.Fatalf("password check on the other simulator = %v, %v; want refused", ok, err)
	}
	var addresses []string
	for i, s := range []*Sim{a, b, a} {
		got, err := s.ChangeIP(ctx, "vm-1", 3, true)
		if err != nil || got.Clean != (i < 2) {
			t.Fatalf("change %d = %+v, %v; want clean only for the first two of one pool", i+1, got, err)
		}
		addresses = append(addresses, got.IPv4)
	}
	if addresses[0] == addresses[1] || addresses[1] == addresses[2] {
		t.Fatalf("addresses %v: want each handed out once", addresses)
	}
	setFailRate(t, a, 1)
	if _, err := b.Console(ctx, "vm-1"); err == nil {
		t.Fatal("the other simulator did not fail at the fail rate set through the first")
	}
	if err := b.Delete(ctx, "vm-1"); err == nil {
		t.Fatal("delete at fail rate 1: got nil error")
	}
	setFailRate(t, b, 0)
	if err := b.Delete(ctx, "vm-1"); err != nil {
		t.Fatal(err)
	}
	if live, _ := a.Live(ctx, "vm-1", c.Now()); live.Status != "" {
		t.Fatalf("a deleted machine is %q, want forgotten", live.Status)
	}
}
