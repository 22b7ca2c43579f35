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
