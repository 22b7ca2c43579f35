package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// One method per endpoint of the API. Each builds its request and leaves transport, envelope
// decoding and retries to Client.do.

// Health calls GET /health (no authentication needed).
func (c *Client) Health(ctx context.Context) (*Health, error) {
	var out Health
	return &out, c.do(ctx, request{method: http.MethodGet, path: "/health"}, &out)
}

// Dollar calls GET /api/dollar.
func (c *Client) Dollar(ctx context.Context) (*Dollar, error) {
	var out Dollar
	return &out, c.do(ctx, request{method: http.MethodGet, path: "/api/dollar"}, &out)
}

// GetAccount calls GET /account.
func (c *Client) GetAccount(ctx context.Context) (*Account, error) {
	var out Account
	return &out, c.do(ctx, request{method: http.MethodGet, path: "/account"}, &out)
}

// GetBalance calls GET /account/balance.
func (c *Client) GetBalance(ctx context.Context) (*Balance, error) {
	var out Balance
	return &out, c.do(ctx, request{method: http.MethodGet, path: "/account/balance"}, &out)
}

// ListPayments calls GET /account/payments and returns every payment, newest first.
func (c *Client) ListPayments(ctx context.Context) ([]Payment, error) {
	var out []Payment
	return out, c.do(ctx, request{method: http.MethodGet, path: "/account/payments"}, &out)
}

// ListPlans calls GET /catalog/servers for the hourly term.
func (c *Client) ListPlans(ctx context.Context, f PlanFilter) ([]Plan, error) {
	q := url.Values{"term": {"hourly"}}
	if f.DatacenterID != 0 {
		q.Set("datacenter_id", strconv.FormatInt(f.DatacenterID, 10))
	}
	if f.CountryCode != "" {
		q.Set("country_code", f.CountryCode)
	}
	var out []Plan
	return out, c.do(ctx, request{method: http.MethodGet, path: "/catalog/servers", query: q}, &out)
}

// GetPlan calls GET /catalog/servers/{server_id}.
func (c *Client) GetPlan(ctx context.Context, id int64) (*Plan, error) {
	var out Plan
	return &out, c.do(ctx, request{method: http.MethodGet, path: "/catalog/servers/" + strconv.FormatInt(id, 10)}, &out)
}

// ListDatacenters calls GET /datacenters.
func (c *Client) ListDatacenters(ctx context.Context) ([]Datacenter, error) {
	var out []Datacenter
	return out, c.do(ctx, request{method: http.MethodGet, path: "/datacenters"}, &out)
}

// ListLocations calls GET /locations, narrowed to one datacenter when datacenterID is not 0.
func (c *Client) ListLocations(ctx context.Context, datacenterID int64) ([]Location, error) {
	q := url.Values{}
	if datacenterID != 0 {
		q.Set("datacenter_id", strconv.FormatInt(datacenterID, 10))
	}
	var out []Location
	return out, c.do(ctx, request{method: http.MethodGet, path: "/locations", query: q}, &out)
}

// ListApps calls GET /catalog/apps.
func (c *Client) ListApps(ctx context.Context, f AppFilter) ([]App, error) {
	q := url.Values{}
	if f.PlanID != 0 {
		q.Set("server_id", strconv.FormatInt(f.PlanID, 10))
	}
	if f.TemplateID != 0 {
		q.Set("template_id", strconv.FormatInt(f.TemplateID, 10))
	}
	var out []App
	return out, c.do(ctx, request{method: http.MethodGet, path: "/catalog/apps", query: q}, &out)
}

// Quote calls POST /quote. It changes nothing on the server, so it is safe to retry.
func (c *Client) Quote(ctx context.Context, in QuoteRequest) (*Quote, error) {
	var out Quote
	return &out, c.do(ctx, request{method: http.MethodPost, path: "/quote", body: in, retrySafe: true}, &out)
}
