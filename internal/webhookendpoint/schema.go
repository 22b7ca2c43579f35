package webhookendpoint

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	hook "github.com/reseller/terraform-provider-reseller/webhook"
)

// SchemaVersion is the version of reseller_webhook's schema, stored with every state. Move it (and add an
// UpgradeState step from the version before) when an attribute is renamed, retyped or removed;
// see "Changing a resource schema" in the README. TestSchemaVersions holds it to that.
const SchemaVersion int64 = 0

// Schema is the schema of reseller_webhook.
func Schema() schema.Schema {
	return schema.Schema{
		Version: SchemaVersion,
		MarkdownDescription: "The account's webhook: the one HTTPS endpoint that receives every event of the " +
			"account (orders, servers, snapshots, low balance), each delivery signed with HMAC-SHA256 and the " +
			"secret (header `X-Service-Signature`). An account has one webhook, so a configuration has at most one " +
			"`reseller_webhook`; creating it refuses to replace a registration made outside Terraform (import that " +
			"one with the id `webhook`).\n\n" +
			"Give the secret either as `secret` (kept in the state, marked sensitive) or, with Terraform 1.11 or " +
			"later, as the write-only `secret_wo` with `secret_wo_version` (never stored in the plan or the state; " +
			"change `secret_wo_version` to send a new secret). With `verify = true` every create and update sends " +
			"the test event `ping` and fails unless the endpoint answered 2xx. The API never returns the secret, " +
			"so a secret changed outside Terraform cannot be detected.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Always `webhook`: there is one per account.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"url": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("Endpoint that receives the events: an absolute `https://` URL of at most %d ", hook.MaxURLLength) +
					"characters, without credentials or fragment. `http://` is accepted only for a receiver on the " +
					"same machine (`127.0.0.1`, `localhost`, `[::1]`) and only by a backend started with " +
					"`--allow-http-webhooks`. Changes in place.",
				Required:   true,
				Validators: []validator.String{URL()},
			},
			"secret": schema.StringAttribute{
				MarkdownDescription: secretLimits("Secret that signs the deliveries") + ". Stored in the state " +
					"(sensitive). Exactly one of `secret` and `secret_wo` is required. Changes in place.",
				Optional:  true,
				Sensitive: true,
				Validators: []validator.String{
					stringvalidator.UTF8LengthBetween(hook.MinSecretLength, hook.MaxSecretLength),
					stringvalidator.ExactlyOneOf(path.MatchRoot("secret"), path.MatchRoot("secret_wo")),
				},
			},
			"secret_wo": schema.StringAttribute{
				MarkdownDescription: secretLimits("Write-only secret that signs the deliveries") + ": sent to the " +
					"API but never stored in the plan or the state (Terraform 1.11 or later; it may come from an " +
					"ephemeral value). Needs `secret_wo_version`; Terraform cannot see a change of the value itself, " +
					"so change `secret_wo_version` to send a new secret.",
				Optional:  true,
				Sensitive: true,
				WriteOnly: true,
				Validators: []validator.String{
					stringvalidator.UTF8LengthBetween(hook.MinSecretLength, hook.MaxSecretLength),
					stringvalidator.AlsoRequires(path.MatchRoot("secret_wo_version")),
				},
			},
			"secret_wo_version": schema.Int64Attribute{
				MarkdownDescription: "Version of `secret_wo`, any number you choose: changing it sends the current " +
					"`secret_wo` to the API (an in-place update). Only with `secret_wo`.",
				Optional: true,
				Validators: []validator.Int64{
					int64validator.AlsoRequires(path.MatchRoot("secret_wo")),
				},
			},
			"verify": schema.BoolAttribute{
				MarkdownDescription: "Whether every create and update sends the test event `ping` and fails unless the " +
					"endpoint answered with a 2xx status (the error quotes what it answered). Default `false`.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
			},
			"configured": schema.BoolAttribute{
				MarkdownDescription: "Whether the API has the webhook registered (true while the resource exists).",
				Computed:            true,
				PlanModifiers:       []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
			},
			"events": schema.ListAttribute{
				MarkdownDescription: "Names of the events the service can send, e.g. `order.deployed`, " +
					"`snapshot.created`, `balance.low`.",
				Computed:      true,
				ElementType:   types.StringType,
				PlanModifiers: []planmodifier.List{listplanmodifier.UseStateForUnknown()},
			},
		},
	}
}

// secretLimits appends the API's secret length limits to what.
func secretLimits(what string) string {
	return fmt.Sprintf("%s, %d to %d characters", what, hook.MinSecretLength, hook.MaxSecretLength)
}
