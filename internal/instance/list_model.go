package instance

import (
	"context"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// ListConfigModel is the configuration of the reseller_instance list resource: filters over the
// account's servers, every one optional.
type ListConfigModel struct {
	Status       types.String `tfsdk:"status"`
	OnlyActive   types.Bool   `tfsdk:"only_active"`
	DatacenterID types.Int64  `tfsdk:"datacenter_id"`
	LocationID   types.Int64  `tfsdk:"location_id"`
	PlanID       types.Int64  `tfsdk:"plan_id"`
	NameRegex    types.String `tfsdk:"name_regex"`
}

// instanceFilter is a ListConfigModel ready to match instances.
type instanceFilter struct {
	config    ListConfigModel
	nameRegex *regexp.Regexp // nil: any name
}

// filter compiles the configuration (the regex was validated at plan time; an error here means
// it was unknown then).
func (m ListConfigModel) filter() (instanceFilter, error) {
	f := instanceFilter{config: m}
	if m.NameRegex.IsNull() {
		return f, nil
	}
	re, err := regexp.Compile(m.NameRegex.ValueString())
	if err != nil {
		return f, fmt.Errorf("compiling name_regex: %w", err)
	}
	f.nameRegex = re
	return f, nil
}

// matches reports whether in passes every filter that is set. only_active defaults to true:
// canceled and expired servers are left out unless it is false.
func (f instanceFilter) matches(in client.Instance) bool {
	c := f.config
	switch {
	case (c.OnlyActive.IsNull() || c.OnlyActive.ValueBool()) && in.Gone():
		return false
	case !c.Status.IsNull() && in.StatusValue() != c.Status.ValueString():
		return false
	case !int64Matches(c.DatacenterID, in.DatacenterID), !int64Matches(c.LocationID, in.LocationID):
		return false
	case !c.PlanID.IsNull() && in.ServerProductID != c.PlanID.ValueInt64():
		return false
	case f.nameRegex != nil && !f.nameRegex.MatchString(in.Name) && !f.nameRegex.MatchString(derefString(in.Hostname)):
		return false
	}
	return true
}

// int64Matches reports whether an optional filter is unset or equals the API's value.
func int64Matches(filter types.Int64, v *int64) bool {
	return filter.IsNull() || (v != nil && *v == filter.ValueInt64())
}

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// listDisplayName is how a found server is shown by terraform query: its name, and its hostname
// when that differs.
func listDisplayName(in client.Instance) string {
	if in.Hostname != nil && *in.Hostname != in.Name {
		return fmt.Sprintf("%s (%s)", in.Name, *in.Hostname)
	}
	return in.Name
}

// fillFromSummary sets the model of a found server from its list summary, as Read does on
// refresh (setSummary).
func fillFromSummary(ctx context.Context, in client.Instance, m *Model) diag.Diagnostics {
	return m.setSummary(ctx, &in)
}
