package wire

// The catalogue shapes an instance's detail carries (spec: Datacenters, Locations, Plans).

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
