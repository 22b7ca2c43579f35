package pgchanges

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/reseller/terraform-provider-reseller/backend/internal/testbuf"
)

// TestWatcherWithoutDatabase starts a watcher on an address nothing listens on: it never
// vouches for a version, logs its failing streak once however often it retries, and Close
// stops it.
func TestWatcherWithoutDatabase(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://nobody@%s/none?sslmode=disable&connect_timeout=1", addr))
	if err != nil {
		t.Fatal(err)
	}
	var out testbuf.Buffer
	w := Start(context.Background(), cfg, slog.New(slog.NewTextHandler(&out, nil)))
	time.Sleep(time.Second) // several attempts: 100, 200, 400 ms apart
	if _, ok := w.Version(context.Background()); ok {
		t.Fatal("a watcher that never listened vouched for a version")
	}
	closed := make(chan struct{})
	go func() { w.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(time.Minute): // only keeps a broken test from hanging
		t.Fatal("Close did not return within a minute")
	}
	if n := strings.Count(out.String(), "level=WARN"); n != 1 {
		t.Fatalf("%d warnings for one streak of failures, want 1:\n%s", n, out.String())
	}
}

// TestNotificationsMoveTheirAccount: a notification naming an account moves that account's
// version and the count of scoped changes, not the database's version, so the read cache keeps
// every other account's entries; one naming none (or not an account) moves the database's.
func TestNotificationsMoveTheirAccount(t *testing.T) {
	t.Parallel()
	w := &Watcher{}
	w.gen.Store(1) // listening
	version := func() uint64 { v, _ := w.Version(context.Background()); return v }
	steps := []struct {
		payload          string
		version, scoped  uint64
		account42, other uint64
	}{
		{"42", 1, 1, 1, 0},
		{"42", 1, 2, 2, 0},
		{"", 3, 2, 2, 0},
		{"not an account", 5, 2, 2, 0},
		{"-7", 7, 2, 2, 0},
		{"43", 7, 3, 2, 3},
		{"42", 7, 4, 4, 3},
	}
	for _, st := range steps {
		w.changed(st.payload)
		got := []uint64{version(), w.Scoped(), w.Scope(42), w.Scope(43)}
		want := []uint64{st.version, st.scoped, st.account42, st.other}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("after a notification %q: version, scoped, account 42, account 43 = %v, want %v", st.payload, got, want)
		}
	}
}

// TestSharedSlotNeverGoesBack: two changes of accounts that share a slot may raise it in either
// order; the slot keeps the later stamp, so an entry dated by it before the later change is not
// served again after the earlier one lands.
func TestSharedSlotNeverGoesBack(t *testing.T) {
	t.Parallel()
	w := &Watcher{}
	earlier, later := w.scoped.Add(1), w.scoped.Add(1)
	raise(w.slot(7), later)
	raise(w.slot(7+scopeSlots), earlier)
	if got := w.Scope(7); got != later {
		t.Fatalf("account 7's version after the earlier stamp landed last: %d, want %d", got, later)
	}
}
