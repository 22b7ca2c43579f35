package sim

import (
	"context"
	"errors"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
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

func newSim(failRate float64) (*Sim, *clock) {
	c := &clock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	return New(Options{Clock: c, DeployDelay: 3 * time.Second, StepDelay: time.Second, FailRate: failRate, Seed: 1}), c
}

func TestBuildSurvivesANewSimulator(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, c := newSim(0)
	ticket, err := s.Build(ctx, datacenter.BuildSpec{OrderID: 300, DatacenterID: 2, OSType: "windows"})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Poll(ctx, ticket); b.Done {
		t.Fatal("done before the deploy delay")
	}
	c.advance(3 * time.Second)
	// A restarted backend has a new simulator: the ticket alone carries the build.
	fresh := New(Options{Clock: c, StepDelay: time.Second})
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
	s, c := newSim(1)
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
	s.SetFailRate(0)
	if _, err := s.ResetPassword(ctx, "vm-1"); err != nil {
		t.Fatalf("fail rate 0: %v", err)
	}
	// A rate in between fails some and not all.
	s.SetFailRate(0.5)
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
	s, c := newSim(0)
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
	s, c := newSim(0)
	if ok, _ := s.CheckPassword(ctx, "vm-1", "anything"); !ok {
		t.Fatal("a machine without out-of-band changes refused its stored password")
	}
	s.SetRootPasswordOutOfBand("vm-1")
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
	s := New(Options{Clock: c, StepDelay: time.Second, SnapshotDelay: time.Minute, Seed: 1})
	image, err := s.CreateSnapshot(ctx, datacenter.SnapshotSpec{SnapshotID: 7, Ref: "vm-1", DatacenterID: 1, DiskGB: 25})
	if err != nil {
		t.Fatal(err)
	}
	if img, _ := s.PollSnapshot(ctx, image); img.Done {
		t.Fatal("image done before the snapshot delay")
	}
	c.advance(time.Minute)
	// A restarted backend has a new simulator: the image id alone carries the image.
	fresh := New(Options{Clock: c})
	img, err := fresh.PollSnapshot(ctx, image)
	if err != nil || !img.Done || img.Failed || img.SizeGB != 10 || !img.ReadyAt.Equal(c.Now()) {
		t.Fatalf("image = %+v, %v; want done, 10 GB (40 %% of 25, rounded up)", img, err)
	}
	if _, err := s.PollSnapshot(ctx, "bogus"); err == nil {
		t.Fatal("bogus image: got nil error")
	}
	s.SetRootPasswordOutOfBand("vm-1")
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

	s.SetFailRate(1)
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
