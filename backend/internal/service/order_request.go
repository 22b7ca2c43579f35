package service

import (
	"context"
	"net/mail"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/wire"
)

// OrderRequest is the body of POST /instances; nil pointers were not sent (or were null).
type OrderRequest struct {
	ServerID       *int64
	TemplateID     *int64
	Term           *string
	SnapshotID     *int64
	ActiveFeatures []string
	Hostname       *string
	Apps           []string
	AppInputs      map[string]map[string]string
}

// orderSpec is a validated order: everything its row records.
type orderSpec struct {
	plan       PlanDetail
	template   catalog.Template
	snapshotID int64
	features   []catalog.Feature
	hostname   string
	apps       []catalog.App // install order, dependencies first
	inputs     map[string]map[string]string
	price      money.Micros // first charge: one hour of plan and features plus the creation fee
}

// validateOrder checks every body rule of POST /instances, in the order a client would fix
// them: required fields, the plan and its datacenter, what the disk is built from, features,
// hostname, apps and their inputs.
func (s *Service) validateOrder(ctx context.Context, acct store.Account, req OrderRequest) (orderSpec, error) {
	if req.ServerID == nil {
		return orderSpec{}, Validation("server_id", "is required")
	}
	if req.Term == nil {
		return orderSpec{}, Validation("term", "is required; only %q is accepted", catalog.TermHourly)
	}
	if err := CheckTerm(*req.Term); err != nil {
		return orderSpec{}, err
	}
	plan, err := s.Plan(ctx, acct, *req.ServerID)
	if err != nil {
		return orderSpec{}, err
	}
	if !plan.Datacenter.TakesOrders() {
		return orderSpec{}, Conflict(CodeDatacenterUnavailable, "datacenter %d is %s and takes no orders now",
			plan.Datacenter.ID, plan.Datacenter.Status)
	}
	spec := orderSpec{plan: plan}
	var src snapshotSource
	if spec.template, src, err = s.orderSource(ctx, acct, plan, req); err != nil {
		return orderSpec{}, err
	}
	spec.snapshotID = src.id
	if spec.features, err = s.orderFeatures(plan, spec.template, src, req.ActiveFeatures); err != nil {
		return orderSpec{}, err
	}
	if spec.hostname, err = s.hostname(req.Hostname); err != nil {
		return orderSpec{}, err
	}
	if spec.apps, err = s.resolveApps(acct, plan.Plan, spec.template, req.Apps); err != nil {
		return orderSpec{}, err
	}
	if spec.inputs, err = appInputs(spec.apps, req.AppInputs); err != nil {
		return orderSpec{}, err
	}
	spec.price = plan.CreationFee + hourly(plan.Plan, spec.features)
	return spec, nil
}

// hourly is what an hour of a plan with features costs.
func hourly(p catalog.Plan, features []catalog.Feature) money.Micros {
	total := p.Price
	for _, f := range features {
		total += f.Price
	}
	return total
}

// orderSource decides what the new disk is built from: the template, or one of the account's
// snapshots (whose OS then replaces the template, as the spec says).
func (s *Service) orderSource(ctx context.Context, acct store.Account, plan PlanDetail, req OrderRequest) (catalog.Template, snapshotSource, error) {
	if req.SnapshotID != nil {
		if len(req.Apps) > 0 {
			return catalog.Template{}, snapshotSource{}, Validation("apps", "cannot be combined with snapshot_id")
		}
		src, err := s.snapshotForOrder(ctx, acct, plan, *req.SnapshotID)
		if err != nil {
			return catalog.Template{}, snapshotSource{}, err
		}
		return src.template, src, nil
	}
	if req.TemplateID == nil {
		return catalog.Template{}, snapshotSource{}, Validation("template_id", "is required unless snapshot_id is set")
	}
	tmpl, ok := s.catalog.Template(*req.TemplateID)
	if !ok || !plan.HasTemplate(tmpl.ID) {
		return catalog.Template{}, snapshotSource{}, Validation("template_id", "%d is not a template of server %d", *req.TemplateID, plan.ID)
	}
	return tmpl, snapshotSource{}, nil
}

// snapshotSource is a snapshot a new server can be built from, with the template of its OS and
// the features the snapshot's instance had; the zero value is "built from a template".
type snapshotSource struct {
	id       int64
	template catalog.Template
	features []int64
}

// snapshotForOrder finds the account's snapshot a new server of plan may be built from: 404
// when it is not the account's, 409 when it is not available or is locked (snapshot_unavailable,
// snapshot_locked: both clear with time or a top-up), and 400 naming snapshot_id when it can
// never build this plan (compatible).
func (s *Service) snapshotForOrder(ctx context.Context, acct store.Account, plan PlanDetail, id int64) (snapshotSource, error) {
	snap, err := s.snapshot(ctx, s.store, acct.ID, id)
	if err != nil {
		return snapshotSource{}, err
	}
	if err := usable(snap, s.now()); err != nil {
		return snapshotSource{}, err
	}
	if err := compatible(snap, plan); err != nil {
		return snapshotSource{}, err
	}
	tmpl, _ := s.catalog.Template(snap.TemplateID)
	return snapshotSource{id: snap.ID, template: tmpl, features: snap.Features}, nil
}

// compatible applies the spec's rules of a build from a snapshot: the plan is in the snapshot's
// datacenter, its disk holds the snapshot, it has the snapshot's architecture, and it is at the
// snapshot's location unless the datacenter's snapshots are cross_location.
func compatible(snap store.Snapshot, plan PlanDetail) error {
	switch {
	case plan.DatacenterID != snap.DatacenterID:
		return Validation("snapshot_id", "snapshot %d is in datacenter %d; server %d is in datacenter %d",
			snap.ID, snap.DatacenterID, plan.ID, plan.DatacenterID)
	case plan.DiskGB < snap.SizeGB:
		return Validation("snapshot_id", "snapshot %d holds %d GB; the disk of server %d has %d GB",
			snap.ID, snap.SizeGB, plan.ID, plan.DiskGB)
	case plan.Architecture != snap.Architecture:
		return Validation("snapshot_id", "snapshot %d is %s; server %d is %s", snap.ID, snap.Architecture, plan.ID, plan.Architecture)
	case !plan.Datacenter.Snapshots.CrossLocation && plan.LocationID != snap.LocationID:
		return Validation("snapshot_id", "snapshot %d is at location %d and datacenter %d builds from snapshots only there; server %d is at location %d",
			snap.ID, snap.LocationID, snap.DatacenterID, plan.ID, plan.LocationID)
	}
	return nil
}

// orderFeatures resolves the features of a new server. A template build takes the requested
// ones; a clone takes them too when active_features is sent, and otherwise carries the
// snapshot's features that its plan offers. Either way the features the OS forces are added.
func (s *Service) orderFeatures(plan PlanDetail, tmpl catalog.Template, src snapshotSource, requested []string) ([]catalog.Feature, error) {
	if src.id == 0 {
		return s.chosenFeatures(plan, &tmpl.ID, requested)
	}
	if requested == nil {
		for _, id := range src.features {
			if plan.HasFeature(id) {
				requested = append(requested, strconv.FormatInt(id, 10))
			}
		}
	}
	features, err := s.chosenFeatures(plan, nil, requested)
	if err != nil {
		return nil, err
	}
	return s.withForced(plan.Plan, tmpl.OSType, features), nil
}

// maxHostname is the longest hostname accepted (spec: RFC 1123 labels, max 63 characters).
const maxHostname = wire.MaxHostnameLength

// hostname checks the requested hostname, or generates one when none was sent.
func (s *Service) hostname(h *string) (string, error) {
	if h == nil {
		return s.randomHex("srv-", 4)
	}
	if !ValidHostname(*h) {
		return "", Validation("hostname", "must be RFC 1123 labels (letters, digits, inner hyphens) separated by dots, at most %d characters", maxHostname)
	}
	return *h, nil
}

// ValidHostname reports whether h is RFC 1123 labels of at most maxHostname characters in all.
func ValidHostname(h string) bool {
	if h == "" || len(h) > maxHostname {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		if strings.IndexFunc(label, notHostnameRune) >= 0 {
			return false
		}
	}
	return true
}

// notHostnameRune reports a character a hostname label may not hold: only ASCII letters, digits
// and hyphens are allowed.
func notHostnameRune(c rune) bool {
	letterOrDigit := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	return !letterOrDigit && c != '-'
}

// maxInputLength bounds any app input value.
const maxInputLength = 255

// minPasswordInput is the shortest password input accepted; an empty one is generated.
const minPasswordInput = 8

// appInputs checks app_inputs against the apps to install and returns every input of every app,
// the sent value or its default. Empty password inputs stay empty: the installer generates them.
func appInputs(apps []catalog.App, sent map[string]map[string]string) (map[string]map[string]string, error) {
	byID := map[string]catalog.App{}
	for _, a := range apps {
		byID[a.ID] = a
	}
	for appID, values := range sent {
		app, ok := byID[appID]
		if !ok {
			return nil, Validation("app_inputs", "%q is not among the apps to install", appID)
		}
		for key, value := range values {
			in, ok := findInput(app, key)
			if !ok {
				return nil, Validation("app_inputs."+appID+"."+key, "is not an input of %s", appID)
			}
			if msg := checkInput(in, value); msg != "" {
				return nil, Validation("app_inputs."+appID+"."+key, "%s", msg)
			}
		}
	}
	out := make(map[string]map[string]string, len(apps))
	for _, a := range apps {
		values := make(map[string]string, len(a.Inputs))
		for _, in := range a.Inputs {
			v := sent[a.ID][in.Key]
			if v == "" {
				v = in.Default
			}
			values[in.Key] = v
		}
		out[a.ID] = values
	}
	return out, nil
}

func findInput(a catalog.App, key string) (catalog.AppInput, bool) {
	for _, in := range a.Inputs {
		if in.Key == key {
			return in, true
		}
	}
	return catalog.AppInput{}, false
}

// checkInput validates one input value by its kind and returns what is wrong, or "". An empty
// value means "use the default" and is always accepted.
func checkInput(in catalog.AppInput, v string) string {
	if v == "" {
		return ""
	}
	if utf8.RuneCountInString(v) > maxInputLength {
		return "is longer than 255 characters"
	}
	switch in.Kind {
	case catalog.KindEmail:
		if a, err := mail.ParseAddress(v); err != nil || a.Address != v || !strings.Contains(v[strings.LastIndex(v, "@"):], ".") {
			return "must be an email address"
		}
	case catalog.KindNumber:
		if n, err := strconv.Atoi(v); err != nil || n < 0 {
			return "must be a whole number of 0 or more"
		}
	case catalog.KindBoolean:
		if v != "true" && v != "false" {
			return `must be "true" or "false"`
		}
	case catalog.KindDomain:
		if !ValidHostname(v) || !strings.Contains(v, ".") {
			return "must be a domain name"
		}
	case catalog.KindPassword:
		if len(v) < minPasswordInput {
			return "must be at least 8 characters, or empty to have one generated"
		}
	}
	return ""
}
