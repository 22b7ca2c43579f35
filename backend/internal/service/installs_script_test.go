package service

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/sim"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
)

// scriptFailing is a datacenter whose installers run and exit with status 3.
type scriptFailing struct{ datacenter.Datacenter }

func (scriptFailing) InstallApp(context.Context, datacenter.AppJob) (datacenter.AppResult, error) {
	return datacenter.AppResult{}, &datacenter.ScriptError{Exit: 3, Log: "stored input ROOT_PASSWORD\nnc: bind: Address in use\n"}
}

// TestInstallScriptExitsNonZero: an installer script that exits non-zero (--machines sandbox)
// is a failed attempt under today's rules (retried, then failed), and its output is in the
// install's log.
func TestInstallScriptExitsNonZero(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "script.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	clock := &testClock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
	svc := New(Config{Store: st, Catalog: catalog.New(), Clock: clock, Logger: slog.New(slog.DiscardHandler),
		Datacenter: scriptFailing{sim.New(sim.Options{Clock: clock, State: st})}, AppStepDelay: time.Minute})
	in := store.Instance{ID: 1, MachineRef: "vm-1", IPv4: "198.18.0.2", Username: "root", Password: "pw"}
	for _, tt := range []struct {
		attempts              int
		wantStatus, wantStage string
	}{
		{1, store.InstallInstalling, store.StagePreparing},
		{maxInstallAttempts, store.InstallFailed, store.StageFailed},
	} {
		a := store.AppInstall{ID: 1, InstanceID: 1, AppID: "mysql", Status: store.InstallInstalling, Stage: store.StageRunning,
			Attempts: tt.attempts}
		svc.runInstall(ctx, &a, in)
		if a.Status != tt.wantStatus || a.Stage != tt.wantStage {
			t.Errorf("attempt %d: %s/%s, want %s/%s", tt.attempts, a.Status, a.Stage, tt.wantStatus, tt.wantStage)
		}
		for _, want := range []string{"nc: bind: Address in use", "installer exited with status 3"} {
			if !strings.Contains(a.LogTail, want) {
				t.Errorf("attempt %d: log %q lacks %q", tt.attempts, a.LogTail, want)
			}
		}
	}
}

// oneLongLine is a datacenter whose installers print one line of 1 MB and exit with status 1.
type oneLongLine struct{ datacenter.Datacenter }

func (oneLongLine) InstallApp(context.Context, datacenter.AppJob) (datacenter.AppResult, error) {
	return datacenter.AppResult{}, &datacenter.ScriptError{Exit: 1, Log: strings.Repeat("é", 1<<19) + "\n"}
}

// TestInstallLogLongLine: an installer printing one line of 1 MB leaves a log_tail bounded in
// bytes, not only in lines, its long line cut with a marker and still valid UTF-8.
func TestInstallLogLongLine(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "long.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	clock := &testClock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
	svc := New(Config{Store: st, Catalog: catalog.New(), Clock: clock, Logger: slog.New(slog.DiscardHandler),
		Datacenter: oneLongLine{sim.New(sim.Options{Clock: clock, State: st})}, AppStepDelay: time.Minute})
	in := store.Instance{ID: 1, MachineRef: "vm-1", IPv4: "198.18.0.2", Username: "root", Password: "pw"}
	a := store.AppInstall{ID: 1, InstanceID: 1, AppID: "mysql", Status: store.InstallInstalling, Stage: store.StageRunning, Attempts: 1}
	svc.runInstall(ctx, &a, in)
	if max := logTailLines * (logLineMax + 64); len(a.LogTail) > max {
		t.Fatalf("log_tail is %d bytes, want at most %d", len(a.LogTail), max)
	}
	if !strings.Contains(a.LogTail, "bytes cut]") || !utf8.ValidString(a.LogTail) {
		t.Errorf("log_tail %.120q… lacks the cut marker or is not valid UTF-8", a.LogTail)
	}
}
