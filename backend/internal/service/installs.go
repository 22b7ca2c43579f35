package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// maxInstallAttempts is how often an installer that failed on the datacenter's side is run
// before the install is given up as failed.
const maxInstallAttempts = 3

// logTailLines and logLineMax bound what of an install log log_tail keeps: its last
// logTailLines lines, each cut to logLineMax bytes, so a script printing one endless line cannot
// grow the row (and every API answer showing it) without bound.
const (
	logTailLines = 20
	logLineMax   = 512
)

// InstanceApps is GET /instances/{id}/apps: whether apps can be installed, and the installs.
type InstanceApps struct {
	ServerID  int64
	Supported bool
	Installs  []AppRecord // newest first
}

// InstanceApps lists an instance's app installs, newest first. Supported tells whether apps can
// be installed on it: they are open to the account and at least one fits its plan and OS.
func (s *Service) InstanceApps(ctx context.Context, acct store.Account, id int64) (InstanceApps, error) {
	in, err := s.instance(ctx, s.store, acct.ID, id)
	if err != nil {
		return InstanceApps{}, err
	}
	records, err := s.appRecords(ctx, in.ID)
	if err != nil {
		return InstanceApps{}, err
	}
	slices.Reverse(records)
	plan, _ := s.catalog.Plan(in.PlanID)
	tmpl, _ := s.catalog.Template(in.TemplateID)
	supported := acct.AppsEnabled && in.Active && len(s.catalog.AppsFor(plan, tmpl)) > 0
	return InstanceApps{ServerID: in.ID, Supported: supported, Installs: records}, nil
}

// InstallApps queues apps (and the dependencies they lack) on an instance and returns what was
// queued, in install order. Apps already queued, installing or installed are not queued again; a
// failed one is. An app that conflicts with one on the instance is 409 app_conflict.
func (s *Service) InstallApps(ctx context.Context, acct store.Account, id int64, ids []string, inputs map[string]map[string]string) ([]string, error) {
	if len(ids) == 0 {
		return nil, Validation("apps", "must name at least one app")
	}
	var queued []string
	err := s.store.WithTx(ctx, func(tx store.Tx) error {
		in, err := s.operable(ctx, tx, acct.ID, id)
		if err != nil {
			return err
		}
		plan, _ := s.catalog.Plan(in.PlanID)
		tmpl, _ := s.catalog.Template(in.TemplateID)
		wanted, err := s.resolveApps(acct, plan, tmpl, ids)
		if err != nil {
			return err
		}
		values, err := appInputs(wanted, inputs)
		if err != nil {
			return err
		}
		present, err := s.presentApps(ctx, tx, in.ID)
		if err != nil {
			return err
		}
		fresh := slices.DeleteFunc(wanted, func(a catalog.App) bool { return slices.ContainsFunc(present, sameApp(a)) })
		if a, b, found := firstConflict(fresh, present); found {
			return Conflict(CodeAppConflict, "%s conflicts with %s, which is on instance %d", a, b, in.ID)
		}
		queued = appIDs(fresh)
		return s.queueInstalls(ctx, tx, in.ID, fresh, values)
	})
	if err != nil {
		return nil, asServiceError(err, "install apps")
	}
	return queued, nil
}

func sameApp(a catalog.App) func(catalog.App) bool {
	return func(b catalog.App) bool { return a.ID == b.ID }
}

// presentApps lists the apps queued, installing or installed on an instance.
func (s *Service) presentApps(ctx context.Context, tx store.Tx, instanceID int64) ([]catalog.App, error) {
	installs, err := tx.AppInstalls(ctx, instanceID)
	if err != nil {
		return nil, err
	}
	var out []catalog.App
	for _, a := range installs {
		if a.Status == store.InstallFailed {
			continue
		}
		if app, ok := s.catalog.App(a.AppID); ok && !slices.ContainsFunc(out, sameApp(app)) {
			out = append(out, app)
		}
	}
	return out, nil
}

// queueInstalls adds an install per app, in order, waiting for the machine to be ready.
func (s *Service) queueInstalls(ctx context.Context, tx store.Tx, instanceID int64, apps []catalog.App, inputs map[string]map[string]string) error {
	return tx.AddAppInstalls(ctx, s.newInstalls(instanceID, apps, inputs))
}

// newInstalls are the queued installs of apps on an instance, in order, with their inputs.
func (s *Service) newInstalls(instanceID int64, apps []catalog.App, inputs map[string]map[string]string) []store.AppInstall {
	now := s.now()
	installs := make([]store.AppInstall, len(apps))
	for i, a := range apps {
		installs[i] = store.AppInstall{
			InstanceID: instanceID, AppID: a.ID, Status: store.InstallQueued, Stage: store.StageWaiting,
			Inputs: inputs[a.ID], Result: map[string]string{}, QueuedAt: now, NextAt: now,
		}
	}
	return installs
}

// InstallAppsDue moves the first open install of every instance one stage on; it is the app
// install worker's step. Per instance apps install one at a time, in queue order, so an app's
// dependencies are in place before it starts. Each instance's stage runs in the background
// (installPool) and the step does not wait for it: an installer that hangs delays only its own
// instance, until the install's bound (Config.InstallTimeout) fails it.
//
// The state machine: queued/waiting (until the machine is online with its credentials) →
// installing/preparing (the stored root password is tried: a rejected one fails the install
// with stage auth_failed) → installing/running (the installer runs; a datacenter failure is
// retried up to three attempts; an installer still running at the install's bound is stopped
// and fails the install) → installed/done, or failed/failed, which drop the install's inputs
// (dropInputs). Each stage takes AppStepDelay.
func (s *Service) InstallAppsDue(ctx context.Context) error {
	open, err := s.store.OpenAppInstalls(ctx, workBatch)
	if err != nil {
		return fmt.Errorf("service: open app installs: %w", err)
	}
	now := s.now()
	seen := map[int64]bool{}
	for _, a := range open {
		if seen[a.InstanceID] {
			continue
		}
		seen[a.InstanceID] = true
		if now.Before(a.NextAt) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !s.installs.take(a.InstanceID) {
			continue // its stage still runs, or the pool is full: at a later tick
		}
		go func() {
			defer s.installs.give(a.InstanceID)
			if err := s.advanceInstall(ctx, a); err != nil {
				s.log.ErrorContext(ctx, "app install", slog.Int64("install_id", a.ID), slog.Any("error", err))
			}
		}()
	}
	return nil
}

// InstallAllAppsDue is InstallAppsDue, returning once every stage it started has ended
// (RunDue's).
func (s *Service) InstallAllAppsDue(ctx context.Context) error {
	err := s.InstallAppsDue(ctx)
	s.installs.wait()
	return err
}

// WaitInstalls returns once no install stage runs (the shutdown's).
func (s *Service) WaitInstalls() { s.installs.wait() }

// advanceInstall claims one install and moves it one stage, within its account's share of the
// install workers (maxInstallsPerAccount): an account at its share waits for a later tick,
// before the claim, so its install is not leased meanwhile.
func (s *Service) advanceInstall(ctx context.Context, a store.AppInstall) error {
	owner, err := s.store.InstanceByID(ctx, a.InstanceID)
	if err != nil {
		return err
	}
	if !s.installs.takeAccount(owner.AccountID) {
		return nil
	}
	defer s.installs.giveAccount(owner.AccountID)
	now := s.now()
	lease := s.workLease
	if a.Stage == store.StageRunning {
		lease += s.installTimeout // the installer may run that long
	}
	ok, err := s.store.ClaimAppInstall(ctx, a.ID, now, now.Add(lease))
	if err != nil || !ok {
		return err
	}
	in, err := s.store.InstanceByID(ctx, a.InstanceID)
	if err != nil {
		return err
	}
	next := a
	switch {
	case !in.Active:
		s.failInstall(&next, store.StageFailed, "the instance was canceled", "install abandoned: instance canceled")
	case a.Stage == store.StageWaiting:
		s.startInstall(&next, in)
	case a.Stage == store.StagePreparing:
		err = s.prepareInstall(ctx, &next, in)
	case a.Stage == store.StageRunning:
		s.runInstall(ctx, &next, in)
	}
	if err != nil {
		next = a // the stage did not run; retry at the next tick
	}
	if uerr := s.store.UpdateAppInstall(ctx, next); uerr != nil {
		return uerr
	}
	if next.Status == store.InstallFailed {
		return s.failDependents(ctx, next)
	}
	return err
}

// startInstall begins an install once the machine can take it: online, credentials delivered
// and not locked. Until then it keeps waiting.
func (s *Service) startInstall(a *store.AppInstall, in store.Instance) {
	now := s.now()
	if in.Locked || now.Before(in.CredentialsAt) || in.Next.StatusAt(in.Status, now) != datacenter.StatusOnline {
		return
	}
	a.Status, a.Stage, a.Attempts = store.InstallInstalling, store.StagePreparing, a.Attempts+1
	if a.StartedAt.IsZero() {
		a.StartedAt = now
	}
	a.NextAt = now.Add(s.appStepDelay)
	a.LogTail = appendLog(a.LogTail, fmt.Sprintf("attempt %d: connecting to %s as %s", a.Attempts, in.IPv4, in.Username))
}

// prepareInstall logs in with the stored root password. A password changed behind the service's
// back fails the install with stage auth_failed.
func (s *Service) prepareInstall(ctx context.Context, a *store.AppInstall, in store.Instance) error {
	ok, err := s.dc.CheckPassword(ctx, in.MachineRef, in.Password)
	if err != nil {
		return err
	}
	if !ok {
		s.failInstall(a, store.StageAuthFailed,
			"the stored root password was rejected; it was changed on the server. Run reset_password, then install again",
			fmt.Sprintf("ssh %s@%s: Permission denied (publickey,password).", in.Username, in.IPv4))
		return nil
	}
	a.Stage, a.NextAt = store.StageRunning, s.now().Add(s.appStepDelay)
	a.LogTail = appendLog(a.LogTail, "logged in; running the installer")
	return nil
}

// runInstall runs the installer within the install's bound (installTimeout). A datacenter
// failure is retried from preparing until maxInstallAttempts have failed; an installer that
// did not finish within the bound fails the install at once (run again, it would hang again).
func (s *Service) runInstall(ctx context.Context, a *store.AppInstall, in store.Instance) {
	app, _ := s.catalog.App(a.AppID)
	ictx, cancel := context.WithTimeout(ctx, s.installTimeout)
	defer cancel()
	res, err := s.dc.InstallApp(ictx, installJob(app, a.Inputs, in))
	now := s.now()
	if err != nil && ctx.Err() == nil && errors.Is(ictx.Err(), context.DeadlineExceeded) {
		reason := fmt.Sprintf("installer timed out: not finished within %s", s.installTimeout)
		s.failInstall(a, store.StageFailed, reason, fmt.Sprintf("attempt %d: %s; it was stopped", a.Attempts, reason))
		return
	}
	if err != nil {
		reason := err.Error()
		var de *datacenter.Error
		var se *datacenter.ScriptError
		switch {
		case errors.As(err, &de):
			reason = fmt.Sprintf("installer failed on the datacenter (reference %s)", de.Reference)
		case errors.As(err, &se): // a script that ran on the machine: its output is the log
			reason = fmt.Sprintf("installer exited with status %d", se.Exit)
			a.LogTail = appendLog(a.LogTail, strings.TrimRight(se.Log, "\n"))
		}
		if a.Attempts >= maxInstallAttempts {
			s.failInstall(a, store.StageFailed, reason, reason+"; giving up after "+fmt.Sprint(a.Attempts)+" attempts")
			return
		}
		a.Attempts++
		a.Stage, a.NextAt = store.StagePreparing, now.Add(s.appStepDelay)
		a.LogTail = appendLog(a.LogTail, reason+fmt.Sprintf("; retrying (attempt %d)", a.Attempts))
		return
	}
	a.Status, a.Stage, a.Result, a.FinishedAt, a.NextAt = store.InstallInstalled, store.StageDone, res.Result, now, now
	a.Error = ""
	a.LogTail = appendLog(a.LogTail, strings.TrimRight(res.Log, "\n"))
	dropInputs(a)
}

// dropInputs forgets the inputs of an install that has finished: installed, or failed for good
// (an app that failed is queued again as a new install, with the inputs sent then). They hold
// secrets (passwords among them) that nothing reads once the installer has run, so neither the
// database nor its backups keep them.
func dropInputs(a *store.AppInstall) { a.Inputs = nil }

// installJob is what the installer gets: every input (defaults filled in) and which empty
// password inputs it must generate. The app answers on its DOMAIN input when one is set.
func installJob(app catalog.App, inputs map[string]string, in store.Instance) datacenter.AppJob {
	job := datacenter.AppJob{Ref: in.MachineRef, AppID: app.ID, Host: in.IPv4, Ports: app.Ports, Inputs: inputs}
	for _, input := range app.Inputs {
		v := inputs[input.Key]
		if input.Kind == catalog.KindPassword && v == "" {
			job.Generate = append(job.Generate, input.Key)
		}
		if input.Kind == catalog.KindDomain && v != "" {
			job.Host = v
		}
	}
	return job
}

func (s *Service) failInstall(a *store.AppInstall, stage, reason, log string) {
	now := s.now()
	a.Status, a.Stage, a.Error, a.FinishedAt, a.NextAt = store.InstallFailed, stage, reason, now, now
	a.LogTail = appendLog(a.LogTail, log)
	dropInputs(a)
}

// failDependents fails the open installs of the same instance that need the failed app, since
// they cannot work without it.
func (s *Service) failDependents(ctx context.Context, failed store.AppInstall) error {
	installs, err := s.store.AppInstalls(ctx, failed.InstanceID)
	if err != nil {
		return err
	}
	broken := map[string]bool{failed.AppID: true}
	for _, a := range installs {
		if a.Position <= failed.Position || (a.Status != store.InstallQueued && a.Status != store.InstallInstalling) {
			continue
		}
		app, _ := s.catalog.App(a.AppID)
		dep := slices.IndexFunc(app.Requires, func(id string) bool { return broken[id] })
		if dep < 0 {
			continue
		}
		broken[a.AppID] = true
		reason := "dependency " + app.Requires[dep] + " failed to install"
		s.failInstall(&a, store.StageFailed, reason, reason)
		if err := s.store.UpdateAppInstall(ctx, a); err != nil {
			return err
		}
	}
	return nil
}

// appendLog adds lines to a log tail and keeps its last logTailLines lines, each new line cut
// to logLineMax bytes and a marker.
func appendLog(tail, lines string) string {
	added := strings.Split(lines, "\n")
	for i, line := range added {
		added[i] = capLogLine(line)
	}
	all := strings.Split(strings.TrimPrefix(tail+"\n"+strings.Join(added, "\n"), "\n"), "\n")
	if len(all) > logTailLines {
		all = all[len(all)-logTailLines:]
	}
	return strings.Join(all, "\n")
}

// capLogLine cuts a line longer than logLineMax bytes (at a character's start, so the log stays
// valid UTF-8) and says how much was cut.
func capLogLine(line string) string {
	if len(line) <= logLineMax {
		return line
	}
	cut := logLineMax
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… [%d bytes cut]", line[:cut], len(line)-cut)
}
