package api

import (
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// The types in this file are the JSON bodies of the spec; nothing else decides the wire shape.

// timestamp renders a time as RFC 3339 in UTC.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// optional turns "" into null.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

type healthJSON struct {
	Status string `json:"status"`
	API    string `json:"api"`
}

type dollarJSON struct {
	Base      string `json:"base"`
	Currency  string `json:"currency"`
	Price     int64  `json:"price"`
	UpdatedAt string `json:"updated_at"`
}

type accountJSON struct {
	ID                int64   `json:"id"`
	APIKeyHint        *string `json:"api_key_hint"`
	APIKeyCreatedAt   *string `json:"api_key_created_at"`
	WebhookConfigured bool    `json:"webhook_configured"`
	ServerLimit       int     `json:"server_limit"`
	APIOrderLimit     int     `json:"api_order_limit"`
	Language          string  `json:"language"`
}

func newAccountJSON(a store.Account, webhookConfigured bool) accountJSON {
	created := timestamp(a.KeyCreatedAt)
	return accountJSON{
		ID: a.ID, APIKeyHint: optional(a.KeyHint), APIKeyCreatedAt: &created, WebhookConfigured: webhookConfigured,
		ServerLimit: a.ServerLimit, APIOrderLimit: a.OrderLimit, Language: a.Language,
	}
}

// webhookRequestJSON is the body of PUT /account/webhook.
type webhookRequestJSON struct {
	URL    *string `json:"url"`
	Secret *string `json:"secret"`
}

// webhookJSON is the webhook settings; it has no field for the secret, so none can leak.
type webhookJSON struct {
	URL        *string  `json:"url"`
	Configured bool     `json:"configured"`
	Events     []string `json:"events"`
}

func newWebhookJSON(s service.WebhookSettings) webhookJSON {
	return webhookJSON{URL: optional(s.URL), Configured: s.Configured, Events: append([]string{}, s.Events...)}
}

type pingJSON struct {
	Delivered bool `json:"delivered"`
	Status    *int `json:"status"`
}

type balanceJSON struct {
	Balance               money.Micros `json:"balance"`
	Debt                  money.Micros `json:"debt"`
	Reserved              money.Micros `json:"reserved"`
	Available             money.Micros `json:"available"`
	HoursUntilBalanceZero *float64     `json:"hours_until_balance_zero"`
	ActiveInstances       int          `json:"active_instances"`
	PendingOrders         int          `json:"pending_orders"`
}

func newBalanceJSON(b service.Balance) balanceJSON {
	return balanceJSON{Balance: b.Balance, Debt: b.Debt, Reserved: b.Reserved, Available: b.Available,
		HoursUntilBalanceZero: b.HoursUntilBalanceZero, ActiveInstances: b.ActiveInstances, PendingOrders: b.PendingOrders}
}

type paymentJSON struct {
	ID          int64        `json:"id"`
	Amount      money.Micros `json:"amount"`
	PaymentType *string      `json:"payment_type"`
	PaidAt      *string      `json:"paid_at"`
}

func newPaymentJSON(p store.Payment) paymentJSON {
	paid := timestamp(p.PaidAt)
	return paymentJSON{ID: p.ID, Amount: p.Amount, PaymentType: optional(p.Type), PaidAt: &paid}
}

type termJSON struct {
	Term    string `json:"term"`
	Enabled bool   `json:"enabled"`
}

type datacenterJSON struct {
	ID          int64      `json:"id"`
	Name        string     `json:"name"`
	Description *string    `json:"description"`
	Status      *string    `json:"status"`
	Enabled     bool       `json:"enabled"`
	Terms       []termJSON `json:"terms"`
	RequireKYC  bool       `json:"require_kyc"`
	// LocalSnapshots is an extension of the spec's fields: true where the datacenter keeps
	// snapshots on the server's own disk, so they end with it (the snapshot's `local`). The spec
	// shows this only on a snapshot, or in the settings of a server's snapshot list, both after a
	// server exists; here it can be read before ordering one.
	LocalSnapshots bool `json:"local_snapshots"`
}

func newDatacenterJSON(d catalog.Datacenter, lang catalog.Lang) datacenterJSON {
	return datacenterJSON{
		ID: d.ID, Name: d.Name.In(lang), Description: optional(d.Description.In(lang)), Status: optional(d.Status),
		Enabled: d.Enabled, Terms: []termJSON{{Term: catalog.TermHourly, Enabled: true}}, RequireKYC: d.RequireKYC,
		LocalSnapshots: d.Snapshots.Local,
	}
}

type locationJSON struct {
	ID           int64   `json:"id"`
	DatacenterID int64   `json:"datacenter_id"`
	Name         string  `json:"name"`
	Country      string  `json:"country"`
	CountryCode  string  `json:"country_code"`
	Flag         *string `json:"flag"`
	Active       bool    `json:"active"`
	Status       *string `json:"status"`
}

func newLocationJSON(l catalog.Location, lang catalog.Lang) locationJSON {
	return locationJSON{ID: l.ID, DatacenterID: l.DatacenterID, Name: l.Name.In(lang), Country: l.Country.In(lang),
		CountryCode: l.CountryCode, Flag: optional(l.Flag), Active: l.Active, Status: optional(l.Status)}
}

type priceJSON struct {
	Term     string       `json:"term"`
	Price    money.Micros `json:"price"`
	Currency string       `json:"currency"`
}

type templateJSON struct {
	ID     int64  `json:"id"`
	Name   string `json:"name"`
	OSType string `json:"os_type"`
}

type featureJSON struct {
	ID                 int64        `json:"id"`
	Name               string       `json:"name"`
	Price              money.Micros `json:"price"`
	RequiredForOSTypes []string     `json:"required_for_os_types"`
}

type planTrafficJSON struct {
	Included     int          `json:"included"`
	AllowOverage bool         `json:"allow_overage"`
	OveragePrice money.Micros `json:"overage_price"`
}

type planJSON struct {
	ID          int64            `json:"id"`
	Name        string           `json:"name"`
	Type        string           `json:"type"`
	CPU         int              `json:"cpu"`
	Memory      int              `json:"memory"`
	Disk        int              `json:"disk"`
	TermFilter  string           `json:"term_filter"`
	Prices      []priceJSON      `json:"prices"`
	CreationFee money.Micros     `json:"creation_fee"`
	Templates   []templateJSON   `json:"templates"`
	Features    []featureJSON    `json:"features"`
	Actions     []string         `json:"actions"`
	Datacenter  *datacenterJSON  `json:"datacenter"`
	Location    *locationJSON    `json:"location"`
	Traffic     *planTrafficJSON `json:"traffic"`
	// Architecture is the CPU architecture; a snapshot only builds a server of its own.
	Architecture string `json:"architecture"`
}

func newPlanJSON(p service.PlanDetail, lang catalog.Lang) planJSON {
	dc := newDatacenterJSON(p.Datacenter, lang)
	loc := newLocationJSON(p.Location, lang)
	out := planJSON{
		ID: p.ID, Name: p.Name.In(lang), Type: p.Type, CPU: p.CPU, Memory: p.MemoryGB, Disk: p.DiskGB,
		TermFilter:  catalog.TermHourly,
		Prices:      []priceJSON{{Term: catalog.TermHourly, Price: p.Price, Currency: "USD"}},
		CreationFee: p.CreationFee,
		Templates:   make([]templateJSON, 0, len(p.Templates)),
		Features:    make([]featureJSON, 0, len(p.Features)),
		Actions:     append([]string{}, p.Actions...),
		Datacenter:  &dc, Location: &loc,
		Traffic: &planTrafficJSON{Included: p.Traffic.IncludedGB, AllowOverage: p.Traffic.AllowOverage,
			OveragePrice: p.Traffic.OveragePrice},
		Architecture: p.Architecture,
	}
	for _, t := range p.Templates {
		out.Templates = append(out.Templates, templateJSON{ID: t.ID, Name: t.Name.In(lang), OSType: t.OSType})
	}
	for _, f := range p.Features {
		out.Features = append(out.Features, featureJSON{ID: f.ID, Name: f.Name.In(lang), Price: f.Price,
			RequiredForOSTypes: append([]string{}, f.RequiredForOSTypes...)})
	}
	return out
}

type appInputJSON struct {
	Key      string  `json:"key"`
	Label    string  `json:"label"`
	Kind     string  `json:"kind"`
	Required bool    `json:"required"`
	Default  *string `json:"default"`
	Help     *string `json:"help"`
}

type appJSON struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Category    string         `json:"category"`
	Description *string        `json:"description"`
	Requires    []string       `json:"requires"`
	Conflicts   []string       `json:"conflicts"`
	Ports       []string       `json:"ports"`
	MinMemoryMB int            `json:"min_memory_mb"`
	MinDiskGB   int            `json:"min_disk_gb"`
	OSFamilies  []string       `json:"os_families"`
	Inputs      []appInputJSON `json:"inputs"`
}

func newAppJSON(a catalog.App, lang catalog.Lang) appJSON {
	out := appJSON{
		ID: a.ID, Name: a.Name.In(lang), Category: a.Category, Description: optional(a.Description.In(lang)),
		Requires: append([]string{}, a.Requires...), Conflicts: append([]string{}, a.Conflicts...),
		Ports: append([]string{}, a.Ports...), MinMemoryMB: a.MinMemoryMB, MinDiskGB: a.MinDiskGB,
		OSFamilies: append([]string{}, a.OSFamilies...), Inputs: make([]appInputJSON, 0, len(a.Inputs)),
	}
	for _, in := range a.Inputs {
		out.Inputs = append(out.Inputs, appInputJSON{Key: in.Key, Label: in.Label.In(lang), Kind: in.Kind,
			Required: in.Required, Default: optional(in.Default), Help: optional(in.Help.In(lang))})
	}
	return out
}

type quoteRequestJSON struct {
	ServerID       *int64   `json:"server_id"`
	Term           *string  `json:"term"`
	TemplateID     *int64   `json:"template_id"`
	ActiveFeatures []string `json:"active_features"`
}

type quoteJSON struct {
	ServerID          int64        `json:"server_id"`
	Term              string       `json:"term"`
	ActiveFeatures    []string     `json:"active_features"`
	Cost              money.Micros `json:"cost"`
	CreationFee       money.Micros `json:"creation_fee"`
	Recurring         money.Micros `json:"recurring"`
	Balance           money.Micros `json:"balance"`
	Reserved          money.Micros `json:"reserved"`
	SufficientBalance bool         `json:"sufficient_balance"`
	Difference        money.Micros `json:"difference"`
}

func newQuoteJSON(q service.Quote) quoteJSON {
	return quoteJSON{ServerID: q.ServerID, Term: q.Term, ActiveFeatures: q.ActiveFeatures, Cost: q.Cost,
		CreationFee: q.CreationFee, Recurring: q.Recurring, Balance: q.Balance, Reserved: q.Reserved,
		SufficientBalance: q.SufficientBalance, Difference: q.Difference}
}
