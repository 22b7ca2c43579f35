package client

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
	StatusOnline   = "online"
	StatusOffline  = "offline"
	StatusCanceled = "canceled"
	StatusExpired  = "expired"
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
const TermHourly = "hourly"

// ServerProduct is the plan of an instance as the instance detail shows it.
type ServerProduct struct {
	ID     int64  `json:"id"`
	Name   string `json:"name"`
	Type   string `json:"type"`
	CPU    int64  `json:"cpu"`
	Memory int64  `json:"memory"`
	Disk   int64  `json:"disk"`
}

// Traffic is the traffic of an instance in its current 30-day cycle.
type Traffic struct {
	Enabled        bool    `json:"enabled"`
	Included       int64   `json:"included"`
	Used           int64   `json:"used"`
	Overage        int64   `json:"overage"`
	AllowOverage   bool    `json:"allow_overage"`
	CycleStartDate *string `json:"cycle_start_date"`
}

// Credentials are how to log in to an instance. Pending is true until the datacenter has
// delivered a password and addresses, which can last minutes after the order is deployed.
type Credentials struct {
	Username *string `json:"username"`
	Password *string `json:"password"`
	Port     *int64  `json:"port"`
	IPv4     *string `json:"ipv4"`
	IPv6     *string `json:"ipv6"`
	Pending  bool    `json:"pending"`
}

// InstanceApp is an app queued or installed on an instance, as the instance detail lists it.
type InstanceApp struct {
	AppID  string `json:"app_id"`
	Name   string `json:"name"`
	Status string `json:"status"`
}

// Instance is an instance as GET /instances/{id} returns it. GET /instances returns the summary
// fields only; the detail fields (ServerProduct to IPChangeCost) are then zero.
type Instance struct {
	ID              int64    `json:"id"`
	Name            string   `json:"name"`
	Status          *string  `json:"status"`
	Active          bool     `json:"active"`
	Hostname        *string  `json:"hostname"`
	ServerProductID int64    `json:"server_product_id"`
	IPv4            *string  `json:"ipv4"`
	IPv6            *string  `json:"ipv6"`
	Term            *string  `json:"term"`
	RenewalDue      *string  `json:"renewal_due"`
	Renew           bool     `json:"renew"`
	Locked          bool     `json:"locked"`
	LockReason      *string  `json:"lock_reason"`
	CreatedAt       *string  `json:"created_at"`
	ExpiredAt       *string  `json:"expired_at"`
	DatacenterID    *int64   `json:"datacenter_id"`
	LocationID      *int64   `json:"location_id"`
	TemplateID      *int64   `json:"template_id"`
	Costs           *float64 `json:"costs"`
	PaidAmount      *float64 `json:"paid_amount"`
	Actions         []string `json:"actions"`
	Snapshots       bool     `json:"snapshots"`
	// Note is the note set with PATCH (an extension of the spec's summary fields; nil when the
	// API does not send it).
	Note *string `json:"note"`

	ServerProduct *ServerProduct `json:"server_product"`
	Location      *Location      `json:"location"`
	Datacenter    *Datacenter    `json:"datacenter"`
	Template      *Template      `json:"template"`
	Traffic       *Traffic       `json:"traffic"`
	Credentials   *Credentials   `json:"credentials"`
	Apps          []InstanceApp  `json:"apps"`
	IPChangeCost  float64        `json:"ip_change_cost"`

	// Extensions of the instance detail (backend OpenAPI document); nil when not sent.

	// ActiveFeatures are the ids of the features billed on the instance, forced ones included.
	ActiveFeatures []string `json:"active_features"`
	// OrderID is the order that built the instance.
	OrderID *int64 `json:"order_id"`
	// Recurring is the USD charged at each hourly renewal: the plan and its features.
	Recurring *float64 `json:"recurring"`
}

// StatusValue returns the status, or "" when the provider has not reported one yet.
func (in Instance) StatusValue() string {
	if in.Status == nil {
		return ""
	}
	return *in.Status
}

// Gone reports whether the instance no longer exists for its owner: canceled or expired.
func (in Instance) Gone() bool { return gone(in.Active, in.StatusValue()) }

// gone is the one rule for an instance that no longer exists for its owner.
func gone(active bool, status string) bool {
	return !active || status == StatusCanceled || status == StatusExpired
}

// Settled reports whether the instance is at rest: online or offline with its credentials
// delivered, so no build, rebuild, resize, reboot or restore is still running. Waits for any of
// those end here.
func (in Instance) Settled() bool {
	s := in.StatusValue()
	return (s == StatusOnline || s == StatusOffline) && !in.CredentialsPending()
}

// CredentialsPending reports whether the datacenter has not delivered the credentials yet.
func (in Instance) CredentialsPending() bool {
	return in.Credentials != nil && in.Credentials.Pending
}

// Order is an order placed with POST /instances (GET /orders/{id}).
type Order struct {
	OrderID    int64     `json:"order_id"`
	Status     string    `json:"status"`
	Success    bool      `json:"success"`
	CreatedAt  *string   `json:"created_at"`
	FinishedAt *string   `json:"finished_at"`
	Server     *Instance `json:"server"`
	Reference  *string   `json:"reference"`
}

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
	OrderID int64    `json:"order_id"`
	Price   float64  `json:"price"`
	Apps    []string `json:"apps"`
	// Replayed is meta.idempotent_replay: the order was created by an earlier request with the
	// same Idempotency-Key, and nothing new was ordered.
	Replayed bool `json:"-"`
}

// UpdateInstanceRequest is the body of PATCH /instances/{id}; nil fields are left unchanged.
type UpdateInstanceRequest struct {
	Name  *string `json:"name,omitempty"`
	Note  *string `json:"note,omitempty"`
	Renew *bool   `json:"renew,omitempty"`
}

// CanceledInstance is the answer of DELETE /instances/{id}.
type CanceledInstance struct {
	ID     int64  `json:"id"`
	Status string `json:"status"`
	Active bool   `json:"active"`
}

// Gone reports whether the answer says the instance is no longer active. An answer without a
// status says nothing (a body the API did not send, or one missing its fields): it is not taken
// for a cancellation, so the caller confirms with a read.
func (c CanceledInstance) Gone() bool { return c.Status != "" && gone(c.Active, c.Status) }

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

// ActionResult is the answer of an action; fields that do not apply to it are nil.
type ActionResult struct {
	Action          string   `json:"action"`
	Success         bool     `json:"success"`
	Password        *string  `json:"password"`
	IPv4            *string  `json:"ipv4"`
	Clean           *bool    `json:"clean"`
	Debt            *float64 `json:"debt"`
	ConsoleURL      *string  `json:"console_url"`
	ConsolePassword *string  `json:"console_password"`
	QueuedApps      []string `json:"queued_apps"`
	Charged         *float64 `json:"charged"`
	ServerProductID *int64   `json:"server_product_id"`
}

// ResizeOption is a plan an instance can be resized to.
type ResizeOption struct {
	ID        int64    `json:"id"`
	Name      string   `json:"name"`
	Type      string   `json:"type"`
	CPU       int64    `json:"cpu"`
	Memory    float64  `json:"memory"`
	Disk      int64    `json:"disk"`
	Price     *float64 `json:"price"`
	Term      string   `json:"term"`
	ChargeNow float64  `json:"charge_now"`
	NewCost   float64  `json:"new_cost"`
}

// ResizeOptions is the answer of GET /instances/{id}/resize-options.
type ResizeOptions struct {
	InstanceID             int64          `json:"instance_id"`
	CurrentServerProductID int64          `json:"current_server_product_id"`
	Term                   string         `json:"term"`
	Options                []ResizeOption `json:"options"`
}

// Has reports whether planID is one of the options.
func (r ResizeOptions) Has(planID int64) bool {
	for _, o := range r.Options {
		if o.ID == planID {
			return true
		}
	}
	return false
}

// AppInstall is one app install of an instance (GET /instances/{id}/apps).
type AppInstall struct {
	AppID      string         `json:"app_id"`
	Name       string         `json:"name"`
	Status     string         `json:"status"`
	Stage      string         `json:"stage"`
	Attempts   int64          `json:"attempts"`
	Result     map[string]any `json:"result"`
	Error      string         `json:"error"`
	LogTail    string         `json:"log_tail"`
	StartedAt  *string        `json:"started_at"`
	FinishedAt *string        `json:"finished_at"`
}

// InstanceApps is the answer of GET /instances/{id}/apps; Installs are newest first.
type InstanceApps struct {
	ServerID  int64        `json:"server_id"`
	Supported bool         `json:"supported"`
	Installs  []AppInstall `json:"installs"`
}

// InstallAppsRequest is the body of POST /instances/{id}/apps.
type InstallAppsRequest struct {
	Apps      []string                     `json:"apps"`
	AppInputs map[string]map[string]string `json:"app_inputs,omitempty"`
}

// InstalledApps is the answer of POST /instances/{id}/apps.
type InstalledApps struct {
	ServerID int64    `json:"server_id"`
	Queued   []string `json:"queued"`
}
