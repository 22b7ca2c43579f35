package api

import (
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/wire"
)

// The JSON bodies of the spec: the wire package's, and the requests only the server reads.

// timestamp renders a time as RFC 3339 in UTC.
func timestamp(t time.Time) string { return string(appendTimestamp(make([]byte, 0, 32), t)) }

// appendTimestamp appends timestamp's text of t to b.
func appendTimestamp(b []byte, t time.Time) []byte { return t.UTC().AppendFormat(b, time.RFC3339) }

// optional turns "" into null.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// The bodies of the catalogue, the account and quotes live in the wire package, shared with
// the provider's client; the views are their money.Micros instances, converted into here.
type (
	HealthView         = wire.Health
	DollarView         = wire.Dollar
	AccountView        = wire.Account
	WebhookView        = wire.WebhookSettings
	WebhookTestView    = wire.WebhookTestResult
	BalanceView        = wire.Balance[money.Micros]
	PaymentView        = wire.Payment[money.Micros]
	DatacenterTermView = wire.DatacenterTerm
	DatacenterView     = wire.Datacenter
	LocationView       = wire.Location
	TemplateView       = wire.Template
	PriceView          = wire.Price[money.Micros]
	FeatureView        = wire.Feature[money.Micros]
	PlanTrafficView    = wire.PlanTraffic[money.Micros]
	PlanView           = wire.Plan[money.Micros]
	AppInputView       = wire.AppInput
	AppView            = wire.App
	QuoteView          = wire.Quote[money.Micros]
)

func newAccountJSON(a store.Account, webhookConfigured bool) AccountView {
	created := timestamp(a.KeyCreatedAt)
	return AccountView{
		ID: a.ID, APIKeyHint: optional(a.KeyHint), APIKeyCreatedAt: &created, WebhookConfigured: webhookConfigured,
		ServerLimit: int64(a.ServerLimit), APIOrderLimit: int64(a.OrderLimit), Language: a.Language,
	}
}

func newBalanceJSON(b service.Balance) BalanceView {
	return BalanceView{Balance: b.Balance, Debt: b.Debt, Reserved: b.Reserved, Available: b.Available,
		HoursUntilBalanceZero: b.HoursUntilBalanceZero, ActiveInstances: int64(b.ActiveInstances),
		PendingOrders: int64(b.PendingOrders)}
}

func newPaymentJSON(p store.Payment) PaymentView {
	paid := timestamp(p.PaidAt)
	return PaymentView{ID: p.ID, Amount: p.Amount, PaymentType: optional(p.Type), PaidAt: &paid}
}

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

func newPlanJSON(p service.PlanDetail, lang catalog.Lang) PlanView {
	dc := newDatacenterJSON(p.Datacenter, lang)
	loc := newLocationJSON(p.Location, lang)
	arch := p.Architecture
	out := PlanView{
		ID: p.ID, Name: p.Name.In(lang), Type: p.Type, CPU: int64(p.CPU), Memory: int64(p.MemoryGB), Disk: int64(p.DiskGB),
		TermFilter:  catalog.TermHourly,
		Prices:      []PriceView{{Term: catalog.TermHourly, Price: p.Price, Currency: "USD"}},
		CreationFee: p.CreationFee,
		Templates:   make([]TemplateView, 0, len(p.Templates)),
		Features:    make([]FeatureView, 0, len(p.Features)),
		Actions:     append([]string{}, p.Actions...),
		Datacenter:  &dc, Location: &loc,
		Traffic: &PlanTrafficView{Included: int64(p.Traffic.IncludedGB), AllowOverage: p.Traffic.AllowOverage,
			OveragePrice: p.Traffic.OveragePrice},
		Architecture: &arch,
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

func newAppJSON(a catalog.App, lang catalog.Lang) AppView {
	out := AppView{
		ID: a.ID, Name: a.Name.In(lang), Category: a.Category, Description: optional(a.Description.In(lang)),
		Requires: append([]string{}, a.Requires...), Conflicts: append([]string{}, a.Conflicts...),
		Ports: append([]string{}, a.Ports...), MinMemoryMB: int64(a.MinMemoryMB), MinDiskGB: int64(a.MinDiskGB),
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

func newQuoteJSON(q service.Quote) QuoteView {
	return QuoteView{ServerID: q.ServerID, Term: q.Term, ActiveFeatures: q.ActiveFeatures, Cost: q.Cost,
		CreationFee: q.CreationFee, Recurring: q.Recurring, Balance: q.Balance, Reserved: q.Reserved,
		SufficientBalance: q.SufficientBalance, Difference: q.Difference}
}
