package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// TestSimStateUpdatesAcrossReplicas updates one machine and one address pool from two replicas
// at once. Each update reads, changes and writes its row; the row lock makes them apply one
// after the other, so no update is lost (at READ COMMITTED without it, two updates reading
// the same count would write the same count back).
func TestSimStateUpdatesAcrossReplicas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	first, url := openFresh(t)
	replicas := []*Store{first, openURL(t, url)}
	const updates = 40
	since := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	errs := runConcurrently(replicas, updates, func(s *Store, i int) error {
		if i%2 == 0 {
			return s.UpdateIPPool(ctx, 2, func(p *store.IPPool) { p.Issued++; p.Taken++; p.Since = since })
		}
		return s.UpdateSimMachine(ctx, "vm-1", func(m *store.SimMachine) { m.Password += "x" })
	})
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var p store.IPPool
	err := first.UpdateIPPool(ctx, 2, func(got *store.IPPool) { p = *got })
	if err != nil || p.Issued != updates/2 || p.Taken != updates/2 || !p.Since.Equal(since) {
		t.Fatalf("pool = %+v, %v; want %d issued and taken since %v", p, err, updates/2, since)
	}
	m, err := replicas[1].SimMachine(ctx, "vm-1")
	if err != nil || len(m.Password) != updates/2 || m.Power != "" {
		t.Fatalf("machine = %+v, %v; want %d updates of the password and no power status", m, err, updates/2)
	}
}

// TestSimStateDefaults: a machine or pool never written reads as the zero value, the fail rate
// starts at 0 and the database refuses one outside 0 to 1.
func TestSimStateDefaults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, s := range map[string]*Store{"postgres": func() *Store { s, _ := openFresh(t); return s }(),
		"sqlite": mustOpen(t, OpenSQLite, t.TempDir()+"/sim.db")} {
		t.Run(name, func(t *testing.T) {
			if m, err := s.SimMachine(ctx, "vm-unknown"); err != nil || m != (store.SimMachine{}) {
				t.Fatalf("unknown machine = %+v, %v; want the zero value", m, err)
			}
			err := s.UpdateIPPool(ctx, 9, func(p *store.IPPool) {
				if *p != (store.IPPool{}) {
					t.Errorf("new pool = %+v, want the zero value", *p)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if rate, err := s.SimFailRate(ctx); err != nil || rate != 0 {
				t.Fatalf("fail rate = %v, %v; want 0", rate, err)
			}
			if err := s.SetSimFailRate(ctx, 0.25); err != nil {
				t.Fatal(err)
			}
			if err := s.SetSimFailRate(ctx, 1.5); err == nil {
				t.Fatal("fail rate 1.5 accepted")
			}
			if rate, _ := s.SimFailRate(ctx); rate != 0.25 {
				t.Fatalf("fail rate = %v, want 0.25", rate)
			}
		})
	}
}
