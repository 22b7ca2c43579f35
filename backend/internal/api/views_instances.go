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
	return newInstanceSummaryIn(new(summaryValues), &d)
}

// summaryValues holds what the pointer fields of an instance's summary point to, so a view
// makes one allocation for them all instead of one a field (a dozen for a GET).
type summaryValues struct {
	status, hostname, ipv4, ipv6, term, renewalDue, lockReason, createdAt, expiredAt, note string
	datacenterID, locationID, templateID                                                   int64
	costs, paid                                                                            money.Micros
}

// newInstanceSummaryIn is d's summary, its pointer fields pointing into v.
func newInstanceSummaryIn(v *summaryValues, d *service.InstanceDetail) InstanceSummaryView {
	v.term, v.costs, v.paid = catalog.TermHourly, d.Costs, d.Paid
	out := InstanceSummaryView{
		ID: d.ID, Name: d.Name, Status: stringIn(&v.status, d.Status), Active: d.Active,
		Hostname: stringIn(&v.hostname, d.Hostname), ServerProductID: d.PlanID, IPv4: stringIn(&v.ipv4, d.IPv4),
		IPv6: stringIn(&v.ipv6, d.IPv6), Term: &v.term, Renew: d.Renew, Locked: d.Locked,
		LockReason: stringIn(&v.lockReason, d.LockReason),
		CreatedAt:  timeIn(&v.createdAt, d.CreatedAt), ExpiredAt: timeIn(&v.expiredAt, d.ExpiredAt),
		DatacenterID: idIn(&v.datacenterID, d.DatacenterID), LocationID: idIn(&v.locationID, d.LocationID),
		TemplateID: idIn(&v.templateID, d.TemplateID),
		Costs:      &v.costs, PaidAmount: &v.paid, Actions: append([]string{}, d.Plan.Actions...),
		Snapshots: d.Active && d.Datacenter.Snapshots.PricePerGBMonth > 0, Note: stringIn(&v.note, d.Note),
	}
	if d.Active {
		out.RenewalDue = timeIn(&v.renewalDue, d.RenewalDue)
	}
	return out
}

// stringIn is optional with the string kept in *p: p, or nil for "".
func stringIn(p *string, s string) *string {
	if s == "" {
		return nil
	}
	*p = s
	return p
}

// timeIn is optionalTime with the timestamp kept in *p.
func timeIn(p *string, t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	*p = timestamp(t)
	return p
}

// idIn is optionalID with the id kept in *p.
func idIn(p *int64, id int64) *int64 {
	if id == 0 {
		return nil
	}
	*p = id
	return p
}

func newTrafficJSON(t service.Traffic) TrafficView {
	return TrafficView{Enabled: t.Enabled, Included: t.IncludedGB, Used: t.UsedGB, Overage: t.OverageGB,
		AllowOverage: t.AllowOverage, CycleStartDate: optionalTime(t.CycleStart)}
}

// detailValues is everything an instance's detail view points to, allocated as one (see
// summaryValues): its summary's values, its nested views and its credentials.
type detailValues struct {
	summary     summaryValues
	location    LocationView
	datacenter  DatacenterView
	traffic     TrafficView
	product     ServerProductView
	template    TemplateView
	credentials credentialValues
}

func newInstanceDetailJSON(d service.InstanceDetail, lang catalog.Lang) InstanceDetailView {
	v := new(detailValues)
	v.location, v.datacenter, v.traffic = newLocationJSON(d.Location, lang), newDatacenterJSON(d.Datacenter, lang), newTrafficJSON(d.Traffic)
	v.product = ServerProductView{ID: d.Plan.ID, Name: d.Plan.Name.In(lang), Type: d.Plan.Type,
		CPU: int64(d.Plan.CPU), Memory: int64(d.Plan.MemoryGB), Disk: int64(d.Plan.DiskGB)}
	v.template = TemplateView{ID: d.Template.ID, Name: d.Template.Name.In(lang), OSType: d.Template.OSType}
	out := InstanceDetailView{
		InstanceSummary: newInstanceSummaryIn(&v.summary, &d),
		ServerProduct:   &v.product, Location: &v.location, Datacenter: &v.datacenter, Template: &v.template,
		Traffic: &v.traffic,
		Apps:    make([]InstanceAppView, 0, len(d.Apps)),
		// The price of one change_ip; 0 where it is free.
		IPChangeCost:   d.IPChangeCost,
		ActiveFeatures: make([]string, 0, len(d.Features)),
		OrderID:        d.OrderID,
		Recurring:      d.Recurring,
	}
	if d.Active {
		out.Credentials = newCredentialsIn(&v.credentials, &d)
	}
	for _, a := range d.Apps {
		out.Apps = append(out.Apps, InstanceAppView{AppID: a.AppID, Name: a.App.Name.In(lang), Status: a.Status})
	}
	for _, f := range d.Features {
		out.ActiveFeatures = append(out.ActiveFeatures, strconv.FormatInt(f.ID, 10))
	}
	return out
}

// credentialValues is a credentials view with what its fields point to (see summaryValues).
type credentialValues struct {
	view                           CredentialsView
	username, ipv4, ipv6, password string
	port                           int64
}

// newCredentialsIn shows d's credentials, made in v; the password stays null while it is pending.
func newCredentialsIn(v *credentialValues, d *service.InstanceDetail) *CredentialsView {
	c := &v.view
	*c = CredentialsView{Username: stringIn(&v.username, d.Username), IPv4: stringIn(&v.ipv4, d.IPv4),
		IPv6: stringIn(&v.ipv6, d.IPv6), Pending: d.CredentialsPending}
	if d.Port != 0 {
		v.port = int64(d.Port)
		c.Port = &v.port
	}
	if !d.CredentialsPending {
		c.Password = stringIn(&v.password, d.Password)
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
