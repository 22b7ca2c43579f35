package api

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
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

// CreatedOrderView is the answer of POST /instances (schema CreateInstanceResult).
type CreatedOrderView struct {
	OrderID int64        `json:"order_id"`
	Price   money.Micros `json:"price"`
	Apps    []string     `json:"apps"`
}

// OrderView is an order as GET /orders/{id} returns it (schema Order).
type OrderView struct {
	OrderID    int64               `json:"order_id"`
	Status     string              `json:"status"`
	Success    bool                `json:"success"`
	CreatedAt  *string             `json:"created_at"`
	FinishedAt *string             `json:"finished_at"`
	Server     *InstanceDetailView `json:"server"`
	Reference  *string             `json:"reference"`
}

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

// InstanceSummaryView is an instance as GET /instances lists it; InstanceDetailView adds the detail.
type InstanceSummaryView struct {
	ID              int64         `json:"id"`
	Name            string        `json:"name"`
	Status          *string       `json:"status"`
	Active          bool          `json:"active"`
	Hostname        *string       `json:"hostname"`
	ServerProductID int64         `json:"server_product_id"`
	IPv4            *string       `json:"ipv4"`
	IPv6            *string       `json:"ipv6"`
	Term            *string       `json:"term"`
	RenewalDue      *string       `json:"renewal_due"`
	Renew           bool          `json:"renew"`
	Locked          bool          `json:"locked"`
	LockReason      *string       `json:"lock_reason"`
	CreatedAt       *string       `json:"created_at"`
	ExpiredAt       *string       `json:"expired_at"`
	DatacenterID    *int64        `json:"datacenter_id"`
	LocationID      *int64        `json:"location_id"`
	TemplateID      *int64        `json:"template_id"`
	Costs           *money.Micros `json:"costs"` // nullable in the schema; the server always sends it
	PaidAmount      *money.Micros `json:"paid_amount"`
	Actions         []string      `json:"actions"`
	Snapshots       bool          `json:"snapshots"`
	Note            *string       `json:"note"`
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

// ServerProductView is the plan of an instance as the instance detail shows it.
type ServerProductView struct {
	ID     int64  `json:"id"`
	Name   string `json:"name"`
	Type   string `json:"type"`
	CPU    int    `json:"cpu"`
	Memory int    `json:"memory"`
	Disk   int    `json:"disk"`
}

// TrafficView is the traffic of an instance in its current 30-day cycle (schema Traffic).
type TrafficView struct {
	Enabled        bool    `json:"enabled"`
	Included       int     `json:"included"`
	Used           int     `json:"used"`
	Overage        int     `json:"overage"`
	AllowOverage   bool    `json:"allow_overage"`
	CycleStartDate *string `json:"cycle_start_date"`
}

func newTrafficJSON(t service.Traffic) TrafficView {
	return TrafficView{Enabled: t.Enabled, Included: t.IncludedGB, Used: t.UsedGB, Overage: t.OverageGB,
		AllowOverage: t.AllowOverage, CycleStartDate: optionalTime(t.CycleStart)}
}

// CredentialsView is how to log in to an instance; Pending is true until the datacenter has delivered a password and addresses.
type CredentialsView struct {
	Username *string `json:"username"`
	Password *string `json:"password"`
	Port     *int    `json:"port"`
	IPv4     *string `json:"ipv4"`
	IPv6     *string `json:"ipv6"`
	Pending  bool    `json:"pending"`
}

// InstanceAppView is an app queued or installed on an instance, as the instance detail lists it.
type InstanceAppView struct {
	AppID  string `json:"app_id"`
	Name   string `json:"name"`
	Status string `json:"status"`
}

// InstanceDetailView is an instance as GET /instances/{id} returns it (schema InstanceDetail).
type InstanceDetailView struct {
	InstanceSummaryView
	ServerProduct  *ServerProductView `json:"server_product"`
	Location       *LocationView      `json:"location"`
	Datacenter     *DatacenterView    `json:"datacenter"`
	Template       *TemplateView      `json:"template"`
	Traffic        *TrafficView       `json:"traffic"`
	Credentials    *CredentialsView   `json:"credentials"`
	Apps           []InstanceAppView  `json:"apps"`
	IPChangeCost   money.Micros       `json:"ip_change_cost"`
	ActiveFeatures []string           `json:"active_features"`
	OrderID        int64              `json:"order_id"`
	Recurring      money.Micros       `json:"recurring"`
}

func newInstanceDetailJSON(d service.InstanceDetail, lang catalog.Lang) InstanceDetailView {
	loc := newLocationJSON(d.Location, lang)
	dc := newDatacenterJSON(d.Datacenter, lang)
	traffic := newTrafficJSON(d.Traffic)
	out := InstanceDetailView{
		InstanceSummaryView: newInstanceSummaryJSON(d),
		ServerProduct: &ServerProductView{ID: d.Plan.ID, Name: d.Plan.Name.In(lang), Type: d.Plan.Type, CPU: d.Plan.CPU,
			Memory: d.Plan.MemoryGB, Disk: d.Plan.DiskGB},
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
		port := d.Port
		c.Port = &port
	}
	if !d.CredentialsPending {
		c.Password = optional(d.Password)
	}
	return c
}

// CanceledInstanceView is the answer of DELETE /instances/{id} (schema CancelInstanceResult).
type CanceledInstanceView struct {
	ID     int64  `json:"id"`
	Status string `json:"status"`
	Active bool   `json:"active"`
}

type updateInstanceRequestJSON struct {
	Name  *string `json:"name"`
	Note  *string `json:"note"`
	Renew *bool   `json:"renew"`
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

// ActionResultView is the answer of an action; fields that do not apply to it are nil (schema ActionResult).
type ActionResultView struct {
	Action          string        `json:"action"`
	Success         bool          `json:"success"`
	Password        *string       `json:"password"`
	IPv4            *string       `json:"ipv4"`
	Clean           *bool         `json:"clean"`
	Debt            *money.Micros `json:"debt"`
	ConsoleURL      *string       `json:"console_url"`
	ConsolePassword *string       `json:"console_password"`
	QueuedApps      []string      `json:"queued_apps"`
	Charged         *money.Micros `json:"charged"`
	ServerProductID *int64        `json:"server_product_id"`
}

func newActionResultJSON(r service.ActionResult) ActionResultView {
	return ActionResultView{Action: r.Action, Success: true, Password: r.Password, IPv4: r.IPv4, Clean: r.Clean,
		Debt: r.Debt, ConsoleURL: r.ConsoleURL, ConsolePassword: r.ConsolePassword, QueuedApps: r.QueuedApps,
		Charged: r.Charged, ServerProductID: r.ServerProductID}
}

// ResizeOptionView is a plan an instance can be resized to.
type ResizeOptionView struct {
	ID        int64         `json:"id"`
	Name      string        `json:"name"`
	Type      string        `json:"type"`
	CPU       int           `json:"cpu"`
	Memory    float64       `json:"memory"` // a number in the schema: GB, whole for the seeded plans
	Disk      int           `json:"disk"`
	Price     *money.Micros `json:"price"`
	Term      string        `json:"term"`
	ChargeNow money.Micros  `json:"charge_now"`
	NewCost   money.Micros  `json:"new_cost"`
}

// ResizeOptionsView is the answer of GET /instances/{id}/resize-options (schema ResizeOptions).
type ResizeOptionsView struct {
	InstanceID             int64              `json:"instance_id"`
	CurrentServerProductID int64              `json:"current_server_product_id"`
	Term                   string             `json:"term"`
	Options                []ResizeOptionView `json:"options"`
}

func newResizeOptionsJSON(o service.ResizeOptions, lang catalog.Lang) ResizeOptionsView {
	out := ResizeOptionsView{InstanceID: o.InstanceID, CurrentServerProductID: o.CurrentPlanID, Term: catalog.TermHourly,
		Options: make([]ResizeOptionView, 0, len(o.Options))}
	for _, opt := range o.Options {
		price := opt.Plan.Price
		out.Options = append(out.Options, ResizeOptionView{ID: opt.Plan.ID, Name: opt.Plan.Name.In(lang), Type: opt.Plan.Type,
			CPU: opt.Plan.CPU, Memory: float64(opt.Plan.MemoryGB), Disk: opt.Plan.DiskGB, Price: &price, Term: catalog.TermHourly,
			ChargeNow: opt.ChargeNow, NewCost: opt.NewCost})
	}
	return out
}

// AppInstallView is one app install of an instance.
type AppInstallView struct {
	AppID      string         `json:"app_id"`
	Name       string         `json:"name"`
	Status     string         `json:"status"`
	Stage      string         `json:"stage"`
	Attempts   int            `json:"attempts"`
	Result     map[string]any `json:"result"` // a free-form object in the schema
	Error      string         `json:"error"`
	LogTail    string         `json:"log_tail"`
	StartedAt  *string        `json:"started_at"`
	FinishedAt *string        `json:"finished_at"`
}

// InstanceAppsView is the answer of GET /instances/{id}/apps; Installs are newest first (schema InstanceApps).
type InstanceAppsView struct {
	ServerID  int64            `json:"server_id"`
	Supported bool             `json:"supported"`
	Installs  []AppInstallView `json:"installs"`
}

func newInstanceAppsJSON(a service.InstanceApps, lang catalog.Lang) InstanceAppsView {
	out := InstanceAppsView{ServerID: a.ServerID, Supported: a.Supported, Installs: make([]AppInstallView, 0, len(a.Installs))}
	for _, r := range a.Installs {
		result := make(map[string]any, len(r.Result))
		for k, v := range r.Result {
			result[k] = v
		}
		out.Installs = append(out.Installs, AppInstallView{AppID: r.AppID, Name: r.App.Name.In(lang), Status: r.Status,
			Stage: r.Stage, Attempts: r.Attempts, Result: result, Error: r.Error, LogTail: r.LogTail,
			StartedAt: optionalTime(r.StartedAt), FinishedAt: optionalTime(r.FinishedAt)})
	}
	return out
}

type installAppsRequestJSON struct {
	Apps      []string                     `json:"apps"`
	AppInputs map[string]map[string]string `json:"app_inputs"`
}

// InstalledAppsView is the answer of POST /instances/{id}/apps (schema InstallAppsResult).
type InstalledAppsView struct {
	ServerID int64    `json:"server_id"`
	Queued   []string `json:"queued"`
}
