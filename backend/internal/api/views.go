package api

import (
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/wire"
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

// HealthView is the body of GET /health (schema Health).
type HealthView struct {
	Status string `json:"status"`
	API    string `json:"api"`
}

// DollarView is the body of GET /api/dollar: what one US dollar costs in the local currency (schema Dollar).
type DollarView struct {
	Base      string  `json:"base"`
	Currency  string  `json:"currency"`
	Price     float64 `json:"price"` // a number in the schema, though the seeded rate is whole
	UpdatedAt string  `json:"updated_at"`
}

// AccountView is the body of GET /account (schema Account).
type AccountView struct {
	ID                int64   `json:"id"`
	APIKeyHint        *string `json:"api_key_hint"`
	APIKeyCreatedAt   *string `json:"api_key_created_at"`
	WebhookConfigured bool    `json:"webhook_configured"`
	ServerLimit       int     `json:"server_limit"`
	APIOrderLimit     int     `json:"api_order_limit"`
	Language          string  `json:"language"`
}

func newAccountJSON(a store.Account, webhookConfigured bool) AccountView {
	created := timestamp(a.KeyCreatedAt)
	return AccountView{
		ID: a.ID, APIKeyHint: optional(a.KeyHint), APIKeyCreatedAt: &created, WebhookConfigured: webhookConfigured,
		ServerLimit: a.ServerLimit, APIOrderLimit: a.OrderLimit, Language: a.Language,
	}
}

// webhookRequestJSON is the body of PUT /account/webhook.
type webhookRequestJSON struct {
	URL    *string `json:"url"`
	Secret *string `json:"secret"`
}

// WebhookView is the webhook settings; it has no field for the secret, so none can leak.
type WebhookView struct {
	URL        *string  `json:"url"`
	Configured bool     `json:"configured"`
	Events     []string `json:"events"`
}

func newWebhookJSON(s service.WebhookSettings) WebhookView {
	return WebhookView{URL: optional(s.URL), Configured: s.Configured, Events: append([]string{}, s.Events...)}
}

// WebhookTestView is the answer of POST /account/webhook/test: whether the ping was delivered and the status the endpoint answered, nil when it did not (schema WebhookTestResult).
type WebhookTestView struct {
	Delivered bool `json:"delivered"`
	Status    *int `json:"status"`
}

// BalanceView is the body of GET /account/balance (schema Balance).
type BalanceView struct {
	Balance               money.Micros `json:"balance"`
	Debt                  money.Micros `json:"debt"`
	Reserved              money.Micros `json:"reserved"`
	Available             money.Micros `json:"available"`
	HoursUntilBalanceZero *float64     `json:"hours_until_balance_zero"`
	ActiveInstances       int          `json:"active_instances"`
	PendingOrders         int          `json:"pending_orders"`
}

func newBalanceJSON(b service.Balance) BalanceView {
	return BalanceView{Balance: b.Balance, Debt: b.Debt, Reserved: b.Reserved, Available: b.Available,
		HoursUntilBalanceZero: b.HoursUntilBalanceZero, ActiveInstances: b.ActiveInstances, PendingOrders: b.PendingOrders}
}

// PaymentView is a wallet top-up of GET /account/payments (schema Payment).
type PaymentView struct {
	ID          int64        `json:"id"`
	Amount      money.Micros `json:"amount"`
	PaymentType *string      `json:"payment_type"`
	PaidAt      *string      `json:"paid_at"`
}

func newPaymentJSON(p store.Payment) PaymentView {
	paid := timestamp(p.PaidAt)
	return PaymentView{ID: p.ID, Amount: p.Amount, PaymentType: optional(p.Type), PaidAt: &paid}
}

// The catalogue shapes an instance's detail carries too live in the wire package.
type (
	DatacenterTermView = wire.DatacenterTerm
	DatacenterView     = wire.Datacenter
	LocationView       = wire.Location
	TemplateView       = wire.Template
)

func newDatacenterJSON(d catalog.Datacenter, lang catalog.Lang) DatacenterView {
	return DatacenterView{
		ID: d.ID, Name: d.Name.In(lang), Description: optional(d.Description.In(lang)), Status: optional(d.Status),
		Enabled: d.Enabled, Terms: []DatacenterTermView{{Term: catalog.TermHourly, Enabled: true}}, RequireKYC: d.RequireKYC,
		LocalSnapshots: &d.Snapshots.Local,
	}
}

func newLocationJSON(l catalog.Location, lang catalog.Lang) LocationView {
	return LocationView{ID: l.ID, DatacenterID: l.DatacenterID, Name: l.Name.In(lang), Country: l.Country.In(lang),
		CountryCode: l.CountryCode, Flag: optional(l.Flag), Active: l.Active, Status: optional(l.Status)}
}

// PriceView is one entry of a plan's prices.
type PriceView struct {
	Term     string       `json:"term"`
	Price    money.Micros `json:"price"`
	Currency string       `json:"currency"`
}

// FeatureView is an optional, priced extra of a plan; some are forced on for certain OS types.
type FeatureView struct {
	ID                 int64        `json:"id"`
	Name               string       `json:"name"`
	Price              money.Micros `json:"price"`
	RequiredForOSTypes []string     `json:"required_for_os_types"`
}

// PlanTrafficView is the traffic allowance of a plan.
type PlanTrafficView struct {
	Included     int          `json:"included"`
	AllowOverage bool         `json:"allow_overage"`
	OveragePrice money.Micros `json:"overage_price"`
}

// PlanView is a catalogue server of GET /catalog/servers (schema Plan).
type PlanView struct {
	ID          int64            `json:"id"`
	Name        string           `json:"name"`
	Type        string           `json:"type"`
	CPU         int              `json:"cpu"`
	Memory      int              `json:"memory"`
	Disk        int              `json:"disk"`
	TermFilter  string           `json:"term_filter"`
	Prices      []PriceView      `json:"prices"`
	CreationFee money.Micros     `json:"creation_fee"`
	Templates   []TemplateView   `json:"templates"`
	Features    []FeatureView    `json:"features"`
	Actions     []string         `json:"actions"`
	Datacenter  *DatacenterView  `json:"datacenter"`
	Location    *LocationView    `json:"location"`
	Traffic     *PlanTrafficView `json:"traffic"`
	// Architecture is the CPU architecture; a snapshot only builds a server of its own.
	Architecture string `json:"architecture"`
}

func newPlanJSON(p service.PlanDetail, lang catalog.Lang) PlanView {
	dc := newDatacenterJSON(p.Datacenter, lang)
	loc := newLocationJSON(p.Location, lang)
	out := PlanView{
		ID: p.ID, Name: p.Name.In(lang), Type: p.Type, CPU: p.CPU, Memory: p.MemoryGB, Disk: p.DiskGB,
		TermFilter:  catalog.TermHourly,
		Prices:      []PriceView{{Term: catalog.TermHourly, Price: p.Price, Currency: "USD"}},
		CreationFee: p.CreationFee,
		Templates:   make([]TemplateView, 0, len(p.Templates)),
		Features:    make([]FeatureView, 0, len(p.Features)),
		Actions:     append([]string{}, p.Actions...),
		Datacenter:  &dc, Location: &loc,
		Traffic: &PlanTrafficView{Included: p.Traffic.IncludedGB, AllowOverage: p.Traffic.AllowOverage,
			OveragePrice: p.Traffic.OveragePrice},
		Architecture: p.Architecture,
	}
	for _, t := range p.Templates {
		out.Templates = append(out.Templates, TemplateView{ID: t.ID, Name: t.Name.In(lang), OSType: t.OSType})
	}
	for _, f := range p.Features {
		out.Features = append(out.Features, FeatureView{ID: f.ID, Name: f.Name.In(lang), Price: f.Price,
			RequiredForOSTypes: append([]string{}, f.RequiredForOSTypes...)})
	}
	return out
}

// AppInputView is one setting a one-click app accepts at install time.
type AppInputView struct {
	Key      string  `json:"key"`
	Label    string  `json:"label"`
	Kind     string  `json:"kind"`
	Required bool    `json:"required"`
	Default  *string `json:"default"`
	Help     *string `json:"help"`
}

// AppView is a one-click app of GET /catalog/apps (schema App).
type AppView struct {
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
	Inputs      []AppInputView `json:"inputs"`
}

func newAppJSON(a catalog.App, lang catalog.Lang) AppView {
	out := AppView{
		ID: a.ID, Name: a.Name.In(lang), Category: a.Category, Description: optional(a.Description.In(lang)),
		Requires: append([]string{}, a.Requires...), Conflicts: append([]string{}, a.Conflicts...),
		Ports: append([]string{}, a.Ports...), MinMemoryMB: a.MinMemoryMB, MinDiskGB: a.MinDiskGB,
		OSFamilies: append([]string{}, a.OSFamilies...), Inputs: make([]AppInputView, 0, len(a.Inputs)),
	}
	for _, in := range a.Inputs {
		out.Inputs = append(out.Inputs, AppInputView{Key: in.Key, Label: in.Label.In(lang), Kind: in.Kind,
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

// QuoteView is the answer of POST /quote (schema Quote).
type QuoteView struct {
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

func newQuoteJSON(q service.Quote) QuoteView {
	return QuoteView{ServerID: q.ServerID, Term: q.Term, ActiveFeatures: q.ActiveFeatures, Cost: q.Cost,
		CreationFee: q.CreationFee, Recurring: q.Recurring, Balance: q.Balance, Reserved: q.Reserved,
		SufficientBalance: q.SufficientBalance, Difference: q.Difference}
}
