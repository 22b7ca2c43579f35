package resellerd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/apicall"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// TestFailingWorkerLogsOncePerStreak runs a loop whose step fails five ticks in a row, then
// succeeds: the log has one error line when the streak starts and one info line when it ends,
// not one per tick.
func TestFailingWorkerLogsOncePerStreak(t *testing.T) {
	t.Parallel()
	var log apicall.LockedBuffer
	srv, err := New(context.Background(), Config{DB: filepath.Join(t.TempDir(), "streak.db"), WorkerInterval: -1,
		Logger: slog.New(slog.NewJSONHandler(&log, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	srv.interval = time.Millisecond

	const failures = 5
	var runs atomic.Int32
	done := make(chan struct{})
	flaky := step{name: "flaky", run: func(context.Context) error {
		n := runs.Add(1)
		if n == failures+3 {
			close(done)
		}
		if n <= failures {
			return errors.New("database is down")
		}
		return nil
	}}
	l := newWorkerLoop([]step{flaky}, func(store.WorkDue) (bool, time.Time) { return true, time.Time{} })
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { srv.loop(ctx, ctx, l); close(stopped) }()
	select {
	case <-done:
	case <-time.After(eventWait):
		t.Fatal("the loop did not tick")
	}
	cancel()
	<-stopped

	var failing, recovered []map[string]any
	sc := bufio.NewScanner(strings.NewReader(log.String()))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		switch line["msg"] {
		case "worker failing":
			failing = append(failing, line)
		case "worker recovered":
			recovered = append(recovered, line)
		}
	}
	if len(failing) != 1 || failing[0]["worker"] != "flaky" || failing[0]["level"] != "ERROR" ||
		!strings.Contains(failing[0]["error"].(string), "database is down") {
		t.Fatalf("failing lines %v, want one for the streak\n%s", failing, log.String())
	}
	if len(recovered) != 1 || recovered[0]["failures"] != float64(failures) || recovered[0]["level"] != "INFO" {
		t.Fatalf("recovered lines %v, want one counting %d failures", recovered, failures)
	}
	if l.beat.last().IsZero() {
		t.Fatal("the loop never beat")
	}
}
