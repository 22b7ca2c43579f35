// Package wiretest holds the JSON bodies of the API as the backend's tests decode them: the
// answers of the HTTP conformance suite (backend/apitest) are read into these types, not into
// the provider's client, so the backend's tests depend on nothing outside the backend. Money is
// float64, as a client sees it; the server's own views (backend/internal/api) write micro-USD.
//
// Every type is held to its schema of the OpenAPI document (backend/internal/openapi) by
// wiretest_test.go, both ways, so a test cannot read a field the API does not send.
package wiretest

// Health is the body of GET /health.
type Health struct {
	Status string `json:"status"`
	API    string `json:"api"`
}

// Dollar is the body of GET /api/dollar: what one US dollar costs in the reseller's local currency.
type Dollar struct {
	Base      string  `json:"base"`
	Currency  string  `json:"currency"`
	Price     float64 `json:"price"`
	UpdatedAt string  `json:"updated_at"`
}

// Account is the body of GET /account.
type Account struct {
	ID                int64   `json:"id"`
	APIKeyHint        *string `json:"api_key_hint"`
	APIKeyCreatedAt   *string `json:"api_key_created_at"`
	WebhookConfigured bool    `json:"webhook_configured"`
	ServerLimit       int64   `json:"server_limit"`
	APIOrderLimit     int64   `json:"api_order_limit"`
	Language          string  `json:"language"`
}

// Balance is the body of GET /account/balance.
type Balance struct {
	Balance               float64  `json:"balance"`
	Debt                  float64  `json:"debt"`
	Reserved              float64  `json:"reserved"`
	Available             float64  `json:"available"`
	HoursUntilBalanceZero *float64 `json:"hours_until_balance_zero"`
	ActiveInstances       int64    `json:"active_instances"`
	PendingOrders         int64    `json:"pending_orders"`
}

// Payment is a wallet top-up (GET /account/payments).
type Payment struct {
	ID          int64   `json:"id"`
	Amount      float64 `json:"amount"`
	PaymentType *string `json:"payment_type"`
	PaidAt      *string `json:"paid_at"`
}

// WebhookSettings is the body of GET, PUT and DELETE /account/webhook. The secret is never
// returned.
type WebhookSettings struct {
	URL        *string  `json:"url"`
	Configured bool     `json:"configured"`
	Events     []string `json:"events"`
}

// WebhookTestResult is the answer of POST /account/webhook/test: whether the ping was delivered
// (a 2xx answer) and the HTTP status the endpoint answered with (nil when it did not answer).
type WebhookTestResult struct {
	Delivered bool   `json:"delivered"`
	Status    *int64 `json:"status"`
}

// Plan is a catalogue server (GET /catalog/servers).
type Plan struct {
	ID          int64        `json:"id"`
	Name        string       `json:"name"`
	Type        string       `json:"type"`
	CPU         int64        `json:"cpu"`
	Memory      int64        `json:"memory"`
	Disk        int64        `json:"disk"`
	TermFilter  string       `json:"term_filter"`
	Prices      []Price      `json:"prices"`
	CreationFee float64      `json:"creation_fee"`
	Templates   []Template   `json:"templates"`
	Features    []Feature    `json:"features"`
	Actions     []string     `json:"actions"`
	Datacenter  *Datacenter  `json:"datacenter"`
	Location    *Location    `json:"location"`
	Traffic     *PlanTraffic `json:"traffic"`
	// Architecture is x86_64 or arm64; a snapshot only builds servers of its own architecture.
	Architecture *string `json:"architecture"`
}

// Price is one entry of a plan's prices.
type Price struct {
	Term     string  `json:"term"`
	Price    float64 `json:"price"`
	Currency string  `json:"currency"`
}

// Template is an OS image a plan can be built from.
type Template struct {
	ID     int64  `json:"id"`
	Name   string `json:"name"`
	OSType string `json:"os_type"`
}

// Feature is an optional, priced extra of a plan; some are forced on for certain OS types.
type Feature struct {
	ID                 int64    `json:"id"`
	Name               string   `json:"name"`
	Price              float64  `json:"price"`
	RequiredForOSTypes []string `json:"required_for_os_types"`
}

// PlanTraffic is the traffic allowance of a plan.
type PlanTraffic struct {
	Included     int64   `json:"included"`
	AllowOverage bool    `json:"allow_overage"`
	OveragePrice float64 `json:"overage_price"`
}

// Datacenter is an entry of GET /datacenters.
type Datacenter struct {
	ID          int64            `json:"id"`
	Name        string           `json:"name"`
	Description *string          `json:"description"`
	Status      *string          `json:"status"`
	Enabled     bool             `json:"enabled"`
	Terms       []DatacenterTerm `json:"terms"`
	RequireKYC  bool             `json:"require_kyc"`
	// LocalSnapshots is resellerd's extension: true where snapshots live on the server's disk.
	LocalSnapshots *bool `json:"local_snapshots"`
}

// DatacenterTerm is one billing term a datacenter sells.
type DatacenterTerm struct {
	Term    string `json:"term"`
	Enabled bool   `json:"enabled"`
}

// Location is an entry of GET /locations.
type Location struct {
	ID           int64   `json:"id"`
	DatacenterID int64   `json:"datacenter_id"`
	Name         string  `json:"name"`
	Country      string  `json:"country"`
	CountryCode  string  `json:"country_code"`
	Flag         *string `json:"flag"`
	Active       bool    `json:"active"`
	Status       *string `json:"status"`
}

// App is a one-click app of the catalogue (GET /catalog/apps).
type App struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	Category    string     `json:"category"`
	Description *string    `json:"description"`
	Requires    []string   `json:"requires"`
	Conflicts   []string   `json:"conflicts"`
	Ports       []string   `json:"ports"`
	MinMemoryMB int64      `json:"min_memory_mb"`
	MinDiskGB   int64      `json:"min_disk_gb"`
	OSFamilies  []string   `json:"os_families"`
	Inputs      []AppInput `json:"inputs"`
}

// AppInput is one setting a one-click app accepts at install time.
type AppInput struct {
	Key      string  `json:"key"`
	Label    string  `json:"label"`
	Kind     string  `json:"kind"`
	Required bool    `json:"required"`
	Default  *string `json:"default"`
	Help     *string `json:"help"`
}

// Quote is the body of a POST /quote answer.
type Quote struct {
	ServerID          int64    `json:"server_id"`
	Term              string   `json:"term"`
	ActiveFeatures    []string `json:"active_features"`
	Cost              float64  `json:"cost"`
	CreationFee       float64  `json:"creation_fee"`
	Recurring         float64  `json:"recurring"`
	Balance           float64  `json:"balance"`
	Reserved          float64  `json:"reserved"`
	SufficientBalance bool     `json:"sufficient_balance"`
	Difference        float64  `json:"difference"`
}

// Meta is the `meta` object of a success envelope (meta.settings of an instance's snapshot
// list is not read here).
type Meta struct {
	// Page is meta.page; nil unless the list was asked for with `limit`.
	Page *Page `json:"page"`
	// IdempotentReplay is true when POST /instances answered with the order of an earlier
	// request with the same Idempotency-Key.
	IdempotentReplay bool `json:"idempotent_replay"`
}

// Page is `meta.page` of a paginated list.
type Page struct {
	Total  int64 `json:"total"`
	Limit  int64 `json:"limit"`
	Offset int64 `json:"offset"`
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
	// Note is the note set with PATCH; nil when empty.
	Note *string `json:"note"`

	ServerProduct *ServerProduct `json:"server_product"`
	Location      *Location      `json:"location"`
	Datacenter    *Datacenter    `json:"datacenter"`
	Template      *Template      `json:"template"`
	Traffic       *Traffic       `json:"traffic"`
	Credentials   *Credentials   `json:"credentials"`
	Apps          []InstanceApp  `json:"apps"`
	IPChangeCost  float64        `json:"ip_change_cost"`

	// Detail fields the summary list does not send; nil there.

	// ActiveFeatures are the ids of the features billed on the instance, forced ones included.
	ActiveFeatures []string `json:"active_features"`
	// OrderID is the order that built the instance.
	OrderID *int64 `json:"order_id"`
	// Recurring is the USD charged at each hourly renewal: the plan and its features.
	Recurring *float64 `json:"recurring"`
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

// CreatedOrder is the answer of POST /instances.
type CreatedOrder struct {
	OrderID int64    `json:"order_id"`
	Price   float64  `json:"price"`
	Apps    []string `json:"apps"`
}

// CanceledInstance is the answer of DELETE /instances/{id}.
type CanceledInstance struct {
	ID     int64  `json:"id"`
	Status string `json:"status"`
	Active bool   `json:"active"`
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

// ResizeOptions is the answer of GET /instances/{id}/resize-options.
type ResizeOptions struct {
	InstanceID             int64          `json:"instance_id"`
	CurrentServerProductID int64          `json:"current_server_product_id"`
	Term                   string         `json:"term"`
	Options                []ResizeOption `json:"options"`
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

// InstalledApps is the answer of POST /instances/{id}/apps.
type InstalledApps struct {
	ServerID int64    `json:"server_id"`
	Queued   []string `json:"queued"`
}

// Snapshot is a snapshot as GET /snapshots/{id} returns it.
type Snapshot struct {
	ID              int64    `json:"id"`
	Name            string   `json:"name"`
	Status          string   `json:"status"`
	Note            *string  `json:"note"`
	Locked          bool     `json:"locked"`
	LockReason      *string  `json:"lock_reason"`
	SizeGB          *float64 `json:"size_gb"`
	Price           *float64 `json:"price"`
	PriceMonthly    *float64 `json:"price_monthly"`
	Term            string   `json:"term"`
	Accrued         *float64 `json:"accrued"`
	RenewalDue      *string  `json:"renewal_due"`
	CreatedAt       *string  `json:"created_at"`
	AvailableAt     *string  `json:"available_at"`
	ExpiredAt       *string  `json:"expired_at"`
	InstanceID      *int64   `json:"instance_id"`
	DatacenterID    *int64   `json:"datacenter_id"`
	LocationID      *int64   `json:"location_id"`
	TemplateID      *int64   `json:"template_id"`
	ServerProductID *int64   `json:"server_product_id"`
	OSType          *string  `json:"os_type"`
	SourceName      *string  `json:"source_name"`
	// Features are the names (in the request's language) of the features the instance had.
	Features   []string `json:"features"`
	Local      bool     `json:"local"`
	Restore    bool     `json:"restore"`
	PaidAmount *float64 `json:"paid_amount"`
	// Architecture is x86_64 or arm64, the architecture of the servers the snapshot builds.
	Architecture *string `json:"architecture"`
}
