package wire

// The bodies of orders, instances, actions and app installs (spec: Orders, Instances, App
// install).

// Instance statuses a client acts on (backend README: instance status values). Others
// (rebooting, rebuilding, resizing, restoring) are transitions that settle into one of these.
const (
	StatusOnline   = "online"
	StatusOffline  = "offline"
	StatusCanceled = "canceled"
	StatusExpired  = "expired"
)

// Order is an order as GET /orders/{id} returns it (schema Order).
type Order[M Money] struct {
	OrderID    int64              `json:"order_id"`
	Status     string             `json:"status"`
	Success    bool               `json:"success"`
	CreatedAt  *string            `json:"created_at"`
	FinishedAt *string            `json:"finished_at"`
	Server     *InstanceDetail[M] `json:"server"`
	Reference  *string            `json:"reference"`
}

// InstanceSummary is an instance as GET /instances lists it (schema InstanceSummary);
// InstanceDetail adds the detail.
type InstanceSummary[M Money] struct {
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
	Costs           *M       `json:"costs"` // nullable in the schema; resellerd always sends it
	PaidAmount      *M       `json:"paid_amount"`
	Actions         []string `json:"actions"`
	Snapshots       bool     `json:"snapshots"`
	// Note is the note set with PATCH, an extension of the spec's summary fields.
	Note *string `json:"note"`
}

// StatusValue returns the status, or "" when the datacenter has not reported one yet.
func (in InstanceSummary[M]) StatusValue() string {
	if in.Status == nil {
		return ""
	}
	return *in.Status
}

// Gone reports whether the instance no longer exists for its owner: canceled or expired.
func (in InstanceSummary[M]) Gone() bool { return gone(in.Active, in.StatusValue()) }

// gone is the one rule for an instance that no longer exists for its owner.
func gone(active bool, status string) bool {
	return !active || status == StatusCanceled || status == StatusExpired
}

// ServerProduct is the plan of an instance as the instance detail shows it.
type ServerProduct struct {
	ID     int64  `json:"id"`
	Name   string `json:"name"`
	Type   string `json:"type"`
	CPU    int64  `json:"cpu"`
	Memory int64  `json:"memory"`
	Disk   int64  `json:"disk"`
}

// Traffic is the traffic of an instance in its current 30-day cycle, in GB (schema Traffic).
type Traffic struct {
	Enabled        bool    `json:"enabled"`
	Included       int     `json:"included"`
	Used           int     `json:"used"`
	Overage        int     `json:"overage"`
	AllowOverage   bool    `json:"allow_overage"`
	CycleStartDate *string `json:"cycle_start_date"`
}

// Credentials are how to log in to an instance. Pending is true until the datacenter has
// delivered a password and addresses, which can last minutes after the order is deployed;
// the password stays null while it is.
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

// InstanceDetail is an instance as GET /instances/{id} returns it (schema InstanceDetail). A
// value decoded from GET /instances has the summary fields only; the detail fields are zero.
type InstanceDetail[M Money] struct {
	InstanceSummary[M]
	ServerProduct *ServerProduct `json:"server_product"`
	Location      *Location      `json:"location"`
	Datacenter    *Datacenter    `json:"datacenter"`
	Template      *Template      `json:"template"`
	Traffic       *Traffic       `json:"traffic"`
	Credentials   *Credentials   `json:"credentials"`
	Apps          []InstanceApp  `json:"apps"`
	// IPChangeCost is the price of one change_ip; 0 where it is free.
	IPChangeCost M `json:"ip_change_cost"`

	// Extensions of the instance detail (backend OpenAPI document); zero from an API that
	// does not send them.

	// ActiveFeatures are the ids of the features billed on the instance, forced ones included.
	ActiveFeatures []string `json:"active_features"`
	// OrderID is the order that built the instance.
	OrderID int64 `json:"order_id"`
	// Recurring is what each hourly renewal charges: the plan and its features.
	Recurring M `json:"recurring"`
}

// CredentialsPending reports whether the datacenter has not delivered the credentials yet.
func (in InstanceDetail[M]) CredentialsPending() bool {
	return in.Credentials != nil && in.Credentials.Pending
}

// Settled reports whether the instance is at rest: online or offline with its credentials
// delivered, so no build, rebuild, resize, reboot or restore is still running.
func (in InstanceDetail[M]) Settled() bool {
	s := in.StatusValue()
	return (s == StatusOnline || s == StatusOffline) && !in.CredentialsPending()
}

// CreatedOrder is the answer of POST /instances (schema CreateInstanceResult).
type CreatedOrder[M Money] struct {
	OrderID int64    `json:"order_id"`
	Price   M        `json:"price"`
	Apps    []string `json:"apps"`
}

// CanceledInstance is the answer of DELETE /instances/{id} (schema CancelInstanceResult).
type CanceledInstance struct {
	ID     int64  `json:"id"`
	Status string `json:"status"`
	Active bool   `json:"active"`
}

// Gone reports whether the answer says the instance is no longer active. An answer without a
// status says nothing (a body the API did not send, or one missing its fields): it is not
// taken for a cancellation, so the caller confirms with a read.
func (c CanceledInstance) Gone() bool { return c.Status != "" && gone(c.Active, c.Status) }

// UpdateInstanceRequest is the body of PATCH /instances/{id}; nil fields are left unchanged.
type UpdateInstanceRequest struct {
	Name  *string `json:"name,omitempty"`
	Note  *string `json:"note,omitempty"`
	Renew *bool   `json:"renew,omitempty"`
}

// ActionResult is the answer of an action; fields that do not apply to it are nil (schema
// ActionResult).
type ActionResult[M Money] struct {
	Action          string   `json:"action"`
	Success         bool     `json:"success"`
	Password        *string  `json:"password"`
	IPv4            *string  `json:"ipv4"`
	Clean           *bool    `json:"clean"`
	Debt            *M       `json:"debt"`
	ConsoleURL      *string  `json:"console_url"`
	ConsolePassword *string  `json:"console_password"`
	QueuedApps      []string `json:"queued_apps"`
	Charged         *M       `json:"charged"`
	ServerProductID *int64   `json:"server_product_id"`
}

// ResizeOption is a plan an instance can be resized to.
type ResizeOption[M Money] struct {
	ID        int64   `json:"id"`
	Name      string  `json:"name"`
	Type      string  `json:"type"`
	CPU       int64   `json:"cpu"`
	Memory    float64 `json:"memory"` // a number in the schema: GB, whole for the seeded plans
	Disk      int64   `json:"disk"`
	Price     *M      `json:"price"`
	Term      string  `json:"term"`
	ChargeNow M       `json:"charge_now"`
	NewCost   M       `json:"new_cost"`
}

// ResizeOptions is the answer of GET /instances/{id}/resize-options (schema ResizeOptions).
type ResizeOptions[M Money] struct {
	InstanceID             int64             `json:"instance_id"`
	CurrentServerProductID int64             `json:"current_server_product_id"`
	Term                   string            `json:"term"`
	Options                []ResizeOption[M] `json:"options"`
}

// Has reports whether planID is one of the options.
func (r ResizeOptions[M]) Has(planID int64) bool {
	for _, o := range r.Options {
		if o.ID == planID {
			return true
		}
	}
	return false
}

// AppInstall is one app install of an instance.
type AppInstall struct {
	AppID      string         `json:"app_id"`
	Name       string         `json:"name"`
	Status     string         `json:"status"`
	Stage      string         `json:"stage"`
	Attempts   int64          `json:"attempts"`
	Result     map[string]any `json:"result"` // a free-form object in the schema
	Error      string         `json:"error"`
	LogTail    string         `json:"log_tail"`
	StartedAt  *string        `json:"started_at"`
	FinishedAt *string        `json:"finished_at"`
}

// InstanceApps is the answer of GET /instances/{id}/apps; Installs are newest first (schema
// InstanceApps).
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

// InstalledApps is the answer of POST /instances/{id}/apps (schema InstallAppsResult).
type InstalledApps struct {
	ServerID int64    `json:"server_id"`
	Queued   []string `json:"queued"`
}
