package client

import "github.com/reseller/terraform-provider-reseller/wire"

// Types of the order, instance, action and app-install bodies (spec: Orders, Instances, App
// install). Optional request fields are pointers or omitempty slices so "not sent" and "zero"
// stay distinct on the wire.

// Order statuses (spec: States and transitions, Order).
const (
	OrderPending  = "pending"
	OrderDeployed = "deployed"
	OrderTimedOut = "timed_out"
)

// Instance statuses the provider acts on (backend README: instance status values). Others
// (rebooting, rebuilding, resizing, restoring) are transitions that settle into one of these.
const (
	StatusOnline   = wire.StatusOnline
	StatusOffline  = wire.StatusOffline
	StatusCanceled = wire.StatusCanceled
	StatusExpired  = wire.StatusExpired
)

// Lock reasons of an instance (spec: Instance, lock_reason).
const (
	LockDebt     = "debt"
	LockTraffic  = "traffic"
	LockDeletion = "deletion"
)

// App install statuses (spec: App install record).
const (
	AppQueued     = "queued"
	AppInstalling = "installing"
	AppInstalled  = "installed"
	AppFailed     = "failed"
)

// Instance actions (spec: POST /instances/{id}/actions).
const (
	ActionPowerOn       = "power_on"
	ActionPowerOff      = "power_off"
	ActionReboot        = "reboot"
	ActionRebuild       = "rebuild"
	ActionResetPassword = "reset_password"
	ActionChangeIP      = "change_ip"
	ActionConsole       = "console"
	ActionResize        = "resize"
)

// TermHourly is the only billing term the API sells.
const TermHourly = wire.TermHourly

// The order, instance, action and app-install bodies are the wire package's, with money as
// float64 dollars. Their methods (Instance.Gone, Settled, CredentialsPending, StatusValue,
// CanceledInstance.Gone, ResizeOptions.Has) live there too.
type (
	ServerProduct         = wire.ServerProduct
	Traffic               = wire.Traffic
	Credentials           = wire.Credentials
	InstanceApp           = wire.InstanceApp
	InstanceSummary       = wire.InstanceSummary[float64]
	Instance              = wire.InstanceDetail[float64]
	Order                 = wire.Order[float64]
	UpdateInstanceRequest = wire.UpdateInstanceRequest
	CanceledInstance      = wire.CanceledInstance
	ActionResult          = wire.ActionResult[float64]
	ResizeOption          = wire.ResizeOption[float64]
	ResizeOptions         = wire.ResizeOptions[float64]
	AppInstall            = wire.AppInstall
	InstanceApps          = wire.InstanceApps
	InstallAppsRequest    = wire.InstallAppsRequest
	InstalledApps         = wire.InstalledApps
)

// CreateInstanceRequest is the body of POST /instances.
type CreateInstanceRequest struct {
	ServerID       int64                        `json:"server_id"`
	TemplateID     *int64                       `json:"template_id,omitempty"`
	Term           string                       `json:"term"`
	SnapshotID     *int64                       `json:"snapshot_id,omitempty"`
	ActiveFeatures []string                     `json:"active_features,omitempty"`
	Hostname       *string                      `json:"hostname,omitempty"`
	Apps           []string                     `json:"apps,omitempty"`
	AppInputs      map[string]map[string]string `json:"app_inputs,omitempty"`
}

// CreatedOrder is the answer of POST /instances.
type CreatedOrder struct {
	wire.CreatedOrder[float64]
	// Replayed is meta.idempotent_replay: the order was created by an earlier request with the
	// same Idempotency-Key, and nothing new was ordered.
	Replayed bool `json:"-"`
}

// ActionRequest is the body of POST /instances/{id}/actions. Only the fields the action uses
// may be set; the API rejects the others.
type ActionRequest struct {
	Action     string                       `json:"action"`
	TemplateID *int64                       `json:"template_id,omitempty"`
	ServerID   *int64                       `json:"server_id,omitempty"`
	AcceptCost *float64                     `json:"accept_cost,omitempty"`
	Apps       []string                     `json:"apps,omitempty"`
	AppInputs  map[string]map[string]string `json:"app_inputs,omitempty"`
	// Name and Note belong to update_metadata, which the provider does not send (it renames
	// and annotates with PATCH); they are here so the type is the whole schema.
	Name *string `json:"name,omitempty"`
	Note *string `json:"note,omitempty"`
}
