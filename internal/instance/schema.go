package instance

import (
	"context"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/float64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
	"github.com/reseller/terraform-provider-reseller/wire"
)

// Limits of the API (spec: Limits) checked at plan time; the backend refuses the same.
const (
	maxNameLength = wire.MaxNameLength
	maxNoteLength = wire.MaxNoteLength
)

// Power values of the power attribute.
const (
	PowerOn  = "on"
	PowerOff = "off"
)

// featureID matches a feature id as the API takes it in active_features: digits.
var featureID = regexp.MustCompile(`^[0-9]+$`)

// trafficAttrTypes are the attribute types of the traffic object.
var trafficAttrTypes = map[string]attr.Type{
	"enabled":          types.BoolType,
	"included":         types.Int64Type,
	"used":             types.Int64Type,
	"overage":          types.Int64Type,
	"allow_overage":    types.BoolType,
	"cycle_start_date": types.StringType,
}

// appInputsType is the type of app_inputs: app id → input key → value.
var appInputsType = types.MapType{ElemType: types.StringType}

// SchemaVersion is the version of reseller_instance's schema, stored with every state. Move it (and add an
// UpgradeState step from the version before) when an attribute is renamed, retyped or removed;
// see "Changing a resource schema" in the README. TestSchemaVersions holds it to that.
const SchemaVersion int64 = 0

// Schema is the schema of reseller_instance.
func Schema(ctx context.Context) schema.Schema {
	attrs := argumentAttributes()
	for name, a := range computedAttributes() {
		attrs[name] = a
	}
	return schema.Schema{
		Version: SchemaVersion,
		MarkdownDescription: "An hourly-billed virtual server. Creating it places an order (with an " +
			"`Idempotency-Key`, so retries never order twice), waits until the order is deployed, the " +
			"credentials are delivered and, with `wait_for_apps`, every one-click app is installed.\n\n" +
			"`name`, `note`, `renew`, `power`, `plan_id` (when the new plan is one of the instance's resize " +
			"options, checked at plan time), `template_id` (rebuild: **erases the disk**, keeps the addresses) " +
			"and the two triggers change in place; every other argument replaces the server.\n\n" +
			"A create cut short by its timeout (or by an interrupt) keeps the order in the state with a " +
			"warning instead of failing: the next `terraform apply` shows an in-place update that resumes " +
			"waiting for the same order, so no second server is ordered.\n\n" + refreshNote,
		Attributes: attrs,
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}

// argumentAttributes are the attributes a configuration sets.
func argumentAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"plan_id": schema.Int64Attribute{
			MarkdownDescription: "Id of the plan (the API's `server_id`), e.g. from `reseller_plan`. Changing it " +
				"resizes the server in place when the new plan is one of its resize options (bigger in every " +
				"dimension, same location; the difference for the rest of the hour is charged at once); " +
				"otherwise the server is replaced. The plan shows which.",
			Required:   true,
			Validators: []validator.Int64{int64validator.AtLeast(1)},
		},
		"template_id": schema.Int64Attribute{
			MarkdownDescription: "Id of the OS template, e.g. from `reseller_template`. Exactly one of " +
				"`template_id` and `snapshot_id` is required. Changing it **rebuilds** the server in place: the " +
				"disk is erased and the new OS installed, the addresses are kept and a new password is set. " +
				"With `snapshot_id` it is computed: the template of the snapshot's OS.",
			Optional: true,
			Computed: true,
			Validators: []validator.Int64{
				int64validator.AtLeast(1),
				int64validator.ExactlyOneOf(path.MatchRoot("template_id"), path.MatchRoot("snapshot_id")),
			},
			PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
		},
		"snapshot_id": schema.Int64Attribute{
			MarkdownDescription: "Id of one of the account's snapshots to build the server from (it must be " +
				"`available` and compatible with the plan). Cannot be combined with `template_id` or `apps`. " +
				"Changing it replaces the server.",
			Optional:      true,
			Validators:    []validator.Int64{int64validator.AtLeast(1)},
			PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
		},
		"hostname": schema.StringAttribute{
			MarkdownDescription: "Hostname of the server: RFC 1123 labels (letters, digits, inner hyphens, " +
				"separated by dots), at most 63 characters. Generated by the API when omitted. Changing it " +
				"replaces the server.",
			Optional:   true,
			Computed:   true,
			Validators: []validator.String{tfutil.Hostname()},
			PlanModifiers: []planmodifier.String{
				stringplanmodifier.UseStateForUnknown(),
				stringplanmodifier.RequiresReplace(),
			},
		},
		"name": schema.StringAttribute{
			MarkdownDescription: "Display name, 1 to 64 characters. The API names a new server after its " +
				"hostname; removing the attribute keeps the current name. Changes in place.",
			Optional: true,
			Computed: true,
			Validators: []validator.String{
				stringvalidator.UTF8LengthBetween(1, maxNameLength),
				stringvalidator.RegexMatches(regexp.MustCompile(`\S`), "must not be only spaces"),
			},
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"note": schema.StringAttribute{
			MarkdownDescription: "Free-text note, 1 to 512 characters; removing it clears the note. Changes " +
				"in place.",
			Optional:   true,
			Validators: []validator.String{stringvalidator.UTF8LengthBetween(1, maxNoteLength)},
		},
		"features": schema.SetAttribute{
			MarkdownDescription: "Ids of optional features to order (see `features` of `reseller_plan`), as " +
				"strings. The API also enables and bills every feature the template's OS forces (for example " +
				"dedicated IPv4 for Windows) even when it is not listed. When this attribute is set it holds " +
				"exactly the ids written, so forced features never cause a diff; when it is omitted it is " +
				"computed as the features the OS forces. `active_features` shows what is billed. Changing the " +
				"set replaces the server.",
			Optional:    true,
			Computed:    true,
			ElementType: types.StringType,
			Validators: []validator.Set{
				setvalidator.ValueStringsAre(stringvalidator.RegexMatches(featureID, "must be a feature id (digits only)")),
			},
			PlanModifiers: []planmodifier.Set{setplanmodifier.UseStateForUnknown(), replaceSetIfKnown()},
		},
		"apps": schema.ListAttribute{
			MarkdownDescription: "Ids of one-click apps to install once the server is up (see " +
				"`reseller_apps`); dependencies are added by the API. Empty when omitted. Changing the list " +
				"replaces the server. Not with `snapshot_id`.",
			Optional:    true,
			Computed:    true,
			ElementType: types.StringType,
			Validators: []validator.List{
				listvalidator.UniqueValues(),
				listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1)),
				listvalidator.ConflictsWith(path.MatchRoot("snapshot_id")),
			},
			PlanModifiers: []planmodifier.List{listplanmodifier.UseStateForUnknown(), replaceListIfKnown()},
		},
		"app_inputs": schema.MapAttribute{
			MarkdownDescription: "Inputs of the apps: a map of app id to a map of input key to value (see " +
				"`inputs` of `reseller_apps`). Every input is optional and has a default. Sensitive. Changing it " +
				"replaces the server.",
			Optional:      true,
			Computed:      true,
			Sensitive:     true,
			ElementType:   appInputsType,
			PlanModifiers: []planmodifier.Map{mapplanmodifier.UseStateForUnknown(), replaceMapIfKnown()},
		},
		"app_inputs_wo": schema.MapAttribute{
			MarkdownDescription: "Write-only inputs of the apps, in the shape of `app_inputs` (app id to a map of " +
				"input key to value): sent with the order (and with a rebuild) but never stored in the plan or the " +
				"state (Terraform 1.11 or later; the values may come from ephemeral resources or variables). " +
				"Merged with `app_inputs`; a key given in both takes this value. Needs `app_inputs_wo_version`: " +
				"Terraform cannot see a change of a write-only value, so change the version to send new inputs " +
				"(which, like a change of `app_inputs`, replaces the server). Not with `snapshot_id`.",
			Optional:    true,
			Sensitive:   true,
			WriteOnly:   true,
			ElementType: appInputsType,
			Validators: []validator.Map{
				mapvalidator.AlsoRequires(path.MatchRoot("app_inputs_wo_version")),
				mapvalidator.ConflictsWith(path.MatchRoot("snapshot_id")),
			},
		},
		"app_inputs_wo_version": schema.Int64Attribute{
			MarkdownDescription: "Version of `app_inputs_wo`, any number you choose: changing it sends the current " +
				"`app_inputs_wo` to a new server (the server is replaced, as for a change of `app_inputs`). Only " +
				"with `app_inputs_wo`.",
			Optional:      true,
			Validators:    []validator.Int64{int64validator.AlsoRequires(path.MatchRoot("app_inputs_wo"))},
			PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
		},
		"store_password": schema.BoolAttribute{
			MarkdownDescription: "Whether `password` is kept in the state. Defaults to `true`. With `false` the " +
				"state's `password` stays null; read the login when it is needed with the ephemeral resource " +
				"`reseller_instance_credentials`, which never stores it. Changes in place (no API call).",
			Optional: true,
			Computed: true,
			Default:  booldefault.StaticBool(true),
		},
		"renew": schema.BoolAttribute{
			MarkdownDescription: "Whether the server renews every hour. With `false` it expires at " +
				"`renewal_due`. Defaults to `true`. Changes in place.",
			Optional: true,
			Computed: true,
			Default:  booldefault.StaticBool(true),
		},
		"power": schema.StringAttribute{
			MarkdownDescription: "Desired power state: `on` (default) or `off`. Changes in place with the " +
				"`power_on` and `power_off` actions; a server switched off outside Terraform shows as a change.",
			Optional:   true,
			Computed:   true,
			Default:    stringdefault.StaticString(PowerOn),
			Validators: []validator.String{stringvalidator.OneOf(PowerOn, PowerOff)},
		},
		"password_reset_trigger": schema.StringAttribute{
			MarkdownDescription: "Any string; changing it to a new value resets the root (or Administrator) " +
				"password with the `reset_password` action and updates `password`. Ignored on create.",
			Optional: true,
		},
		"ip_change_trigger": schema.StringAttribute{
			MarkdownDescription: "Any string; changing it to a new value gives the server a new IPv4 address " +
				"with the `change_ip` action and updates `ipv4`. Where a change costs money (`ip_change_cost` " +
				"above 0) `max_ip_change_cost` must be at least that cost. Ignored on create.",
			Optional: true,
		},
		"max_ip_change_cost": schema.Float64Attribute{
			MarkdownDescription: "Most USD you agree to pay for one IP change triggered by `ip_change_trigger` " +
				"(sent as `accept_cost`). Needed where `ip_change_cost` is above 0.",
			Optional:   true,
			Validators: []validator.Float64{float64validator.AtLeast(0)},
		},
		"wait_for_apps": schema.BoolAttribute{
			MarkdownDescription: "Whether create and rebuild wait until every app is installed (a failed " +
				"install is then an error quoting its log). Defaults to `true`.",
			Optional: true,
			Computed: true,
			Default:  booldefault.StaticBool(true),
		},
	}
}

// computedAttributes are the attributes only the API sets. Values that an update can change
// are marked unknown by ModifyPlan when one is planned; the rest keep their state.
func computedAttributes() map[string]schema.Attribute {
	keepInt := []planmodifier.Int64{int64planmodifier.UseStateForUnknown()}
	keepString := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	return map[string]schema.Attribute{
		"id": schema.Int64Attribute{
			MarkdownDescription: "Id of the instance. Null while the order of an interrupted create is still " +
				"being built.",
			Computed: true, PlanModifiers: keepInt,
		},
		"order_id": schema.Int64Attribute{
			MarkdownDescription: "Id of the order that built the server; null for an imported instance.",
			Computed:            true, PlanModifiers: keepInt,
		},
		"status": schema.StringAttribute{
			MarkdownDescription: "Status: `online`, `offline`, a transition such as `rebuilding`, or " +
				"`pending` while the order of an interrupted create is still being built.",
			Computed: true, PlanModifiers: keepString,
		},
		"ipv4":     schema.StringAttribute{MarkdownDescription: "Public IPv4 address.", Computed: true, PlanModifiers: keepString},
		"ipv6":     schema.StringAttribute{MarkdownDescription: "Public IPv6 address.", Computed: true, PlanModifiers: keepString},
		"username": schema.StringAttribute{MarkdownDescription: "Login user (`root`, or `Administrator` on Windows).", Computed: true, PlanModifiers: keepString},
		"password": schema.StringAttribute{
			MarkdownDescription: "Login password. Sensitive; stored in the state unless `store_password` is " +
				"`false`, when it is null.",
			Computed: true, Sensitive: true, PlanModifiers: keepString,
		},
		"port":          schema.Int64Attribute{MarkdownDescription: "SSH (or RDP) port.", Computed: true, PlanModifiers: keepInt},
		"datacenter_id": schema.Int64Attribute{MarkdownDescription: "Id of the datacenter.", Computed: true, PlanModifiers: keepInt},
		"location_id":   schema.Int64Attribute{MarkdownDescription: "Id of the location.", Computed: true, PlanModifiers: keepInt},
		"price": schema.Float64Attribute{
			MarkdownDescription: "USD charged when the order was deployed: the first hour with its features " +
				"(those the OS forces included) plus any creation fee. Known in the plan of a new server (from " +
				"`POST /quote`, asked once per distinct plan, template and features in the run; for a build from " +
				"a snapshot, from the plan in the catalogue) and unknown only where the order cannot be priced " +
				"yet (for example a `plan_id` known only after apply). A resize plans and records the new hourly " +
				"cost, features included. Null for an imported instance.",
			Computed: true, PlanModifiers: []planmodifier.Float64{float64planmodifier.UseStateForUnknown()},
		},
		"renewal_due": schema.StringAttribute{
			MarkdownDescription: "When the next hour is charged (RFC 3339); with `renew` false, when the server expires.",
			Computed:            true, PlanModifiers: keepString,
		},
		"created_at": schema.StringAttribute{MarkdownDescription: "When the server was created (RFC 3339).", Computed: true, PlanModifiers: keepString},
		"locked": schema.BoolAttribute{
			MarkdownDescription: "Whether the server is locked (debt, traffic cap passed, or deletion in " +
				"progress); a locked server refuses every change until the lock is lifted.",
			Computed: true, PlanModifiers: []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
		},
		"lock_reason": schema.StringAttribute{MarkdownDescription: "Why the server is locked, e.g. `debt`.", Computed: true, PlanModifiers: keepString},
		"ip_change_cost": schema.Float64Attribute{
			MarkdownDescription: "USD one `change_ip` costs on this server; 0 where it is free.",
			Computed:            true, PlanModifiers: []planmodifier.Float64{float64planmodifier.UseStateForUnknown()},
		},
		"active_features": schema.SetAttribute{
			MarkdownDescription: "Ids of the features billed on the server as the API reports them: those of " +
				"`features` plus those its OS forces. A rebuild may add forced features; a resize drops those " +
				"the new plan does not offer.",
			Computed: true, ElementType: types.StringType,
			PlanModifiers: []planmodifier.Set{setplanmodifier.UseStateForUnknown()},
		},
		"actions": schema.ListAttribute{
			MarkdownDescription: "Actions the server's plan supports.",
			Computed:            true, ElementType: types.StringType,
			PlanModifiers: []planmodifier.List{listplanmodifier.UseStateForUnknown()},
		},
		"traffic": schema.SingleNestedAttribute{
			MarkdownDescription: "Traffic of the current 30-day cycle, as last read.",
			Computed:            true,
			PlanModifiers:       []planmodifier.Object{objectplanmodifier.UseStateForUnknown()},
			Attributes: map[string]schema.Attribute{
				"enabled":          schema.BoolAttribute{MarkdownDescription: "Whether traffic is counted against an allowance.", Computed: true},
				"included":         schema.Int64Attribute{MarkdownDescription: "GB included per 30 days; 0 means unlimited.", Computed: true},
				"used":             schema.Int64Attribute{MarkdownDescription: "GB used in this cycle.", Computed: true},
				"overage":          schema.Int64Attribute{MarkdownDescription: "GB used beyond the allowance.", Computed: true},
				"allow_overage":    schema.BoolAttribute{MarkdownDescription: "Whether use beyond the allowance is allowed (and billed).", Computed: true},
				"cycle_start_date": schema.StringAttribute{MarkdownDescription: "Start of the current cycle (RFC 3339).", Computed: true},
			},
		},
	}
}
