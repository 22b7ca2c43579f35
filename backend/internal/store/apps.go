package store

import (
	"context"
	"time"
)

// AppInstall is the install of one one-click app on an instance.
type AppInstall struct {
	ID         int64
	InstanceID int64
	AppID      string
	Position   int
	Status     string
	Stage      string
	Attempts   int
	Inputs     map[string]string // kept until the install has finished (service: dropInputs)
	Result     map[string]string // what the installer reports: where the app answers, generated passwords
	Error      string
	LogTail    string
	QueuedAt   time.Time
	StartedAt  time.Time // zero: not started
	FinishedAt time.Time // zero: not finished
	NextAt     time.Time // when the worker looks at it next
}

// App install statuses and stages.
const (
	InstallQueued     = "queued"
	InstallInstalling = "installing"
	InstallInstalled  = "installed"
	InstallFailed     = "failed"

	StageWaiting    = "waiting"
	StagePreparing  = "preparing"
	StageRunning    = "running"
	StageDone       = "done"
	StageFailed     = "failed"
	StageAuthFailed = "auth_failed"
)

// AppInstallQueries are the reads and writes of app installs, each a queue of installs per
// instance that the install worker works through.
type AppInstallQueries interface {
	// AddAppInstall appends an install to its instance's queue and returns it with its id and
	// position.
	AddAppInstall(ctx context.Context, a AppInstall) (AppInstall, error)
	// AppInstalls lists the installs of an instance in position order.
	AppInstalls(ctx context.Context, instanceID int64) ([]AppInstall, error)
	// OpenAppInstalls lists up to limit installs still queued or installing, by instance and
	// position.
	OpenAppInstalls(ctx context.Context, limit int) ([]AppInstall, error)
	// ClaimAppInstall takes the lease of an open install; false when another worker holds it or
	// it is no longer open.
	ClaimAppInstall(ctx context.Context, id int64, now, until time.Time) (bool, error)
	// UpdateAppInstall writes the progress of an install, its inputs and result included, and
	// drops its lease.
	UpdateAppInstall(ctx context.Context, a AppInstall) error
	// DeleteAppInstalls removes every install of an instance (its disk was rebuilt).
	DeleteAppInstalls(ctx context.Context, instanceID int64) error
}
