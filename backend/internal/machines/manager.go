package machines

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/agent"
	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/seccompfilter"
)

// Manager runs this host's machines. Its methods are safe for concurrent use; calls on one
// machine are serialised (each machine has its own lock; the Manager's lock only guards the
// table of machines).
type Manager struct {
	o       Options
	log     *slog.Logger
	net     *network
	image   string            // the lower layer of every disk of a template without an image of its own
	images  map[string]string // Options.ImageFor, absolute
	cgroups []cgroupDir       // this Manager's cgroup in each hierarchy; nil where limits cannot be applied
	dirLock *os.File          // Dir/manager.lock, flocked for the Manager's life
	seccomp []byte            // the seccomp filter of what users run (package seccompfilter), built once

	mu       sync.Mutex
	machines map[string]*machine
	closed   bool
	done     chan struct{} // closed with closed set: ends the waits of background work (retryRevive)

	// addrMu and claims keep two machines off one address while their records are written
	// (each call holds only its own machine's lock).
	addrMu sync.Mutex
	claims map[netip.Addr]string
}

// machine is one machine's lock, record and, while it runs, its process.
type machine struct {
	ref string
	dir string

	mu   sync.Mutex
	rec  *record  // nil until loaded; nil again after Delete
	run  *running // nil while stopped
	down bool     // found down and not booted again yet (liveness.go); false once stopped on purpose
}

// record is spec.json: the Spec without its password.
type record struct {
	Ref      string     `json:"ref"`
	Hostname string     `json:"hostname"`
	Template string     `json:"template"`
	IPv4     netip.Addr `json:"ipv4"`
	Username string     `json:"username"`
	Limits   Limits     `json:"limits"`
	Image    string     `json:"image,omitempty"` // the disk's lower layer; "" (older disks): the Manager's image
}

// New prepares this host for machines: it checks the host (Check), refuses a CIDR already
// routed here, removes what a crashed Manager on the same Dir left (bridge, filter chains),
// creates the bridge and its filter rules, and assembles the default image. Machines with a
// disk under Dir are not booted: the datacenter Starts those it says are online.
func New(ctx context.Context, o Options) (*Manager, error) {
	if err := Check(o); err != nil {
		return nil, err
	}
	if o.PidsMax == 0 {
		o.PidsMax = DefaultPidsMax
	}
	if o.BootTimeout == 0 {
		o.BootTimeout = DefaultBootTimeout
	}
	if o.BootTimeout < 0 {
		return nil, fmt.Errorf("machines: BootTimeout %s must not be negative", o.BootTimeout)
	}
	if o.PidsMax < MinPidsMax || o.PidsMax > MaxPidsMax {
		return nil, fmt.Errorf("machines: PidsMax %d must be from %d to %d", o.PidsMax, MinPidsMax, MaxPidsMax)
	}
	if !o.CIDR.IsValid() || !o.CIDR.Addr().Is4() || o.CIDR.Bits() > 30 {
		return nil, fmt.Errorf("machines: CIDR %q must be an IPv4 prefix of /30 or wider", o.CIDR)
	}
	o.CIDR = o.CIDR.Masked()
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("machines: Dir: %w", err)
	}
	o.Dir = dir
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	m := &Manager{o: o, log: o.Logger.With("component", "machines"), machines: map[string]*machine{}, claims: map[netip.Addr]string{},
		done: make(chan struct{})}
	if m.seccomp, err = seccompfilter.Program(); err != nil {
		return nil, fmt.Errorf("machines: %w", err)
	}
	for _, d := range []string{"machines", "snapshots"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, fmt.Errorf("machines: Dir: %w", err)
		}
	}
	if m.dirLock, err = lockDir(dir); err != nil {
		return nil, err
	}
	if err := m.releaseDisks(); err != nil { // what a crashed Manager on Dir left mounted
		m.dirLock.Close()
		return nil, err
	}
	if m.image, err = ensureImage(o); err != nil {
		m.dirLock.Close()
		return nil, err
	}
	if m.images, err = templateImages(o.ImageFor); err != nil {
		m.dirLock.Close()
		return nil, err
	}
	m.net = newNetwork(dir, o, m.log)
	if err := m.net.setUp(ctx); err != nil {
		m.dirLock.Close()
		return nil, err
	}
	m.cgroups = newCgroups(m.net.bridge, m.log)
	m.log.Info("machines ready", "dir", dir, "cidr", o.CIDR, "bridge", m.net.bridge, "limits", m.cgroups != nil)
	return m, nil
}

// Close stops every machine cleanly (disks kept) and removes the bridge and its filter rules.
// The Manager is unusable afterwards.
func (m *Manager) Close(ctx context.Context) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	close(m.done)
	list := make([]*machine, 0, len(m.machines))
	for _, mc := range m.machines {
		list = append(list, mc)
	}
	m.mu.Unlock()
	var errs []error
	var wg sync.WaitGroup
	var errMu sync.Mutex
	for _, mc := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mc.mu.Lock()
			defer mc.mu.Unlock()
			if err := m.halt(ctx, mc); err != nil {
				errMu.Lock()
				errs = append(errs, err)
				errMu.Unlock()
			}
		}()
	}
	wg.Wait()
	errs = append(errs, m.releaseDisks(), m.net.tearDown(context.WithoutCancel(ctx)))
	errs = append(errs, removeCgroups(m.cgroups))
	_ = m.dirLock.Close()
	m.log.Info("machines closed", "bridge", m.net.bridge)
	return errors.Join(errs...)
}

// lockDir takes Dir's lock: one live Manager per Dir, in this process or another, since New
// removes the bridge and chains a previous Manager on the Dir left (after a crash, its lock is
// released with its process).
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, "manager.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("machines: Dir: %w", err)
	}
	if err := flockWithin(f, lockWait); err != nil {
		f.Close()
		return nil, fmt.Errorf("machines: Dir %s is in use by another running Manager (its manager.lock is held): %w", dir, err)
	}
	return f, nil
}

var refPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// lock returns ref's machine, locked; the caller unlocks mc.mu. It refuses refs that are not a
// safe directory name and a closed Manager.
func (m *Manager) lock(ref string) (*machine, error) {
	if !refPattern.MatchString(ref) {
		return nil, fmt.Errorf("machines: ref %q: letters, digits, '.', '_' and '-' only, at most 64", ref)
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, errors.New("machines: the manager is closed")
	}
	mc := m.machines[ref]
	if mc == nil {
		mc = &machine{ref: ref, dir: filepath.Join(m.o.Dir, "machines", ref)}
		m.machines[ref] = mc
	}
	m.mu.Unlock()
	mc.mu.Lock()
	return mc, nil
}

// existing locks ref's machine and loads its record; ErrNotFound when it has no disk here.
func (m *Manager) existing(ref string) (*machine, error) {
	mc, err := m.lock(ref)
	if err != nil {
		return nil, err
	}
	if err := mc.load(); err != nil {
		mc.mu.Unlock()
		return nil, err
	}
	return mc, nil
}

func (mc *machine) load() error {
	if mc.rec != nil {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(mc.dir, "spec.json"))
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("machine %s: %w", mc.ref, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("machine %s: %w", mc.ref, err)
	}
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("machine %s: spec.json: %w", mc.ref, err)
	}
	mc.rec = &r
	return nil
}

func (mc *machine) save(r record) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(mc.dir, "spec.json"), data, 0o600); err != nil {
		return fmt.Errorf("machine %s: %w", mc.ref, err)
	}
	mc.rec = &r
	return nil
}

// Running says whether ref's machine is booted (its PID 1 alive).
func (m *Manager) Running(ref string) bool {
	m.mu.Lock()
	mc := m.machines[ref]
	m.mu.Unlock()
	if mc == nil {
		return false
	}
	mc.mu.Lock()
	defer mc.mu.Unlock()
	return mc.run.alive()
}

// Refs lists the machines with a disk on this host, sorted.
func (m *Manager) Refs() []string {
	entries, err := os.ReadDir(filepath.Join(m.o.Dir, "machines"))
	if err != nil {
		return nil
	}
	var refs []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(m.o.Dir, "machines", e.Name(), "spec.json")); err == nil {
			refs = append(refs, e.Name())
		}
	}
	sort.Strings(refs)
	return refs
}

// claimAddress checks ip for ref (checkAddress) and holds it for ref until release is called,
// by when ref's spec.json records it (or ref has failed and does not).
func (m *Manager) claimAddress(ref string, ip netip.Addr) (release func(), err error) {
	m.addrMu.Lock()
	defer m.addrMu.Unlock()
	if other, ok := m.claims[ip]; ok && other != ref {
		return nil, fmt.Errorf("machines: IPv4 %s is machine %s's", ip, other)
	}
	if err := m.checkAddress(ref, ip); err != nil {
		return nil, err
	}
	m.claims[ip] = ref
	return func() {
		m.addrMu.Lock()
		defer m.addrMu.Unlock()
		if m.claims[ip] == ref {
			delete(m.claims, ip)
		}
	}, nil
}

// checkAddress refuses an address outside the CIDR, the network's own, the host's, the
// broadcast address, or one another machine of this host uses.
func (m *Manager) checkAddress(ref string, ip netip.Addr) error {
	if !ip.Is4() || !m.o.CIDR.Contains(ip) {
		return fmt.Errorf("machines: IPv4 %s is not in %s", ip, m.o.CIDR)
	}
	if ip == m.o.CIDR.Addr() || ip == m.net.host || ip == broadcast(m.o.CIDR) {
		return fmt.Errorf("machines: IPv4 %s is the network's, the host's or the broadcast address of %s", ip, m.o.CIDR)
	}
	for _, other := range m.Refs() {
		if other == ref {
			continue
		}
		data, err := os.ReadFile(filepath.Join(m.o.Dir, "machines", other, "spec.json"))
		if err != nil {
			continue
		}
		var r record
		if json.Unmarshal(data, &r) == nil && r.IPv4 == ip {
			return fmt.Errorf("machines: IPv4 %s is machine %s's", ip, other)
		}
	}
	return nil
}

func broadcast(p netip.Prefix) netip.Addr {
	a := p.Masked().Addr().As4()
	host := uint32(1)<<(32-p.Bits()) - 1
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3]) | host
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// writeFileAtomic writes through a temporary file and a rename, so a crash leaves the old
// content or the new, never half.
func writeFileAtomic(path string, data []byte, perm os.FileMode) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(f.Name())
		}
	}()
	_, err = f.Write(data)
	err = errors.Join(err, f.Chmod(perm), f.Sync(), f.Close())
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// passwordPath is the machine's password hash, outside its root.
func (mc *machine) passwordPath() string { return filepath.Join(mc.dir, "password") }

func (mc *machine) setPasswordHash(password string) (string, error) {
	if password == "" {
		return "", fmt.Errorf("machine %s: the password is empty", mc.ref)
	}
	h, err := agent.HashPassword(password)
	if err != nil {
		return "", fmt.Errorf("machine %s: hash the password: %w", mc.ref, err)
	}
	if err := writeFileAtomic(mc.passwordPath(), []byte(h), 0o600); err != nil {
		return "", fmt.Errorf("machine %s: %w", mc.ref, err)
	}
	return h, nil
}
