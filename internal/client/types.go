package client

import "github.com/reseller/terraform-provider-reseller/wire"

// Types in this file mirror the JSON bodies of the Reseller API (spec/reseller-api.md).
// Money is float64 here: the provider only displays and compares prices, it never books them.

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

// Price is one entry of a plan's prices.
type Price struct {
	Term     string  `json:"term"`
	Price    float64 `json:"price"`
	Currency string  `json:"currency"`
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
	// Architecture is an extension (backend OpenAPI document): x86_64 or arm64; a snapshot only
	// builds servers of its own architecture. Nil when not sent.
	Architecture *string `json:"architecture"`
}

// HourlyPrice returns the plan's price for the hourly term, the only term the API sells.
func (p Plan) HourlyPrice() (float64, bool) {
	for _, pr := range p.Prices {
		if pr.Term == "hourly" {
			return pr.Price, true
		}
	}
	return 0, false
}

// The catalogue shapes an instance's detail carries are the wire package's.
type (
	DatacenterTerm = wire.DatacenterTerm
	Datacenter     = wire.Datacenter
	Location       = wire.Location
	Template       = wire.Template
)

// AppInput is one setting a one-click app accepts at install time.
type AppInput struct {
	Key      string  `json:"key"`
	Label    string  `json:"label"`
	Kind     string  `json:"kind"`
	Required bool    `json:"required"`
	Default  *string `json:"default"`
	Help     *string `json:"help"`
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

// QuoteRequest is the body of POST /quote.
type QuoteRequest struct {
	ServerID       int64    `json:"server_id"`
	Term           string   `json:"term,omitempty"`
	TemplateID     *int64   `json:"template_id,omitempty"`
	ActiveFeatures []string `json:"active_features,omitempty"`
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

// Page is `meta.page` of a paginated list.
type Page struct {
	Total  int64 `json:"total"`
	Limit  int64 `json:"limit"`
	Offset int64 `json:"offset"`
}

// PlanFilter narrows GET /catalog/servers; zero values are not sent.
type PlanFilter struct {
	DatacenterID int64
	CountryCode  string
}

// AppFilter narrows GET /catalog/apps; zero values are not sent.
type AppFilter struct {
	PlanID     int64
	TemplateID int64
}
