// Package sim is a simulated datacenter behind the datacenter.Datacenter interface: builds take
// DeployDelay, credentials arrive StepDelay later, reboots, rebuilds, resizes and snapshot
// restores settle after StepDelay, snapshot images take SnapshotDelay, and FailRate injects
// faults (builds that never finish, images that fail, operations that fail with a support
// reference).
//
// A build's whole fate is written into its ticket (when it is ready and whether it will ever
// finish), an image's into its id, and machine refs, addresses and users are derived from the
// order, so a new simulator in a restarted resellerd answers for builds and images the old one
// started. Everything else a read can show (power states, out-of-band password changes, the
// clean-IP pools and the fail rate) is kept in a State, which the store implements on the
// database: replicas sharing one database simulate one datacenter, and a restart forgets
// nothing.
package sim

import (
	"context"
	"crypto/rand"
	"fmt"
	mathrand "math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// Clock tells the time; the simulator follows the backend's clock so tests can move it.
type Clock interface{ Now() time.Time }

// State is where the simulator keeps what a later read shows, whichever replica makes it. The
// store implements it on the database (README: what the replicas share); each update runs under
// the row's lock and may run again when its transaction is retried.
type State interface {
	// SimMachine returns what is remembered of machine ref; the zero value when nothing is.
	SimMachine(ctx context.Context, ref string) (store.SimMachine, error)
	// UpdateSimMachine stores what update makes of machine ref's state.
	UpdateSimMachine(ctx context.Context, ref string, update func(*store.SimMachine)) error
	// DeleteSimMachine forgets machine ref.
	DeleteSimMachine(ctx context.Context, ref string) error
	// UpdateIPPool stores what update makes of a datacenter's address pool.
	UpdateIPPool(ctx context.Context, datacenterID int64, update func(*store.IPPool)) error
	// SimFailRate returns the share of builds, images and operations that fail.
	SimFailRate(ctx context.Context) (float64, error)
	// SetSimFailRate changes it.
	SetSimFailRate(ctx context.Context, rate float64) error
}

// Options shape a simulator.
type Options struct {
	Clock       Clock
	State       State         // power states, passwords, IP pools and the fail rate
	DeployDelay time.Duration // how long a build takes
	StepDelay   time.Duration // credentials after a build; reboot, rebuild, resize and restore
	// SnapshotDelay is how long an image of a disk takes.
	SnapshotDelay time.Duration
	Seed          uint64 // seeds the choice of the operations that fail; 0 takes a random seed
}

// Clean IP pool: each datacenter holds cleanPoolSize clean addresses and gets one back every
// cleanPoolRefill (README: choices).
const (
	cleanPoolSize   = 2
	cleanPoolRefill = 30 * time.Minute
)

// consoleLifetime is how long a console URL stays valid.
const consoleLifetime = 10 * time.Minute

// trafficPerHour is the simulated traffic of a running machine, in GB per hour.
const trafficPerHour = 1

// diskUsedPercent is the share of a plan's disk a simulated machine uses: an image is this big,
// rounded up to whole GB (README: snapshot size model).
const diskUsedPercent = 40

// Sim is the simulated datacenter. It is safe for concurrent use.
type Sim struct {
	clock         Clock
	state         State
	deployDelay   time.Duration
	stepDelay     time.Duration
	snapshotDelay time.Duration

	mu  sync.Mutex // guards rng
	rng *mathrand.Rand
}

var _ datacenter.Datacenter = (*Sim)(nil)

// New returns a simulator.
func New(o Options) *Sim {
	seed := o.Seed
	if seed == 0 {
		seed = mathrand.Uint64()
	}
	return &Sim{
		clock: o.Clock, state: o.State,
		deployDelay: o.DeployDelay, stepDelay: o.StepDelay, snapshotDelay: o.SnapshotDelay,
		rng: mathrand.New(mathrand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
	}
}

// SetFailRate changes the share of failing builds and operations from now on, for every
// simulator on the same State.
func (s *Sim) SetFailRate(ctx context.Context, rate float64) error {
	if err := s.state.SetSimFailRate(ctx, rate); err != nil {
		return fmt.Errorf("sim: set fail rate: %w", err)
	}
	return nil
}

// FailRate is the share of failing builds and operations as this simulator reads it now: a
// change made through another simulator on the same State shows once the State has it (at
// once on one process, within a notification's delay on another replica of PostgreSQL).
func (s *Sim) FailRate(ctx context.Context) (float64, error) {
	rate, err := s.state.SimFailRate(ctx)
	if err != nil {
		return 0, fmt.Errorf("sim: read fail rate: %w", err)
	}
	return rate, nil
}

// SetRootPasswordOutOfBand changes the machine's root password behind the service's back, as a
// user logged in over SSH would: the password the service stored stops working.
func (s *Sim) SetRootPasswordOutOfBand(ctx context.Context, ref string) error {
	pw := password()
	return s.updateMachine(ctx, ref, func(m *store.SimMachine) { m.Password = pw })
}

// failed reports whether the fail rate picks this operation to fail. The rate is read from the
// State each time, so a change made through any simulator applies to the next operation.
func (s *Sim) failed(ctx context.Context) (bool, error) {
	rate, err := s.state.SimFailRate(ctx)
	if err != nil {
		return false, fmt.Errorf("sim: %w", err)
	}
	if rate <= 0 {
		return false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rng.Float64() < rate, nil
}

// fail returns the error of an operation the fail rate picks to fail (a datacenter.Error with a
// reference), the State's error if the rate cannot be read, or nil.
func (s *Sim) fail(ctx context.Context, op string) error {
	failed, err := s.failed(ctx)
	if err != nil || !failed {
		return err
	}
	ref, err := datacenter.NewReference(rand.Reader)
	if err != nil {
		return fmt.Errorf("sim: %s: %w", op, err)
	}
	return &datacenter.Error{Op: op, Reference: ref}
}

// ticket is the parsed form of a build ticket.
type ticket struct {
	orderID      int64
	datacenterID int64
	osType       string
	readyAt      time.Time
	finishes     bool
}

func (t ticket) String() string {
	outcome := "ok"
	if !t.finishes {
		outcome = "lost"
	}
	return fmt.Sprintf("sim1-%d-%d-%s-%d-%s", t.orderID, t.datacenterID, t.osType, t.readyAt.UnixNano(), outcome)
}

func parseTicket(s string) (ticket, error) {
	parts := strings.Split(s, "-")
	if len(parts) != 6 || parts[0] != "sim1" {
		return ticket{}, fmt.Errorf("sim: unknown ticket %q", s)
	}
	order, err1 := strconv.ParseInt(parts[1], 10, 64)
	dc, err2 := strconv.ParseInt(parts[2], 10, 64)
	ready, err3 := strconv.ParseInt(parts[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return ticket{}, fmt.Errorf("sim: malformed ticket %q", s)
	}
	return ticket{orderID: order, datacenterID: dc, osType: parts[3], readyAt: time.Unix(0, ready).UTC(),
		finishes: parts[5] == "ok"}, nil
}

// Build starts a build. With the fail rate the build is lost: it never finishes, and the order
// times out at the end of its window.
func (s *Sim) Build(ctx context.Context, spec datacenter.BuildSpec) (string, error) {
	lost, err := s.failed(ctx)
	if err != nil {
		return "", err
	}
	t := ticket{orderID: spec.OrderID, datacenterID: spec.DatacenterID, osType: spec.OSType,
		readyAt: s.clock.Now().Add(s.deployDelay), finishes: !lost}
	return t.String(), nil
}

// Poll reports a build; the machine's addresses follow from the order so they are stable.
func (s *Sim) Poll(_ context.Context, raw string) (datacenter.Build, error) {
	t, err := parseTicket(raw)
	if err != nil {
		return datacenter.Build{}, err
	}
	if !t.finishes || s.clock.Now().Before(t.readyAt) {
		return datacenter.Build{}, nil
	}
	m := datacenter.Machine{
		Ref:           datacenter.MachineRef(t.orderID),
		IPv4:          fmt.Sprintf("185.%d.%d.%d", 100+t.datacenterID, (t.orderID>>8)&0xff, t.orderID&0xff),
		IPv6:          fmt.Sprintf("2a0e:%x:%x::%x", 0x100+t.datacenterID, t.orderID>>16, t.orderID&0xffff),
		Username:      "root",
		Port:          22,
		Password:      password(),
		CredentialsAt: t.readyAt.Add(s.stepDelay),
		Status:        datacenter.StatusOnline,
	}
	if t.osType == "windows" {
		m.Username, m.Port = "Administrator", 3389
	}
	// The new machine's power is not stored: Live's empty status leaves the instance its own
	// (online, as built) until a power action stores one. Storing it here cost a write per deploy.
	return datacenter.Build{Done: true, Machine: m}, nil
}

// Live reports the last power status the simulator saw and the traffic a machine running since
// cycleStart has used.
func (s *Sim) Live(ctx context.Context, ref string, cycleStart time.Time) (datacenter.Live, error) {
	used := max(0, int(s.clock.Now().Sub(cycleStart).Hours())*trafficPerHour)
	m, err := s.state.SimMachine(ctx, ref)
	if err != nil {
		return datacenter.Live{}, fmt.Errorf("sim: live: %w", err)
	}
	return datacenter.Live{Status: m.Power, TrafficUsedGB: used}, nil
}

// Power turns the machine on or off at once; a reboot settles after StepDelay.
func (s *Sim) Power(ctx context.Context, ref, action string) (datacenter.Transition, error) {
	if err := s.fail(ctx, action); err != nil {
		return datacenter.Transition{}, err
	}
	now := s.clock.Now()
	var tr datacenter.Transition
	switch action {
	case datacenter.PowerOn:
		tr = datacenter.Transition{Status: datacenter.StatusOnline, Settled: datacenter.StatusOnline, SettlesAt: now}
	case datacenter.PowerOff:
		tr = datacenter.Transition{Status: datacenter.StatusOffline, Settled: datacenter.StatusOffline, SettlesAt: now}
	case datacenter.Reboot:
		tr = datacenter.Transition{Status: datacenter.StatusRebooting, Settled: datacenter.StatusOnline, SettlesAt: now.Add(s.stepDelay)}
	default:
		return datacenter.Transition{}, fmt.Errorf("sim: unknown power action %q", action)
	}
	if err := s.setPower(ctx, ref, tr.Settled); err != nil {
		return datacenter.Transition{}, err
	}
	return tr, nil
}

// Rebuild reinstalls the machine: a new root password, delivered when the rebuild settles.
func (s *Sim) Rebuild(ctx context.Context, ref string, _ int64, _ string) (datacenter.Rebuilt, error) {
	if err := s.fail(ctx, "rebuild"); err != nil {
		return datacenter.Rebuilt{}, err
	}
	settles := s.clock.Now().Add(s.stepDelay)
	if err := s.updateMachine(ctx, ref, newDisk(datacenter.StatusOnline)); err != nil {
		return datacenter.Rebuilt{}, err
	}
	return datacenter.Rebuilt{
		Transition: datacenter.Transition{Status: datacenter.StatusRebuilding, Settled: datacenter.StatusOnline, SettlesAt: settles},
		Password:   password(), CredentialsAt: settles,
	}, nil
}

// ResetPassword sets a new root password, which also undoes any out-of-band change.
func (s *Sim) ResetPassword(ctx context.Context, ref string) (string, error) {
	if err := s.fail(ctx, "reset_password"); err != nil {
		return "", err
	}
	if err := s.updateMachine(ctx, ref, func(m *store.SimMachine) { m.Password = "" }); err != nil {
		return "", err
	}
	return password(), nil
}

// ChangeIP hands out a new address, a clean one when asked and the pool has one ready.
// The pool is the datacenter's in the State, taken under its row lock, so replicas draw from one.
func (s *Sim) ChangeIP(ctx context.Context, _ string, datacenterID int64, clean bool) (datacenter.IPChange, error) {
	if err := s.fail(ctx, "change_ip"); err != nil {
		return datacenter.IPChange{}, err
	}
	now := s.clock.Now()
	var n int64
	var got bool
	err := s.state.UpdateIPPool(ctx, datacenterID, func(p *store.IPPool) {
		p.Issued++
		n, got = p.Issued, clean && takeClean(p, now)
	})
	if err != nil {
		return datacenter.IPChange{}, fmt.Errorf("sim: change_ip: %w", err)
	}
	if got {
		return datacenter.IPChange{IPv4: fmt.Sprintf("5.%d.%d.%d", 100+datacenterID, (n>>8)&0xff, n&0xff), Clean: true}, nil
	}
	return datacenter.IPChange{IPv4: fmt.Sprintf("185.%d.%d.%d", 200+datacenterID, (n>>8)&0xff, n&0xff)}, nil
}

// Console opens a console session valid for consoleLifetime.
func (s *Sim) Console(ctx context.Context, ref string) (datacenter.Console, error) {
	if err := s.fail(ctx, "console"); err != nil {
		return datacenter.Console{}, err
	}
	token, err := datacenter.NewReference(rand.Reader)
	if err != nil {
		return datacenter.Console{}, fmt.Errorf("sim: console: %w", err)
	}
	expires := s.clock.Now().Add(consoleLifetime)
	return datacenter.Console{
		URL:      fmt.Sprintf("https://console.sim.reseller.test/%s/%s?expires=%d", ref, strings.ToLower(token), expires.Unix()),
		Password: password(), ExpiresAt: expires,
	}, nil
}

// Resize moves the machine to another plan; it settles after StepDelay.
func (s *Sim) Resize(ctx context.Context, ref string, _ int64) (datacenter.Transition, error) {
	if err := s.fail(ctx, "resize"); err != nil {
		return datacenter.Transition{}, err
	}
	if err := s.setPower(ctx, ref, datacenter.StatusOnline); err != nil {
		return datacenter.Transition{}, err
	}
	return datacenter.Transition{Status: datacenter.StatusResizing, Settled: datacenter.StatusOnline, SettlesAt: s.clock.Now().Add(s.stepDelay)}, nil
}

// Delete forgets the machine.
func (s *Sim) Delete(ctx context.Context, ref string) error {
	if err := s.fail(ctx, "delete"); err != nil {
		return err
	}
	if err := s.state.DeleteSimMachine(ctx, ref); err != nil {
		return fmt.Errorf("sim: delete: %w", err)
	}
	return nil
}

// CheckPassword fails only for a machine whose password was changed out of band.
func (s *Sim) CheckPassword(ctx context.Context, ref, pw string) (bool, error) {
	m, err := s.state.SimMachine(ctx, ref)
	if err != nil {
		return false, fmt.Errorf("sim: check password: %w", err)
	}
	return m.Password == "" || m.Password == pw, nil
}

// InstallApp runs an installer: it reports where the app answers and the credentials it
// generated. With the fail rate an attempt fails with a reference.
func (s *Sim) InstallApp(ctx context.Context, job datacenter.AppJob) (datacenter.AppResult, error) {
	if err := s.fail(ctx, "install "+job.AppID); err != nil {
		return datacenter.AppResult{}, err
	}
	result := map[string]string{"host": job.Host}
	var log strings.Builder
	fmt.Fprintf(&log, "==> installing %s on %s\n", job.AppID, job.Host)
	for _, p := range job.Ports {
		port, _, _ := strings.Cut(p, "/")
		if port == "80" {
			result["url"] = "http://" + job.Host + "/"
		}
		if port == "443" {
			result["url"] = "https://" + job.Host + "/"
		}
		fmt.Fprintf(&log, "opened port %s\n", p)
	}
	for _, key := range job.Generate {
		result[strings.ToLower(key)] = password()
		fmt.Fprintf(&log, "generated %s\n", key)
	}
	fmt.Fprintf(&log, "==> %s installed\n", job.AppID)
	return datacenter.AppResult{Result: result, Log: log.String()}, nil
}

// imageTicket is the parsed form of an image id: the image's size and fate are fixed when it is
// started, so a restarted backend's simulator answers for it too.
type imageTicket struct {
	snapshotID int64
	sizeGB     int
	readyAt    time.Time
	fails      bool
}

func (t imageTicket) String() string {
	outcome := "ok"
	if t.fails {
		outcome = "failed"
	}
	return fmt.Sprintf("snap1-%d-%d-%d-%s", t.snapshotID, t.sizeGB, t.readyAt.UnixNano(), outcome)
}

func parseImageTicket(s string) (imageTicket, error) {
	parts := strings.Split(s, "-")
	if len(parts) != 5 || parts[0] != "snap1" {
		return imageTicket{}, fmt.Errorf("sim: unknown image %q", s)
	}
	id, err1 := strconv.ParseInt(parts[1], 10, 64)
	size, err2 := strconv.Atoi(parts[2])
	ready, err3 := strconv.ParseInt(parts[3], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return imageTicket{}, fmt.Errorf("sim: malformed image %q", s)
	}
	return imageTicket{snapshotID: id, sizeGB: size, readyAt: time.Unix(0, ready).UTC(), fails: parts[4] == "failed"}, nil
}

// CreateSnapshot starts an image of diskUsedPercent of the plan's disk, ready after
// SnapshotDelay. With the fail rate the image fails when it would have been ready.
func (s *Sim) CreateSnapshot(ctx context.Context, spec datacenter.SnapshotSpec) (string, error) {
	failed, err := s.failed(ctx)
	if err != nil {
		return "", err
	}
	size := max(1, (spec.DiskGB*diskUsedPercent+99)/100)
	t := imageTicket{snapshotID: spec.SnapshotID, sizeGB: size, readyAt: s.clock.Now().Add(s.snapshotDelay), fails: failed}
	return t.String(), nil
}

// PollSnapshot reports an image from its id alone.
func (s *Sim) PollSnapshot(_ context.Context, raw string) (datacenter.SnapshotImage, error) {
	t, err := parseImageTicket(raw)
	if err != nil {
		return datacenter.SnapshotImage{}, err
	}
	if s.clock.Now().Before(t.readyAt) {
		return datacenter.SnapshotImage{}, nil
	}
	if t.fails {
		return datacenter.SnapshotImage{Done: true, Failed: true, ReadyAt: t.readyAt}, nil
	}
	return datacenter.SnapshotImage{Done: true, SizeGB: t.sizeGB, ReadyAt: t.readyAt}, nil
}

// RestoreSnapshot writes an image back: the machine is off once the restore settles after
// StepDelay, and a password changed out of band is gone with the old disk.
func (s *Sim) RestoreSnapshot(ctx context.Context, ref, _ string) (datacenter.Transition, error) {
	if err := s.fail(ctx, "restore"); err != nil {
		return datacenter.Transition{}, err
	}
	if err := s.updateMachine(ctx, ref, newDisk(datacenter.StatusOffline)); err != nil {
		return datacenter.Transition{}, err
	}
	return datacenter.Transition{Status: datacenter.StatusRestoring, Settled: datacenter.StatusOffline, SettlesAt: s.clock.Now().Add(s.stepDelay)}, nil
}

// DeleteSnapshot forgets an image; with the fail rate it fails and is retried by the caller.
func (s *Sim) DeleteSnapshot(ctx context.Context, _ string) error {
	return s.fail(ctx, "delete snapshot")
}

// updateMachine stores what update makes of the machine's state.
func (s *Sim) updateMachine(ctx context.Context, ref string, update func(*store.SimMachine)) error {
	if err := s.state.UpdateSimMachine(ctx, ref, update); err != nil {
		return fmt.Errorf("sim: machine %s: %w", ref, err)
	}
	return nil
}

// setPower records the machine's power status.
func (s *Sim) setPower(ctx context.Context, ref, status string) error {
	return s.updateMachine(ctx, ref, func(m *store.SimMachine) { m.Power = status })
}

// newDisk is the state of a machine whose disk was written anew (a rebuild, a restore): a
// password changed out of band is gone with the old disk.
func newDisk(power string) func(*store.SimMachine) {
	return func(m *store.SimMachine) { m.Power, m.Password = power, "" }
}

// takeClean takes a clean address from the pool if one is ready: the pool holds cleanPoolSize,
// and one taken comes back every cleanPoolRefill, counted from when the pool was last full or
// the last one came back.
func takeClean(p *store.IPPool, now time.Time) bool {
	for p.Taken > 0 && !now.Before(p.Since.Add(cleanPoolRefill)) {
		p.Taken--
		p.Since = p.Since.Add(cleanPoolRefill)
	}
	if p.Taken == 0 {
		p.Since = now
	}
	if p.Taken == cleanPoolSize {
		return false
	}
	p.Taken++
	return true
}

// passwordAlphabet avoids characters that need quoting in a shell.
const passwordAlphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// password returns a random 20-character password.
func password() string {
	b := make([]byte, 20)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	for i := range b {
		b[i] = passwordAlphabet[int(b[i])%len(passwordAlphabet)]
	}
	return string(b)
}
