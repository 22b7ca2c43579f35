// Package catalog holds the seeded catalogue of datacenters, locations, plans, templates,
// features and one-click apps. It is immutable in-memory data: every accessor hands out copies,
// so no caller can change what another caller sees.
package catalog

import (
	"slices"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

// Lang selects which text of a Text is shown.
type Lang string

// The two languages of the catalogue; Persian is the API's default.
const (
	Persian Lang = "fa"
	English Lang = "en"
)

// CPU architectures of plans. A snapshot can only build a server of its own architecture.
const (
	ArchX86   = "x86_64"
	ArchARM64 = "arm64"
)

// OS types templates have; a feature's RequiredForOSTypes names them.
const (
	OSLinux   = "linux"
	OSWindows = "windows"
)

// TermHourly is the only billing term the service sells.
const TermHourly = "hourly"

// BillingHour is the length of the TermHourly term: an instance is billed one BillingHour at a
// time from its deployment and a snapshot from when it became available, and a resize charges
// the share of the current BillingHour that is left.
const BillingHour = time.Hour

// Action names an instance of a plan can support.
const (
	ActionPowerOn        = "power_on"
	ActionPowerOff       = "power_off"
	ActionReboot         = "reboot"
	ActionRebuild        = "rebuild"
	ActionResetPassword  = "reset_password"
	ActionChangeIP       = "change_ip"
	ActionConsole        = "console"
	ActionResize         = "resize"
	ActionUpdateMetadata = "update_metadata"
)

// AllActions lists the nine actions in the order the API documents them.
func AllActions() []string {
	return []string{ActionPowerOn, ActionPowerOff, ActionReboot, ActionRebuild, ActionResetPassword,
		ActionChangeIP, ActionConsole, ActionResize, ActionUpdateMetadata}
}

// Text is a name or description in both languages.
type Text struct {
	FA string
	EN string
}

// In returns the text in lang, falling back to Persian.
func (t Text) In(lang Lang) string {
	if lang == English && t.EN != "" {
		return t.EN
	}
	return t.FA
}

// SnapshotSettings is how a datacenter prices and limits snapshots.
type SnapshotSettings struct {
	PricePerGBMonth money.Micros // per GB of snapshot size and month of HoursPerMonth hours
	PerInstanceCap  int          // snapshots of one instance that may exist at once (README: choices)
	CrossLocation   bool         // a clone may be built at another location of the datacenter
	Restore         bool         // restore in place is offered; otherwise only cloning
	// Local snapshots are restore points kept on the instance's own disk: they go with the
	// instance when it is canceled or expires. Other snapshots outlive their instance.
	Local bool
}

// HoursPerMonth is the month snapshot prices are quoted for: a year of 8760 hours over twelve.
const HoursPerMonth = 730

// Offered reports whether the datacenter sells snapshots at all.
func (s SnapshotSettings) Offered() bool { return s.PricePerGBMonth > 0 }

// Datacenter is a provider site; its Status decides whether it takes orders.
type Datacenter struct {
	ID          int64
	Name        Text
	Description Text
	Status      string
	Enabled     bool
	RequireKYC  bool
	Snapshots   SnapshotSettings
	// IPChangeCost is what one change_ip costs on this datacenter's servers. Where it is 0 the
	// change is free but limited to one per FreeIPChangeInterval; where it is not, every change
	// is charged and gives a clean address, with no wait.
	IPChangeCost money.Micros
}

// FreeIPChangeInterval is the wait between two free IP changes of one instance (README).
const FreeIPChangeInterval = time.Hour

// StatusAvailable is the one datacenter status that takes orders.
const StatusAvailable = "available"

// TakesOrders reports whether new servers can be ordered here.
func (d Datacenter) TakesOrders() bool { return d.Enabled && d.Status == StatusAvailable }

// Location is a city of a datacenter.
type Location struct {
	ID           int64
	DatacenterID int64
	Name         Text
	Country      Text
	CountryCode  string
	Flag         string
	Active       bool
	Status       string
}

// Template is an OS image. Family ("ubuntu", "debian", "rocky", "windows") is what apps match on.
type Template struct {
	ID     int64
	Name   Text
	OSType string
	Family string
}

// Feature is a priced extra of a plan, billed per hour; RequiredForOSTypes forces it on.
type Feature struct {
	ID                 int64
	Name               Text
	Price              money.Micros
	RequiredForOSTypes []string
}

// RequiredFor reports whether the feature is forced on for a template of osType.
func (f Feature) RequiredFor(osType string) bool {
	return slices.Contains(f.RequiredForOSTypes, osType)
}

// Traffic is a plan's traffic allowance.
type Traffic struct {
	IncludedGB   int // per 30 days; 0 is unlimited
	AllowOverage bool
	OveragePrice money.Micros // per GB over the allowance
}

// Plan is an orderable server product of one location.
type Plan struct {
	ID           int64
	Name         Text
	Type         string
	CPU          int
	MemoryGB     int
	DiskGB       int
	Price        money.Micros // per hour
	CreationFee  money.Micros
	DatacenterID int64
	LocationID   int64
	TemplateIDs  []int64
	FeatureIDs   []int64
	Actions      []string
	Traffic      Traffic
	Architecture string // ArchX86 or ArchARM64
}

// HasTemplate reports whether the plan can be built from template id.
func (p Plan) HasTemplate(id int64) bool { return slices.Contains(p.TemplateIDs, id) }

// HasFeature reports whether the plan offers feature id.
func (p Plan) HasFeature(id int64) bool { return slices.Contains(p.FeatureIDs, id) }

// BiggerInEveryDimension reports whether q is a resize target of p: same location and
// architecture (a disk cannot move to another CPU architecture), more CPU, memory and disk.
func (p Plan) BiggerInEveryDimension(q Plan) bool {
	return q.ID != p.ID && q.LocationID == p.LocationID && q.Architecture == p.Architecture &&
		q.CPU > p.CPU && q.MemoryGB > p.MemoryGB && q.DiskGB > p.DiskGB
}

// App input kinds (README: choices table).
const (
	KindText     = "text"
	KindPassword = "password"
	KindEmail    = "email"
	KindNumber   = "number"
	KindBoolean  = "boolean"
	KindDomain   = "domain"
)

// AppInput is one setting an app accepts at install time. Every input is optional: Default, or a
// generated value where Default is empty, is used when it is not sent.
type AppInput struct {
	Key      string
	Label    Text
	Kind     string
	Required bool
	Default  string // "" is no default (null in the API)
	Help     Text   // empty is no help (null in the API)
}

// App is a one-click app.
type App struct {
	ID          string
	Name        Text
	Category    string
	Description Text
	Requires    []string
	Conflicts   []string
	Ports       []string
	MinMemoryMB int
	MinDiskGB   int
	OSFamilies  []string
	Inputs      []AppInput
}

// RunsOn reports whether the app fits plan p built from template t.
func (a App) RunsOn(p Plan, t Template) bool {
	return slices.Contains(a.OSFamilies, t.Family) && a.FitsPlan(p)
}

// FitsPlan reports whether the plan has the memory and disk the app needs.
func (a App) FitsPlan(p Plan) bool {
	return p.MemoryGB*1024 >= a.MinMemoryMB && p.DiskGB >= a.MinDiskGB
}

// DollarRate is what one US dollar costs in the reseller's local currency.
type DollarRate struct {
	Base      string
	Currency  string
	Price     int64
	UpdatedAt time.Time
}

// PlanFilter narrows Plans; zero fields do not filter.
type PlanFilter struct {
	DatacenterID int64
	CountryCode  string
}

// Catalog is the seeded catalogue. Build it with New; it never changes afterwards.
type Catalog struct {
	datacenters []Datacenter
	locations   []Location
	templates   []Template
	features    []Feature
	plans       []Plan
	apps        []App
	dollar      DollarRate
}

// New returns the seeded catalogue.
func New() *Catalog { return seed() }

// Datacenters returns every datacenter, ordered by id.
func (c *Catalog) Datacenters() []Datacenter { return cloneAll(c.datacenters, Datacenter.clone) }

// Datacenter returns the datacenter with id.
func (c *Catalog) Datacenter(id int64) (Datacenter, bool) {
	return find(c.datacenters, func(d *Datacenter) bool { return d.ID == id }, Datacenter.clone)
}

// Locations returns every location, ordered by id.
func (c *Catalog) Locations() []Location { return slices.Clone(c.locations) }

// Location returns the location with id.
func (c *Catalog) Location(id int64) (Location, bool) {
	return find(c.locations, func(l *Location) bool { return l.ID == id }, func(l Location) Location { return l })
}

// Template returns the template with id.
func (c *Catalog) Template(id int64) (Template, bool) {
	return find(c.templates, func(t *Template) bool { return t.ID == id }, func(t Template) Template { return t })
}

// Templates returns every template, ordered by id.
func (c *Catalog) Templates() []Template { return slices.Clone(c.templates) }

// Feature returns the feature with id.
func (c *Catalog) Feature(id int64) (Feature, bool) {
	return find(c.features, func(f *Feature) bool { return f.ID == id }, Feature.clone)
}

// Features returns every feature, ordered by id.
func (c *Catalog) Features() []Feature { return cloneAll(c.features, Feature.clone) }

// Plan returns the plan with id.
func (c *Catalog) Plan(id int64) (Plan, bool) {
	return find(c.plans, func(p *Plan) bool { return p.ID == id }, Plan.clone)
}

// Plans returns the plans matching f, ordered by id.
func (c *Catalog) Plans(f PlanFilter) []Plan {
	var out []Plan
	for _, p := range c.plans {
		if f.DatacenterID != 0 && p.DatacenterID != f.DatacenterID {
			continue
		}
		if f.CountryCode != "" {
			loc, ok := c.Location(p.LocationID)
			if !ok || loc.CountryCode != f.CountryCode {
				continue
			}
		}
		out = append(out, p.clone())
	}
	return out
}

// ResizeTargets returns the plans p can be resized to: bigger in every dimension, same location.
func (c *Catalog) ResizeTargets(p Plan) []Plan {
	var out []Plan
	for _, q := range c.plans {
		if p.BiggerInEveryDimension(q) {
			out = append(out, q.clone())
		}
	}
	return out
}

// PlanTemplates returns the templates plan p can be built from, in the plan's order.
func (c *Catalog) PlanTemplates(p Plan) []Template {
	out := make([]Template, 0, len(p.TemplateIDs))
	for _, id := range p.TemplateIDs {
		if t, ok := c.Template(id); ok {
			out = append(out, t)
		}
	}
	return out
}

// PlanFeatures returns the features plan p offers, in the plan's order.
func (c *Catalog) PlanFeatures(p Plan) []Feature {
	out := make([]Feature, 0, len(p.FeatureIDs))
	for _, id := range p.FeatureIDs {
		if f, ok := c.Feature(id); ok {
			out = append(out, f)
		}
	}
	return out
}

// ForcedFeatures returns the features of plan p that a template of osType switches on and bills
// even when the client did not ask for them (a Windows template always bills IPv4).
func (c *Catalog) ForcedFeatures(p Plan, osType string) []Feature {
	var out []Feature
	for _, f := range c.PlanFeatures(p) {
		if f.RequiredFor(osType) {
			out = append(out, f)
		}
	}
	return out
}

// Apps returns every app, ordered by id.
func (c *Catalog) Apps() []App { return cloneAll(c.apps, App.clone) }

// App returns the app with id.
func (c *Catalog) App(id string) (App, bool) {
	return find(c.apps, func(a *App) bool { return a.ID == id }, App.clone)
}

// AppsFor returns the apps that can run on plan p built from template t. A template the plan
// does not offer runs nothing.
func (c *Catalog) AppsFor(p Plan, t Template) []App {
	if !p.HasTemplate(t.ID) {
		return []App{}
	}
	out := []App{}
	for _, a := range c.apps {
		if a.RunsOn(p, t) {
			out = append(out, a.clone())
		}
	}
	return out
}

// AppsForPlan returns the apps that fit plan p with at least one of its templates.
func (c *Catalog) AppsForPlan(p Plan) []App {
	out := []App{}
	for _, a := range c.apps {
		for _, t := range c.PlanTemplates(p) {
			if a.RunsOn(p, t) {
				out = append(out, a.clone())
				break
			}
		}
	}
	return out
}

// AppsForTemplate returns the apps that run on template t's OS family.
func (c *Catalog) AppsForTemplate(t Template) []App {
	out := []App{}
	for _, a := range c.apps {
		if slices.Contains(a.OSFamilies, t.Family) {
			out = append(out, a.clone())
		}
	}
	return out
}

// Dollar returns the fixed dollar rate of GET /api/dollar.
func (c *Catalog) Dollar() DollarRate { return c.dollar }

func (d Datacenter) clone() Datacenter { return d }

func (f Feature) clone() Feature {
	f.RequiredForOSTypes = slices.Clone(f.RequiredForOSTypes)
	return f
}

func (p Plan) clone() Plan {
	p.TemplateIDs = slices.Clone(p.TemplateIDs)
	p.FeatureIDs = slices.Clone(p.FeatureIDs)
	p.Actions = slices.Clone(p.Actions)
	return p
}

func (a App) clone() App {
	a.Requires = slices.Clone(a.Requires)
	a.Conflicts = slices.Clone(a.Conflicts)
	a.Ports = slices.Clone(a.Ports)
	a.OSFamilies = slices.Clone(a.OSFamilies)
	a.Inputs = slices.Clone(a.Inputs)
	return a
}

func cloneAll[T any](in []T, clone func(T) T) []T {
	out := make([]T, len(in))
	for i, v := range in {
		out[i] = clone(v)
	}
	return out
}

func find[T any](in []T, match func(*T) bool, clone func(T) T) (T, bool) {
	for i := range in {
		if match(&in[i]) { // by pointer: a catalogue entry is a large struct, copied only once found
			return clone(in[i]), true
		}
	}
	var zero T
	return zero, false
}
