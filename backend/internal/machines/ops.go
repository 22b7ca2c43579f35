package machines

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/agent"
)

// Create makes ref's machine from s: a fresh disk (empty upper layer over the image), or a copy
// of snapshot fromSnapshot's disk when it is not "", then boots it and returns once SSH
// listens. The password hash is Spec.Password's; from a snapshot with an empty Spec.Password
// it is the snapshot's. A machine that already has a disk (a retried create) is only booted.
// A failed create leaves nothing of the machine.
func (m *Manager) Create(ctx context.Context, s Spec, fromSnapshot string) error {
	mc, err := m.lock(s.Ref)
	if err != nil {
		return err
	}
	defer mc.mu.Unlock()
	switch err := mc.load(); {
	case err == nil:
		return m.start(ctx, mc)
	case !errors.Is(err, ErrNotFound): // never a fresh disk over one whose spec cannot be read
		return err
	}
	r := record{Ref: s.Ref, Hostname: s.Hostname, Template: s.Template, IPv4: s.IPv4, Username: s.Username, Limits: s.Limits}
	release, err := m.validate(r)
	if err != nil {
		return err
	}
	defer release()
	if s.Password == "" && fromSnapshot == "" {
		return fmt.Errorf("machine %s: Password is empty", s.Ref)
	}
	if err := m.makeDisk(ctx, mc, r, s.Password, fromSnapshot); err != nil {
		m.destroy(ctx, mc)
		return err
	}
	if err := m.boot(ctx, mc); err != nil {
		m.destroy(ctx, mc)
		return err
	}
	return nil
}

// validate checks a record before it is written, claiming its address until release.
func (m *Manager) validate(r record) (release func(), err error) {
	if r.Hostname == "" || len(r.Hostname) > 64 {
		return nil, fmt.Errorf("machine %s: Hostname must be 1 to 64 characters", r.Ref)
	}
	if r.Username != "" && r.Username != "root" {
		return nil, fmt.Errorf("machine %s: Username %q: only root can log in", r.Ref, r.Username)
	}
	return m.claimAddress(r.Ref, r.IPv4)
}

// makeDisk writes a new machine's directory: its disk (fresh, or the snapshot's upper layer
// without its SSH host keys), identity files, password hash and spec.json (last: a directory
// without it is no machine).
func (m *Manager) makeDisk(ctx context.Context, mc *machine, r record, password, fromSnapshot string) error {
	if err := os.MkdirAll(mc.dir, 0o700); err != nil {
		return fmt.Errorf("machine %s: %w", mc.ref, err)
	}
	snapImage, err := m.resetDisk(ctx, mc, r.Limits, fromSnapshot)
	if err != nil {
		return err
	}
	// A snapshot's disk stays on the image it was taken on; a fresh disk is its template's.
	r.Image = m.imageFor(r.Template)
	if snapImage != "" {
		r.Image = snapImage
	}
	if err := writeIdentity(disk(mc.dir).upper, r.Image, r); err != nil {
		return fmt.Errorf("machine %s: disk: %w", mc.ref, err)
	}
	if fromSnapshot != "" {
		if err := forgetHostKeys(disk(mc.dir).upper); err != nil {
			return fmt.Errorf("machine %s: disk: %w", mc.ref, err)
		}
	}
	if password != "" {
		if _, err := mc.setPasswordHash(password); err != nil {
			return err
		}
	}
	return mc.save(r)
}

// resetDisk replaces the machine's disk by a fresh one of l's size (snapshot "") or a copy of a
// snapshot's, whose password hash it also takes, and returns the image the snapshot's disk was
// made on ("" for a fresh disk or a snapshot taken before images were recorded). The machine is
// off; its disk is left mounted. The new disk is made beside the machine's (stagingDir) and
// takes its place only once complete: a reset that fails (a full host disk, a context ended, a
// snapshot that cannot be copied) leaves the machine's disk and password as they were.
func (m *Manager) resetDisk(ctx context.Context, mc *machine, l Limits, snapshot string) (string, error) {
	stage := &machine{ref: mc.ref, dir: stagingDir(mc)}
	if err := discardStage(stage); err != nil { // what a reset cut short left
		return "", err
	}
	if err := os.Mkdir(stage.dir, 0o700); err != nil {
		return "", fmt.Errorf("machine %s: disk: %w", mc.ref, err)
	}
	image, hash, err := m.fillDisk(ctx, stage, l, snapshot)
	if err != nil {
		return "", errors.Join(err, discardStage(stage))
	}
	if err := swapDisk(mc, stage); err != nil {
		return "", err
	}
	if hash != nil {
		if err := writeFileAtomic(mc.passwordPath(), hash, 0o600); err != nil {
			return "", fmt.Errorf("machine %s: %w", mc.ref, err)
		}
	}
	return image, mountDisk(ctx, mc, 0)
}

// fillDisk makes stage's disk: fresh, of l's size, holding a copy of snapshot's upper layer
// when one is named; it returns the snapshot's image and password hash (nil for none).
func (m *Manager) fillDisk(ctx context.Context, stage *machine, l Limits, snapshot string) (string, []byte, error) {
	d := disk(stage.dir)
	if err := m.freshDisk(ctx, stage, l.diskBytes()); err != nil {
		return "", nil, err
	}
	if snapshot == "" {
		return "", nil, nil
	}
	if err := os.Remove(d.upper); err != nil { // copyTree makes it, as the snapshot's
		return "", nil, fmt.Errorf("machine %s: disk: %w", stage.ref, err)
	}
	snap, err := m.snapshotDir(snapshot)
	if err != nil {
		return "", nil, err
	}
	if _, err := os.Stat(filepath.Join(snap, "upper")); err != nil {
		return "", nil, fmt.Errorf("snapshot %s: %w", snapshot, ErrNotFound)
	}
	if err := copyTree(ctx, filepath.Join(snap, "upper"), d.upper); err != nil {
		return "", nil, fmt.Errorf("machine %s: copy snapshot %s: %w", stage.ref, snapshot, err)
	}
	hash, err := os.ReadFile(filepath.Join(snap, "password"))
	if err != nil {
		return "", nil, fmt.Errorf("snapshot %s: password: %w", snapshot, err)
	}
	image, _ := os.ReadFile(filepath.Join(snap, "image")) // absent in older snapshots
	return string(image), hash, nil
}

// Start boots ref's machine from its disk; a running machine is left running.
func (m *Manager) Start(ctx context.Context, ref string) error {
	mc, err := m.existing(ref)
	if err != nil {
		return err
	}
	defer mc.mu.Unlock()
	return m.start(ctx, mc)
}

func (m *Manager) start(ctx context.Context, mc *machine) error {
	if mc.run.alive() {
		return nil
	}
	m.kill(ctx, mc) // what is left of a machine that died unseen
	return m.boot(ctx, mc)
}

// Stop powers ref's machine off: every process gone, SSH refused, disk kept. A stopped machine
// is left stopped.
func (m *Manager) Stop(ctx context.Context, ref string) error {
	mc, err := m.existing(ref)
	if err != nil {
		return err
	}
	defer mc.mu.Unlock()
	return m.halt(ctx, mc)
}

// Reboot stops and boots ref's machine (boots it when it was off).
func (m *Manager) Reboot(ctx context.Context, ref string) error {
	mc, err := m.existing(ref)
	if err != nil {
		return err
	}
	defer mc.mu.Unlock()
	if err := m.halt(ctx, mc); err != nil {
		return err
	}
	return m.boot(ctx, mc)
}

// Rebuild gives ref's machine a fresh disk from the image naming template (its current one when
// template is ""), with password, and boots it (whether it was running or not: a rebuilt
// server is online).
func (m *Manager) Rebuild(ctx context.Context, ref, template, password string) error {
	mc, err := m.existing(ref)
	if err != nil {
		return err
	}
	defer mc.mu.Unlock()
	if password == "" {
		return fmt.Errorf("machine %s: password is empty", ref)
	}
	if err := m.halt(ctx, mc); err != nil {
		return err
	}
	r := *mc.rec
	if template != "" {
		r.Template = template
	}
	if err := m.makeDisk(ctx, mc, r, password, ""); err != nil {
		return err
	}
	return m.boot(ctx, mc)
}

// SetPassword makes password the one SSH takes (at once when the machine runs).
func (m *Manager) SetPassword(ctx context.Context, ref, password string) error {
	mc, err := m.existing(ref)
	if err != nil {
		return err
	}
	defer mc.mu.Unlock()
	if password == "" {
		return fmt.Errorf("machine %s: the password is empty", ref)
	}
	hash, err := agent.HashPassword(password)
	if err != nil {
		return fmt.Errorf("machine %s: hash the password: %w", ref, err)
	}
	// The agent first: a machine that does not take it keeps its old password on disk too,
	// as the caller, told of the failure, keeps the old one. A disk that does not take it gives
	// the agent its old password back, for the same reason.
	old, err := os.ReadFile(mc.passwordPath())
	if err != nil {
		return fmt.Errorf("machine %s: password: %w", ref, err)
	}
	told := mc.run.alive()
	if told {
		if err := mc.run.ctl.setPassword(ctx, hash); err != nil {
			return fmt.Errorf("machine %s: tell the agent the new password: %w", ref, err)
		}
	}
	if err := writeFileAtomic(mc.passwordPath(), []byte(hash), 0o600); err != nil {
		err = fmt.Errorf("machine %s: %w", ref, err)
		if told {
			if rerr := mc.run.ctl.setPassword(ctx, string(old)); rerr != nil {
				err = errors.Join(err, fmt.Errorf("machine %s: give the agent its old password back: %w", ref, rerr))
			}
		}
		return err
	}
	m.log.Info("machine password set", "ref", ref)
	return nil
}

// CheckPassword says whether password is the one ref's machine takes.
func (m *Manager) CheckPassword(ctx context.Context, ref, password string) (bool, error) {
	mc, err := m.existing(ref)
	if err != nil {
		return false, err
	}
	defer mc.mu.Unlock()
	hash, err := os.ReadFile(mc.passwordPath())
	if err != nil {
		return false, fmt.Errorf("machine %s: password: %w", ref, err)
	}
	return agent.CheckPassword(string(hash), password), nil
}

// SetAddress moves ref's machine to ip: a running machine at once (its old address then answers
// nothing), a stopped one at its next boot.
func (m *Manager) SetAddress(ctx context.Context, ref string, ip netip.Addr) error {
	mc, err := m.existing(ref)
	if err != nil {
		return err
	}
	defer mc.mu.Unlock()
	release, err := m.claimAddress(ref, ip)
	if err != nil {
		return err
	}
	defer release()
	r := *mc.rec
	old := r.IPv4
	r.IPv4 = ip
	if err := mc.save(r); err != nil {
		return err
	}
	if mc.run.alive() {
		if err := m.net.readdress(ctx, mc.run.pid, ref, ip); err != nil {
			return fmt.Errorf("machine %s: move to %s: %w", ref, ip, err)
		}
	}
	m.log.Info("machine address set", "ref", ref, "ipv4", ip, "was", old)
	return nil
}

// SetLimits records l for ref's machine and applies it where limits are enforced
// (LimitsEnforced), at once when the machine runs.
func (m *Manager) SetLimits(ctx context.Context, ref string, l Limits) error {
	mc, err := m.existing(ref)
	if err != nil {
		return err
	}
	defer mc.mu.Unlock()
	r := *mc.rec
	r.Limits = l
	if err := mc.save(r); err != nil {
		return err
	}
	if mc.run.alive() {
		if err := m.applyMachineLimits(mc); err != nil {
			return err
		}
	}
	// Running, the disk grows at once where the host may grow a mounted ext4, else at its next
	// boot (growDisk says which); stopped, now.
	if err := m.growDisk(ctx, mc, l.diskBytes()); err != nil {
		return fmt.Errorf("machine %s: grow its disk: %w", ref, err)
	}
	return nil
}

// Delete removes ref's machine: it is stopped, then its directory (disk, password hash),
// cgroup and veth are removed; no process, mount, link or file of it is left. Deleting a
// machine this host does not have is not an error (a retried delete).
func (m *Manager) Delete(ctx context.Context, ref string) error {
	mc, err := m.lock(ref)
	if err != nil {
		return err
	}
	defer mc.mu.Unlock()
	if err := m.halt(ctx, mc); err != nil {
		return err
	}
	m.destroy(ctx, mc)
	if _, err := os.Stat(mc.dir); err == nil {
		return fmt.Errorf("machine %s: its directory %s is still there", ref, mc.dir)
	}
	m.log.Info("machine deleted", "ref", ref)
	return nil
}

// destroy removes everything of mc (its process first, if any).
func (m *Manager) destroy(ctx context.Context, mc *machine) {
	m.kill(ctx, mc)
	m.net.unplug(ctx, mc.ref)
	_ = removeMachineCgroups(m.cgroups, mc.ref)
	mc.rec = nil
	if err := releaseDisk(mc); err != nil { // never remove the files of a filesystem still mounted
		m.log.Error("machine disk", "ref", mc.ref, "error", err)
		return
	}
	_ = os.RemoveAll(mc.dir)
}

// Run runs script with /bin/sh inside ref's machine (which must be running), env added to its
// environment, and returns its output (stdout and stderr, the last agent.MaxOutput bytes) and
// exit code. Cancelling ctx, or its deadline (defaultRunTimeout when it has none), kills the
// script's process group.
func (m *Manager) Run(ctx context.Context, ref string, script string, env map[string]string) (string, int, error) {
	mc, err := m.existing(ref)
	if err != nil {
		return "", -1, err
	}
	run := mc.run
	mc.mu.Unlock() // a long script must not hold the machine's other calls back
	if !run.alive() {
		return "", -1, fmt.Errorf("machine %s is not running", ref)
	}
	return run.ctl.run(ctx, script, env)
}
