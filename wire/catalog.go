package wire

// The catalogue's bodies (spec: Datacenters, Locations, Catalog, One-click apps).

// DatacenterTerm is one billing term a datacenter sells.
type DatacenterTerm struct {
	Term    string `json:"term"`
	Enabled bool   `json:"enabled"`
}

// Datacenter is an entry of GET /datacenters (schema Datacenter).
type Datacenter struct {
	ID          int64            `json:"id"`
	Name        string           `json:"name"`
	Description *string          `json:"description"`
	Status      *string          `json:"status"`
	Enabled     bool             `json:"enabled"`
	Terms       []DatacenterTerm `json:"terms"`
	RequireKYC  bool             `json:"require_kyc"`
	// LocalSnapshots is an extension of the spec's fields: true where the datacenter keeps
	// snapshots on the server's own disk, so they end with it (the snapshot's `local`). The
	// spec shows this only after a server exists; here it can be read before ordering one.
	// resellerd always sends it; nil means an API that does not.
	LocalSnapshots *bool `json:"local_snapshots"`
}

// Location is an entry of GET /locations (schema Location).
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

// Template is an OS image a plan can be built from.
type Template struct {
	ID     int64  `json:"id"`
	Name   string `json:"name"`
	OSType string `json:"os_type"`
}

// Price is one entry of a plan's prices.
type Price[M Money] struct {
	Term     string `json:"term"`
	Price    M      `json:"price"`
	Currency string `json:"currency"`
}

// Feature is an optional, priced extra of a plan; some are forced on for certain OS types.
type Feature[M Money] struct {
	ID                 int64    `json:"id"`
	Name               string   `json:"name"`
	Price              M        `json:"price"`
	RequiredForOSTypes []string `json:"required_for_os_types"`
}

// PlanTraffic is the traffic allowance of a plan, in GB per 30 days.
type PlanTraffic[M Money] struct {
	Included     int64 `json:"included"`
	AllowOverage bool  `json:"allow_overage"`
	OveragePrice M     `json:"overage_price"`
}

// Plan is a catalogue server of GET /catalog/servers (schema Plan).
type Plan[M Money] struct {
	ID          int64           `json:"id"`
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	CPU         int64           `json:"cpu"`
	Memory      int64           `json:"memory"`
	Disk        int64           `json:"disk"`
	TermFilter  string          `json:"term_filter"`
	Prices      []Price[M]      `json:"prices"`
	CreationFee M               `json:"creation_fee"`
	Templates   []Template      `json:"templates"`
	Features    []Feature[M]    `json:"features"`
	Actions     []string        `json:"actions"`
	Datacenter  *Datacenter     `json:"datacenter"`
	Location    *Location       `json:"location"`
	Traffic     *PlanTraffic[M] `json:"traffic"`
	// Architecture is an extension (backend OpenAPI document): x86_64 or arm64; a snapshot only
	// builds servers of its own architecture. resellerd always sends it; nil means an API that
	// does not.
	Architecture *string `json:"architecture"`
}

// HourlyPrice returns the plan's price for the hourly term, the only term the API sells.
func (p Plan[M]) HourlyPrice() (M, bool) {
	for _, pr := range p.Prices {
		if pr.Term == TermHourly {
			return pr.Price, true
		}
	}
	return 0, false
}

// TermHourly is the only billing term the API sells.
const TermHourly = "hourly"

// AppInput is one setting a one-click app accepts at install time.
type AppInput struct {
	Key      string  `json:"key"`
	Label    string  `json:"label"`
	Kind     string  `json:"kind"`
	Required bool    `json:"required"`
	Default  *string `json:"default"`
	Help     *string `json:"help"`
}

// App is a one-click app of GET /catalog/apps (schema App).
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
