// Package provider defines the reseller provider: its configuration schema, the client it builds
// in Configure and hands to every type, and the registration lists of its data sources,
// resources and ephemeral resources.
package provider

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/reseller/terraform-provider-reseller/internal/account"
	"github.com/reseller/terraform-provider-reseller/internal/app"
	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/datacenters"
	"github.com/reseller/terraform-provider-reseller/internal/instance"
	"github.com/reseller/terraform-provider-reseller/internal/location"
	"github.com/reseller/terraform-provider-reseller/internal/planbudget"
	"github.com/reseller/terraform-provider-reseller/internal/quote"
	"github.com/reseller/terraform-provider-reseller/internal/serverplan"
	"github.com/reseller/terraform-provider-reseller/internal/snapshot"
	"github.com/reseller/terraform-provider-reseller/internal/template"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
	"github.com/reseller/terraform-provider-reseller/internal/webhookendpoint"
)

const (
	// Address is the provider's registry address.
	Address = "registry.terraform.io/reseller/reseller"
	// TypeName is the provider's type name, the prefix of every resource and data source.
	TypeName = "reseller"

	// Environment variables read when the matching attribute is not set.
	EnvEndpoint    = "RESELLER_ENDPOINT"
	EnvAltEndpoint = "RESELLER_ALT_ENDPOINT"
	EnvAPIKey      = "RESELLER_API_KEY"
	EnvPlanChecks  = "RESELLER_PLAN_CHECKS"

	// DefaultLanguage is the language of names and descriptions when language is not set.
	DefaultLanguage = "en"
	// DefaultMaxRetries is the retry budget when max_retries is not set.
	DefaultMaxRetries = 8
	// DefaultRateLimitScale is the pacing when rate_limit_scale is not set: the API's documented
	// limits.
	DefaultRateLimitScale = 1.0
	// DefaultPlanChecks is what the run-wide plan checks do when plan_checks is not set.
	DefaultPlanChecks = planbudget.ModeWarn
)

// Languages are the values the language attribute accepts: the API's.
var Languages = client.Languages

// PlanChecksModes are the values the plan_checks attribute accepts.
var PlanChecksModes = []string{planbudget.ModeWarn, planbudget.ModeError, planbudget.ModeOff}

var (
	_ provider.Provider                       = (*Provider)(nil)
	_ provider.ProviderWithEphemeralResources = (*Provider)(nil)
	_ provider.ProviderWithActions            = (*Provider)(nil)
	_ provider.ProviderWithListResources      = (*Provider)(nil)
)

// Provider is the reseller provider. version is the provider's release, sent in the User-Agent.
type Provider struct {
	version string
}

// Model is the provider configuration.
type Model struct {
	Endpoint    types.String `tfsdk:"endpoint"`
	AltEndpoint types.String `tfsdk:"alt_endpoint"`
	APIKey      types.String `tfsdk:"api_key"`
	Language    types.String `tfsdk:"language"`
	MaxRetries  types.Int64  `tfsdk:"max_retries"`

	RateLimitScale  types.Float64 `tfsdk:"rate_limit_scale"`
	DetailedRefresh types.Bool    `tfsdk:"detailed_refresh"`
	PlanChecks      types.String  `tfsdk:"plan_checks"`
}

// New returns the constructor providerserver.Serve and the acceptance tests call.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &Provider{version: version}
	}
}

// Metadata sets the type name and version.
func (p *Provider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = TypeName
	resp.Version = p.version
}

// Schema describes the provider block.
func (p *Provider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The reseller provider manages virtual servers, snapshots and webhooks of a " +
			"Reseller Server Service account and reads its catalogue (plans, datacenters, locations, " +
			"templates, one-click apps), quotes and wallet.",
		Attributes: map[string]schema.Attribute{
			"endpoint": schema.StringAttribute{
				MarkdownDescription: "Base URL of the API including the version prefix, for example " +
					"`https://api.example.com/api/v1`. May also be set with the `" + EnvEndpoint + "` " +
					"environment variable; the attribute wins.",
				Optional: true,
			},
			"alt_endpoint": schema.StringAttribute{
				MarkdownDescription: "Alternative base URL reaching the same API and account, used when " +
					"`endpoint` fails at the network level. May also be set with the `" + EnvAltEndpoint +
					"` environment variable; the attribute wins.",
				Optional: true,
			},
			"api_key": schema.StringAttribute{
				MarkdownDescription: "API key of the account. May also be set with the `" + EnvAPIKey +
					"` environment variable; the attribute wins.",
				Optional:  true,
				Sensitive: true,
			},
			"language": schema.StringAttribute{
				MarkdownDescription: "Language of the names and descriptions the API returns: `en` " +
					"(default) or `fa` (Persian).",
				Optional: true,
			},
			"max_retries": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("How many times a request is retried after a rate "+
					"limit (429), a 502, 503 or 504 answer, or a network error, with capped exponential "+
					"backoff; a server order (sent with an `Idempotency-Key`) also after a 500, whose "+
					"outcome is unknown, so an order placed but answered 500 reaches the state. "+
					"Defaults to `%d`; `0` disables retries. A create's or an action's wait "+
					"(orders, installs, snapshots, deletes) rides out an API still unavailable after "+
					"them, until the operation's own timeout.", DefaultMaxRetries),
				Optional: true,
			},
			"rate_limit_scale": schema.Float64Attribute{
				MarkdownDescription: "Multiplies the request budgets the provider keeps so that it never " +
					"sends a request the API would refuse. The budgets mirror the API's documented per-minute " +
					"limits, per route (e.g. every `GET /instances/{id}` shares one) and shared by every " +
					"resource of the run: catalogue reads and `POST /quote` 120, other reads 60 (polling " +
					"included), `POST /instances` 10, actions and restores 30, other writes 30, webhook changes " +
					"10. A request over its budget waits (logged at DEBUG; an operation held back noticeably " +
					"says so once at INFO with the expected wait). Defaults to `1`; use e.g. `2` for an account " +
					"with doubled limits, or the `--rate-limit-scale` of a test backend; `0` turns pacing off " +
					"(a 429 is then still retried after its `Retry-After`).",
				Optional: true,
			},
			"detailed_refresh": schema.BoolAttribute{
				MarkdownDescription: "When `true`, refreshing a `reseller_instance` always reads its detail " +
					"(`GET /instances/{id}`, one request per server) so credentials, traffic, " +
					"`ip_change_cost` and `active_features` are current. Defaults to `false`: the shared " +
					"instance list refreshes everything else and the detail is read only where needed (see " +
					"the resource's documentation).",
				Optional: true,
			},
			"plan_checks": schema.StringAttribute{
				MarkdownDescription: "What the run-wide checks of a plan do when the servers the run creates " +
					"would exceed the account's `server_limit` or its wallet's `available` balance: `warn` " +
					"(default) adds a warning to each create past a limit, `error` fails the plan there (so CI " +
					"stops before anything is ordered), `off` skips the checks and their requests. May also be " +
					"set with the `" + EnvPlanChecks + "` environment variable; the attribute wins. See " +
					"\"Plan checks\" above for what the tally cannot see.",
				Optional: true,
			},
		},
	}
}

// Configure builds the API client from the configuration and the environment and hands it to
// every data source, resource and ephemeral resource. Missing settings are reported before any
// request is made.
func (p *Provider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg Model
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}

	// A value known only after apply (for example an endpoint taken from another resource)
	// cannot be used yet. Following the framework's convention the provider stays unconfigured
	// (or defers, where Terraform allows it) instead of failing the plan.
	if cfg.Endpoint.IsUnknown() || cfg.AltEndpoint.IsUnknown() || cfg.APIKey.IsUnknown() ||
		cfg.Language.IsUnknown() || cfg.MaxRetries.IsUnknown() || cfg.RateLimitScale.IsUnknown() ||
		cfg.DetailedRefresh.IsUnknown() || cfg.PlanChecks.IsUnknown() {
		if req.ClientCapabilities.DeferralAllowed {
			resp.Deferred = &provider.Deferred{Reason: provider.DeferredReasonProviderConfigUnknown}
		}
		tflog.Debug(ctx, "provider configuration has unknown values; not configuring the client yet")
		return
	}

	endpoint, endpointSource := fromConfigOrEnv(cfg.Endpoint, "endpoint", EnvEndpoint)
	altEndpoint, altSource := fromConfigOrEnv(cfg.AltEndpoint, "alt_endpoint", EnvAltEndpoint)
	apiKey, _ := fromConfigOrEnv(cfg.APIKey, "api_key", EnvAPIKey)

	if endpoint == "" {
		resp.Diagnostics.AddAttributeError(path.Root("endpoint"), "Missing API endpoint",
			"The provider needs the API's base URL. Set the \"endpoint\" attribute in the provider "+
				"block or the "+EnvEndpoint+" environment variable, for example "+
				"http://127.0.0.1:8080/api/v1.")
	} else if err := client.CheckEndpoint(endpoint); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("endpoint"), "Invalid API endpoint",
			fmt.Sprintf("The endpoint %q (from %s) is not a usable URL: %s. Set the \"endpoint\" attribute "+
				"or the %s environment variable to the API's base URL, for example http://127.0.0.1:8080/api/v1.",
				endpoint, endpointSource, err, EnvEndpoint))
	}
	if altEndpoint != "" {
		if err := client.CheckEndpoint(altEndpoint); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("alt_endpoint"), "Invalid alternative API endpoint",
				fmt.Sprintf("The alternative endpoint %q (from %s) is not a usable URL: %s. Set the "+
					"\"alt_endpoint\" attribute or the %s environment variable to a base URL, or leave both unset.",
					altEndpoint, altSource, err, EnvAltEndpoint))
		}
	}
	planChecks := planChecksMode(cfg.PlanChecks, &resp.Diagnostics)
	if apiKey == "" {
		resp.Diagnostics.AddAttributeError(path.Root("api_key"), "Missing API key",
			"The provider needs an API key. Set the \"api_key\" attribute in the provider block or "+
				"the "+EnvAPIKey+" environment variable.")
	}
	if resp.Diagnostics.HasError() {
		return
	}

	language := DefaultLanguage
	if !cfg.Language.IsNull() {
		language = cfg.Language.ValueString()
	}
	maxRetries := int64(DefaultMaxRetries)
	if !cfg.MaxRetries.IsNull() {
		maxRetries = cfg.MaxRetries.ValueInt64()
	}

	rateLimitScale := DefaultRateLimitScale
	if !cfg.RateLimitScale.IsNull() {
		rateLimitScale = cfg.RateLimitScale.ValueFloat64()
	}

	c, err := client.New(client.Config{
		Endpoint:        endpoint,
		AltEndpoint:     altEndpoint,
		APIKey:          apiKey,
		Language:        language,
		MaxRetries:      int(maxRetries),
		UserAgent:       "terraform-provider-reseller/" + p.version,
		RateLimitScale:  rateLimitScale,
		DetailedRefresh: cfg.DetailedRefresh.ValueBool(),
	})
	if err != nil {
		resp.Diagnostics.AddError("Unable to create the API client", err.Error())
		return
	}
	tflog.Debug(ctx, "configured the reseller API client", map[string]any{
		"endpoint": endpoint, "alt_endpoint": altEndpoint, "language": language, "max_retries": maxRetries,
		"rate_limit_scale": rateLimitScale, "detailed_refresh": cfg.DetailedRefresh.ValueBool(),
		"plan_checks": planChecks,
	})

	resp.DataSourceData = c
	resp.ResourceData = &tfutil.ResourceData{Client: c, Checks: planbudget.New(c, planChecks)}
	resp.EphemeralResourceData = c
	resp.ActionData = c
	resp.ListResourceData = c
}

// DataSources lists every data source of the provider.
func (p *Provider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		account.NewDataSource,
		account.NewBalanceDataSource,
		app.NewDataSource,
		datacenters.NewDataSource,
		instance.NewInstancesDataSource,
		location.NewDataSource,
		serverplan.NewDataSource,
		serverplan.NewPlansDataSource,
		quote.NewDataSource,
		snapshot.NewSnapshotsDataSource,
		template.NewDataSource,
	}
}

// Resources lists every resource of the provider.
func (p *Provider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		instance.NewResource,
		snapshot.NewResource,
		snapshot.NewRestore,
		webhookendpoint.NewResource,
	}
}

// EphemeralResources lists every ephemeral resource of the provider.
func (p *Provider) EphemeralResources(_ context.Context) []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{
		instance.NewConsole,
		instance.NewCredentials,
	}
}

// Actions lists every action of the provider (Terraform 1.14 and later invoke them).
func (p *Provider) Actions(_ context.Context) []func() action.Action {
	return []func() action.Action{
		instance.NewPowerAction,
		instance.NewResetPasswordAction,
		snapshot.NewCreateAction,
	}
}

// ListResources lists every list resource of the provider (terraform query, Terraform 1.14 and
// later).
func (p *Provider) ListResources(_ context.Context) []func() list.ListResource {
	return []func() list.ListResource{
		instance.NewListResource,
		snapshot.NewListResource,
	}
}

// fromConfigOrEnv returns the attribute's value when set and not empty, otherwise the
// environment variable's, with a description of where the value came from.
func fromConfigOrEnv(v types.String, attr, env string) (string, string) {
	if s := strings.TrimSpace(v.ValueString()); !v.IsNull() && s != "" {
		return s, fmt.Sprintf("the %q attribute", attr)
	}
	return strings.TrimSpace(os.Getenv(env)), "the " + env + " environment variable"
}
