package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// The simulated datacenter's state (sim.State): power states, out-of-band passwords, the
// clean-IP pools and the fail rate live in the database, so every replica sharing it answers a
// client alike. Each update reads and writes its row in one transaction holding the row locked
// (FOR NO KEY UPDATE on PostgreSQL; SQLite has one writer), so concurrent updates from any
// replica apply one after the other. The update functions may run again when a transaction is
// retried.

// SimMachine returns what the simulator remembers of machine ref: the zero SimMachine for a
// machine it remembers nothing of.
func (s *Store) SimMachine(ctx context.Context, ref string) (store.SimMachine, error) {
	var m store.SimMachine
	err := s.queryRow(ctx, `SELECT power, password FROM sim_machines WHERE ref = ?`, ref).Scan(&m.Power, &m.Password)
	if err == nil {
		m.Password, err = s.open(simPassword, ref, noOwner, m.Password)
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return store.SimMachine{}, fmt.Errorf("sqlstore: sim machine %s: %w", ref, err)
	}
	return m, nil
}

// UpdateSimMachine stores what update makes of machine ref's state, under the row's lock.
func (s *Store) UpdateSimMachine(ctx context.Context, ref string, update func(*store.SimMachine)) error {
	err := s.WithTx(ctx, func(tx store.Tx) error {
		q := tx.(queries) // WithTx always passes the store's own queries
		if _, err := q.exec(ctx, `INSERT INTO sim_machines (ref, power, password) VALUES (?, '', '')
			ON CONFLICT (ref) DO NOTHING`, ref); err != nil {
			return err
		}
		var m store.SimMachine
		err := q.queryRow(ctx, `SELECT power, password FROM sim_machines WHERE ref = ?`+q.rowLock(forUpdate), ref).
			Scan(&m.Power, &m.Password)
		if err != nil {
			return err
		}
		if m.Password, err = q.open(simPassword, ref, noOwner, m.Password); err != nil {
			return err
		}
		update(&m)
		password, err := q.seal(simPassword, ref, noOwner, m.Password) // the ref is the row: known before the INSERT
		if err != nil {
			return err
		}
		_, err = q.exec(ctx, `UPDATE sim_machines SET power = ?, password = ? WHERE ref = ?`, m.Power, password, ref)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlstore: update sim machine %s: %w", ref, err)
	}
	return nil
}

// DeleteSimMachine forgets machine ref.
func (s *Store) DeleteSimMachine(ctx context.Context, ref string) error {
	if _, err := s.exec(ctx, `DELETE FROM sim_machines WHERE ref = ?`, ref); err != nil {
		return fmt.Errorf("sqlstore: delete sim machine %s: %w", ref, err)
	}
	return nil
}

// UpdateIPPool stores what update makes of the datacenter's address pool, under the row's
// lock: two replicas taking the last clean address at once give it to one of them.
func (s *Store) UpdateIPPool(ctx context.Context, datacenterID int64, update func(*store.IPPool)) error {
	err := s.WithTx(ctx, func(tx store.Tx) error {
		q := tx.(queries) // WithTx always passes the store's own queries
		if _, err := q.exec(ctx, `INSERT INTO sim_ip_pools (datacenter_id, taken, since, issued) VALUES (?, 0, NULL, 0)
			ON CONFLICT (datacenter_id) DO NOTHING`, datacenterID); err != nil {
			return err
		}
		var p store.IPPool
		err := q.queryRow(ctx, `SELECT taken, since, issued FROM sim_ip_pools WHERE datacenter_id = ?`+q.rowLock(forUpdate),
			datacenterID).Scan(&p.Taken, at(&p.Since), &p.Issued)
		if err != nil {
			return err
		}
		update(&p)
		_, err = q.exec(ctx, `UPDATE sim_ip_pools SET taken = ?, since = ?, issued = ? WHERE datacenter_id = ?`,
			p.Taken, nullTime(p.Since), p.Issued, datacenterID)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlstore: update ip pool of datacenter %d: %w", datacenterID, err)
	}
	return nil
}

// SimFailRate returns the share of simulated builds, images and operations that fail. It is
// read at every operation through the row cache, so a change is seen by this process's next
// operation and by every other replica's once the change reaches its cache (see cache.go: at
// once on SQLite, within a notification's delay on PostgreSQL). Read from the database, it would
// cost every build a round trip, the most of any in a batch of deploys.
func (s *Store) SimFailRate(ctx context.Context) (float64, error) {
	return cached(ctx, s.cache, cacheKey{kind: cachedSimFailRate}, anyChange, func() (float64, error) {
		var rate float64
		if err := s.queryRow(ctx, `SELECT fail_rate FROM sim_settings WHERE id = 1`).Scan(&rate); err != nil {
			return 0, fmt.Errorf("sqlstore: fail rate: %w", err)
		}
		return rate, nil
	})
}

// SetSimFailRate changes the fail rate of every replica sharing the database; the database
// refuses a rate outside 0 to 1.
func (s *Store) SetSimFailRate(ctx context.Context, rate float64) error {
	if _, err := s.exec(ctx, `UPDATE sim_settings SET fail_rate = ? WHERE id = 1`, rate); err != nil {
		return fmt.Errorf("sqlstore: set fail rate: %w", err)
	}
	return nil
}
