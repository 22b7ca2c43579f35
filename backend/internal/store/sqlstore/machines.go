package sqlstore

import (
	"context"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// The sandbox datacenter's rows (store.Machines; migration 0014): the machines and where they
// run, the copies of their disks, and the changes asked of their hosts. The ops' arguments and
// results are sealed under their text id, known before the INSERT, so they are sealed as
// they are written (as sim_machines' passwords under their ref).

const machineColumns = `ref, host, cidr, ipv4, password, hostname, template, cpus, memory_mb, from_image, power, created, disk_gb, down,
	traffic_bytes, traffic_link, traffic_counter`

func (q queries) scanMachine(r rowScanner) (store.Machine, error) {
	var m store.Machine
	err := r.Scan(&m.Ref, &m.Host, &m.CIDR, &m.IPv4, &m.Password, &m.Hostname, &m.Template, &m.CPUs, &m.MemoryMB,
		&m.FromImage, &m.Power, &m.Created, &m.DiskGB, &m.Down, &m.Traffic.Bytes, &m.Traffic.Link, &m.Traffic.Counter)
	if err != nil {
		return store.Machine{}, err
	}
	m.Password, err = q.open(machinePassword, m.Ref, noOwner, m.Password)
	return m, err
}

// AddMachine stores m unless machine m.Ref is stored, and returns the one stored.
func (s *Store) AddMachine(ctx context.Context, m store.Machine) (store.Machine, error) {
	password, err := s.seal(machinePassword, m.Ref, noOwner, m.Password)
	if err != nil {
		return store.Machine{}, err
	}
	_, err = s.exec(ctx, `INSERT INTO machines (`+machineColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (ref) DO NOTHING`, m.Ref, m.Host, m.CIDR, m.IPv4, password, m.Hostname, m.Template, m.CPUs,
		m.MemoryMB, m.FromImage, m.Power, m.Created, m.DiskGB, m.Down, m.Traffic.Bytes, m.Traffic.Link, m.Traffic.Counter)
	if err != nil {
		return store.Machine{}, fmt.Errorf("sqlstore: add machine %s: %w", m.Ref, err)
	}
	return s.Machine(ctx, m.Ref)
}

// Machine returns machine ref; store.ErrNotFound when there is none.
func (s *Store) Machine(ctx context.Context, ref string) (store.Machine, error) {
	m, err := s.scanMachine(s.queryRow(ctx, `SELECT `+machineColumns+` FROM machines WHERE ref = ?`, ref))
	if err != nil {
		return store.Machine{}, fmt.Errorf("sqlstore: machine %s: %w", ref, err)
	}
	return m, nil
}

// UpdateMachine stores what update makes of machine ref, under the row's lock; the ref and the
// host stay as they are.
func (s *Store) UpdateMachine(ctx context.Context, ref string, update func(*store.Machine)) error {
	err := s.WithTx(ctx, func(tx store.Tx) error {
		q := tx.(queries) // WithTx always passes the store's own queries
		m, err := q.scanMachine(q.queryRow(ctx, `SELECT `+machineColumns+` FROM machines WHERE ref = ?`+q.rowLock(forUpdate), ref))
		if err != nil {
			return err
		}
		update(&m)
		password, err := q.seal(machinePassword, ref, noOwner, m.Password)
		if err != nil {
			return err
		}
		_, err = q.exec(ctx, `UPDATE machines SET cidr = ?, ipv4 = ?, password = ?, hostname = ?, template = ?, cpus = ?,
			memory_mb = ?, from_image = ?, power = ?, created = ?, disk_gb = ?, down = ?, traffic_bytes = ?, traffic_link = ?,
			traffic_counter = ? WHERE ref = ?`, m.CIDR, m.IPv4, password, m.Hostname, m.Template, m.CPUs, m.MemoryMB,
			m.FromImage, m.Power, m.Created, m.DiskGB, m.Down, m.Traffic.Bytes, m.Traffic.Link, m.Traffic.Counter, ref)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlstore: update machine %s: %w", ref, err)
	}
	return nil
}

// DeleteMachine forgets machine ref.
func (s *Store) DeleteMachine(ctx context.Context, ref string) error {
	if _, err := s.exec(ctx, `DELETE FROM machines WHERE ref = ?`, ref); err != nil {
		return fmt.Errorf("sqlstore: delete machine %s: %w", ref, err)
	}
	return nil
}

// HostMachines lists the machines of host, by ref (machines_host).
func (s *Store) HostMachines(ctx context.Context, host string) ([]store.Machine, error) {
	return list(ctx, s.queries, "machines", s.scanMachine,
		`SELECT `+machineColumns+` FROM machines WHERE host = ? ORDER BY ref`, host)
}

const machineImageColumns = `image, snapshot_id, ref, host, done, failed, size_bytes`

func scanMachineImage(r rowScanner) (store.MachineImage, error) {
	var img store.MachineImage
	err := r.Scan(&img.Image, &img.SnapshotID, &img.Ref, &img.Host, &img.Done, &img.Failed, &img.SizeBytes)
	return img, err
}

// AddMachineImage stores img unless image img.Image is stored, and returns the one stored.
func (s *Store) AddMachineImage(ctx context.Context, img store.MachineImage) (store.MachineImage, error) {
	_, err := s.exec(ctx, `INSERT INTO machine_images (`+machineImageColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (image) DO NOTHING`, img.Image, img.SnapshotID, img.Ref, img.Host, img.Done, img.Failed, img.SizeBytes)
	if err != nil {
		return store.MachineImage{}, fmt.Errorf("sqlstore: add machine image %s: %w", img.Image, err)
	}
	return s.MachineImage(ctx, img.Image)
}

// MachineImage returns image; store.ErrNotFound when there is none.
func (s *Store) MachineImage(ctx context.Context, image string) (store.MachineImage, error) {
	img, err := scanMachineImage(s.queryRow(ctx, `SELECT `+machineImageColumns+` FROM machine_images WHERE image = ?`, image))
	if err != nil {
		return store.MachineImage{}, fmt.Errorf("sqlstore: machine image %s: %w", image, err)
	}
	return img, nil
}

// SnapshotMachineImage returns the image of snapshot snapshotID; store.ErrNotFound when there is
// none.
func (s *Store) SnapshotMachineImage(ctx context.Context, snapshotID int64) (store.MachineImage, error) {
	img, err := scanMachineImage(s.queryRow(ctx, `SELECT `+machineImageColumns+` FROM machine_images
		WHERE snapshot_id = ? ORDER BY image LIMIT 1`, snapshotID))
	if err != nil {
		return store.MachineImage{}, fmt.Errorf("sqlstore: image of snapshot %d: %w", snapshotID, err)
	}
	return img, nil
}

// FinishMachineImage records how the copy of image ended.
func (s *Store) FinishMachineImage(ctx context.Context, image string, failed bool, sizeBytes int64) error {
	res, err := s.exec(ctx, `UPDATE machine_images SET done = ?, failed = ?, size_bytes = ? WHERE image = ?`,
		true, failed, sizeBytes, image)
	return checkOneRow(res, err, "finish machine image", image)
}

// DeleteMachineImage forgets image.
func (s *Store) DeleteMachineImage(ctx context.Context, image string) error {
	if _, err := s.exec(ctx, `DELETE FROM machine_images WHERE image = ?`, image); err != nil {
		return fmt.Errorf("sqlstore: delete machine image %s: %w", image, err)
	}
	return nil
}

const machineOpColumns = `id, host, ref, kind, args, wait, status, result, exit_code`

func (q queries) scanMachineOp(r rowScanner) (store.MachineOp, error) {
	var op store.MachineOp
	var args string
	err := r.Scan(&op.ID, &op.Host, &op.Ref, &op.Kind, &args, &op.Wait, &op.Status, &op.Result, &op.Exit)
	if err != nil {
		return store.MachineOp{}, err
	}
	if err := q.openJSON(machineOpArgs, op.ID, noOwner, args, &op.Args); err != nil {
		return store.MachineOp{}, err
	}
	op.Result, err = q.open(machineOpResult, op.ID, noOwner, op.Result)
	return op, err
}

// AddMachineOp asks op.Host for op, pending, unless op.ID is stored already.
func (s *Store) AddMachineOp(ctx context.Context, op store.MachineOp) (bool, error) {
	args, err := s.sealJSON(machineOpArgs, op.ID, noOwner, op.Args)
	if err != nil {
		return false, err
	}
	n, err := rowsAffected(s.exec(ctx, `INSERT INTO machine_ops (id, host, ref, kind, args, wait, status, result, exit_code)
		VALUES (?, ?, ?, ?, ?, ?, ?, '', 0) ON CONFLICT (id) DO NOTHING`, op.ID, op.Host, op.Ref, op.Kind, args, op.Wait,
		store.MachineOpPending))
	if err != nil {
		return false, fmt.Errorf("sqlstore: add machine op %s: %w", op.ID, err)
	}
	return n == 1, nil
}

// MachineOp returns op id; store.ErrNotFound when there is none.
func (s *Store) MachineOp(ctx context.Context, id string) (store.MachineOp, error) {
	op, err := s.scanMachineOp(s.queryRow(ctx, `SELECT `+machineOpColumns+` FROM machine_ops WHERE id = ?`, id))
	if err != nil {
		return store.MachineOp{}, fmt.Errorf("sqlstore: machine op %s: %w", id, err)
	}
	return op, nil
}

// PendingMachineOps lists up to limit pending ops of host (of machine ref only, unless ref is
// ""), in the order asked, through the partial index machine_ops_pending.
func (s *Store) PendingMachineOps(ctx context.Context, host, ref string, limit int) ([]store.MachineOp, error) {
	return list(ctx, s.queries, "machine ops", s.scanMachineOp, `SELECT `+machineOpColumns+` FROM machine_ops
		WHERE host = ? AND status = 'pending' AND (? = '' OR ref = ?) ORDER BY seq LIMIT ?`, host, ref, ref, limit)
}

// FinishMachineOp records the outcome of a pending op.
func (s *Store) FinishMachineOp(ctx context.Context, id, status, result string, exit int) error {
	if status != store.MachineOpDone && status != store.MachineOpFailed {
		return fmt.Errorf("sqlstore: finish machine op %s: status %q", id, status)
	}
	sealed, err := s.seal(machineOpResult, id, noOwner, result)
	if err != nil {
		return err
	}
	res, err := s.exec(ctx, `UPDATE machine_ops SET status = ?, result = ?, exit_code = ? WHERE id = ? AND status = 'pending'`,
		status, sealed, exit, id)
	return checkOneRow(res, err, "finish machine op", id)
}

// DeleteMachineOp forgets op id.
func (s *Store) DeleteMachineOp(ctx context.Context, id string) error {
	if _, err := s.exec(ctx, `DELETE FROM machine_ops WHERE id = ?`, id); err != nil {
		return fmt.Errorf("sqlstore: delete machine op %s: %w", id, err)
	}
	return nil
}

// ChangeVersion is a version of the database that moves at every change another process may
// have made to the rows the triggers of migrations 0012 and 0014 watch that names no account (a
// new machine op among them; a change of an account's rows moves only that account's version,
// see pgchanges), heard through PostgreSQL's notifications; ok is false when it cannot tell
// (while the watcher is not listening, and always on SQLite, which one process serves). The
// sandbox datacenter's reconciler looks for its ops when the version moved, or when ok is false.
func (s *Store) ChangeVersion(ctx context.Context) (version uint64, ok bool) {
	if s.changes == nil {
		return 0, false
	}
	return s.changes(ctx)
}
