package api

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/wire"
)

// The JSON bodies of orders, instances, actions and app installs (spec: Resources).

// optionalTime turns the zero time into null.
func optionalTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := timestamp(t)
	return &s
}

func optionalID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

type createInstanceRequestJSON struct {
	ServerID       *int64                       `json:"server_id"`
	TemplateID     *int64                       `json:"template_id"`
	Term           *string                      `json:"term"`
	SnapshotID     *int64                       `json:"snapshot_id"`
	ActiveFeatures []string                     `json:"active_features"`
	Hostname       *string                      `json:"hostname"`
	Apps           []string                     `json:"apps"`
	AppInputs      map[string]map[string]string `json:"app_inputs"`
}

func (r createInstanceRequestJSON) request() service.OrderRequest {
	return service.OrderRequest{ServerID: r.ServerID, TemplateID: r.TemplateID, Term: r.Term, SnapshotID: r.SnapshotID,
		ActiveFeatures: r.ActiveFeatures, Hostname: r.Hostname, Apps: r.Apps, AppInputs: r.AppInputs}
}

// The instance shapes live in the wire package, shared with the provider's client; the views
// are their money.Micros instances, and this file converts the service's values into them.
type (
	CreatedOrderView     = wire.CreatedOrder[money.Micros]
	OrderView            = wire.Order[money.Micros]
	InstanceSummaryView  = wire.InstanceSummary[money.Micros]
	InstanceDetailView   = wire.InstanceDetail[money.Micros]
	ServerProductView    = wire.ServerProduct
	TrafficView          = wire.Traffic
	CredentialsView      = wire.Credentials
	InstanceAppView      = wire.InstanceApp
	CanceledInstanceView = wire.CanceledInstance
	ActionResultView     = wire.ActionResult[money.Micros]
	ResizeOptionView     = wire.ResizeOption[money.Micros]
	ResizeOptionsView    = wire.ResizeOptions[money.Micros]
	AppInstallView       = wire.AppInstall
	InstanceAppsView     = wire.InstanceApps
	InstalledAppsView    = wire.InstalledApps
)

func newOrderJSON(o service.OrderView, lang catalog.Lang) OrderView {
	out := OrderView{
		OrderID: o.ID, Status: o.Status, Success: o.Status == store.OrderDeployed,
		CreatedAt: optionalTime(o.CreatedAt), FinishedAt: optionalTime(o.FinishedAt), Reference: optional(o.Reference),
	}
	if o.Server != nil {
		d := newInstanceDetailJSON(*o.Server, lang)
		out.Server = &d
	}
	return out
}

func newInstanceSummaryJSON(d service.InstanceDetail) InstanceSummaryView {
	term := catalog.TermHourly
	out := InstanceSummaryView{
		ID: d.ID, Name: d.Name, Status: optional(d.Status), Active: d.Active, Hostname: optional(d.Hostname),
		ServerProductID: d.PlanID, IPv4: optional(d.IPv4), IPv6: optional(d.IPv6), Term: &term,
		Renew: d.Renew, Locked: d.Locked, LockReason: optional(d.LockReason),
		CreatedAt: optionalTime(d.CreatedAt), ExpiredAt: optionalTime(d.ExpiredAt),
		DatacenterID: optionalID(d.DatacenterID), LocationID: optionalID(d.LocationID), TemplateID: optionalID(d.TemplateID),
		Costs: &d.Costs, PaidAmount: &d.Paid, Actions: append([]string{}, d.Plan.Actions...),
		Snapshots: d.Active && d.Datacenter.Snapshots.PricePerGBMonth > 0, Note: optional(d.Note),
	}
	if d.Active {
		out.RenewalDue = optionalTime(d.RenewalDue)
	}
	return out
}

func newTrafficJSON(t service.Traffic) TrafficView {
	return TrafficView{Enabled: t.Enabled, Included: t.IncludedGB, Used: t.UsedGB, Overage: t.OverageGB,
		AllowOverage: t.AllowOverage, CycleStartDate: optionalTime(t.CycleStart)}
}

func newInstanceDetailJSON(d service.InstanceDetail, lang catalog.Lang) InstanceDetailView {
	loc := newLocationJSON(d.Location, lang)
	dc := newDatacenterJSON(d.Datacenter, lang)
	traffic := newTrafficJSON(d.Traffic)
	out := InstanceDetailView{
		InstanceSummary: newInstanceSummaryJSON(d),
		ServerProduct: &ServerProductView{ID: d.Plan.ID, Name: d.Plan.Name.In(lang), Type: d.Plan.Type,
			CPU: int64(d.Plan.CPU), Memory: int64(d.Plan.MemoryGB), Disk: int64(d.Plan.DiskGB)},
		Location: &loc, Datacenter: &dc,
		Template: &TemplateView{ID: d.Template.ID, Name: d.Template.Name.In(lang), OSType: d.Template.OSType},
		Traffic:  &traffic,
		Apps:     make([]InstanceAppView, 0, len(d.Apps)),
		// The price of one change_ip; 0 where it is free.
		IPChangeCost:   d.IPChangeCost,
		ActiveFeatures: make([]string, 0, len(d.Features)),
		OrderID:        d.OrderID,
		Recurring:      d.Recurring,
	}
	if d.Active {
		out.Credentials = newCredentialsJSON(d)
	}
	for _, a := range d.Apps {
		out.Apps = append(out.Apps, InstanceAppView{AppID: a.AppID, Name: a.App.Name.In(lang), Status: a.Status})
	}
	for _, f := range d.Features {
		out.ActiveFeatures = append(out.ActiveFeatures, strconv.FormatInt(f.ID, 10))
	}
	return out
}

// newCredentialsJSON shows the credentials; the password stays null while it is pending.
func newCredentialsJSON(d service.InstanceDetail) *CredentialsView {
	c := &CredentialsView{Username: optional(d.Username), IPv4: optional(d.IPv4), IPv6: optional(d.IPv6),
		Pending: d.CredentialsPending}
	if d.Port != 0 {
		port := int64(d.Port)
		c.Port = &port
	}
	if !d.CredentialsPending {
		c.Password = optional(d.Password)
	}
	return c
}

type actionRequestJSON struct {
	Action     string                       `json:"action"`
	TemplateID *int64                       `json:"template_id"`
	ServerID   *int64                       `json:"server_id"`
	AcceptCost json.RawMessage              `json:"accept_cost"`
	Apps       []string                     `json:"apps"`
	AppInputs  map[string]map[string]string `json:"app_inputs"`
	Name       *string                      `json:"name"`
	Note       *string                      `json:"note"`
}

// request converts the body; accept_cost is read exactly into micro-USD.
func (r actionRequestJSON) request() (service.ActionRequest, error) {
	out := service.ActionRequest{Action: r.Action, TemplateID: r.TemplateID, ServerID: r.ServerID, Apps: r.Apps,
		AppInputs: r.AppInputs, Name: r.Name, Note: r.Note}
	if len(r.AcceptCost) > 0 && string(r.AcceptCost) != "null" {
		cost, err := money.Parse(string(r.AcceptCost))
		if err != nil {
			return service.ActionRequest{}, service.Validation("accept_cost", "must be a number of USD, at most %s, with at most six decimals", money.Max)
		}
		out.AcceptCost = &cost
	}
	return out, nil
}

func newActionResultJSON(r service.ActionResult) ActionResultView {
	return ActionResultView{Action: r.Action, Success: true, Password: r.Password, IPv4: r.IPv4, Clean: r.Clean,
		Debt: r.Debt, ConsoleURL: r.ConsoleURL, ConsolePassword: r.ConsolePassword, QueuedApps: r.QueuedApps,
		Charged: r.Charged, ServerProductID: r.ServerProductID}
}

func newResizeOptionsJSON(o service.ResizeOptions, lang catalog.Lang) ResizeOptionsView {
	out := ResizeOptionsView{InstanceID: o.InstanceID, CurrentServerProductID: o.CurrentPlanID, Term: catalog.TermHourly,
		Options: make([]ResizeOptionView, 0, len(o.Options))}
	for _, opt := range o.Options {
		price := opt.Plan.Price
		out.Options = append(out.Options, ResizeOptionView{ID: opt.Plan.ID, Name: opt.Plan.Name.In(lang), Type: opt.Plan.Type,
			CPU: int64(opt.Plan.CPU), Memory: float64(opt.Plan.MemoryGB), Disk: int64(opt.Plan.DiskGB), Price: &price, Term: catalog.TermHourly,
			ChargeNow: opt.ChargeNow, NewCost: opt.NewCost})
	}
	return out
}

func newInstanceAppsJSON(a service.InstanceApps, lang catalog.Lang) InstanceAppsView {
	out := InstanceAppsView{ServerID: a.ServerID, Supported: a.Supported, Installs: make([]AppInstallView, 0, len(a.Installs))}
	for _, r := range a.Installs {
		result := make(map[string]any, len(r.Result))
		for k, v := range r.Result {
			result[k] = v
		}
		out.Installs = append(out.Installs, AppInstallView{AppID: r.AppID, Name: r.App.Name.In(lang), Status: r.Status,
			Stage: r.Stage, Attempts: int64(r.Attempts), Result: result, Error: r.Error, LogTail: r.LogTail,
			StartedAt: optionalTime(r.StartedAt), FinishedAt: optionalTime(r.FinishedAt)})
	}
	return out
}
