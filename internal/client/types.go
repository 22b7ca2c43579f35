package client

import "github.com/reseller/terraform-provider-reseller/wire"

// The catalogue's and the account's bodies are the wire package's (spec/reseller-api.md), with
// money as float64 dollars: the provider only displays and compares prices, it never books
// them. Plan.HourlyPrice lives there too.
type (
	Health         = wire.Health
	Dollar         = wire.Dollar
	Price          = wire.Price[float64]
	Template       = wire.Template
	Feature        = wire.Feature[float64]
	PlanTraffic    = wire.PlanTraffic[float64]
	Plan           = wire.Plan[float64]
	DatacenterTerm = wire.DatacenterTerm
	Datacenter     = wire.Datacenter
	Location       = wire.Location
	AppInput       = wire.AppInput
	App            = wire.App
	Account        = wire.Account
	Balance        = wire.Balance[float64]
	Payment        = wire.Payment[float64]
	Quote          = wire.Quote[float64]
)

// QuoteRequest is the body of POST /quote.
type QuoteRequest struct {
	ServerID       int64    `json:"server_id"`
	Term           string   `json:"term,omitempty"`
	TemplateID     *int64   `json:"template_id,omitempty"`
	ActiveFeatures []string `json:"active_features,omitempty"`
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
