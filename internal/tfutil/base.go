package tfutil

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// DataSourceBase gives a data source the provider's API client. Embedding it supplies the
// Configure method every data source needs, so each one only states what it reads.
type DataSourceBase struct {
	client *client.Client
}

// Configure keeps the client the provider handed over.
func (b *DataSourceBase) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	b.client = ClientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// Client returns the configured client, or nil after adding the "provider not configured"
// diagnostic (the provider's settings were unknown at plan time), in which case Read returns.
func (b *DataSourceBase) Client(diags *diag.Diagnostics) *client.Client {
	if b.client == nil {
		AddUnconfiguredClient(diags)
	}
	return b.client
}

// ResourceBase is DataSourceBase for resources: it supplies Configure and hands the client over
// with the same "provider not configured" diagnostic.
type ResourceBase struct {
	client *client.Client
}

// Configure keeps the client the provider handed over.
func (b *ResourceBase) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	b.client = ClientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// Client returns the configured client, or nil after adding the "provider not configured"
// diagnostic, in which case the CRUD method returns.
func (b *ResourceBase) Client(diags *diag.Diagnostics) *client.Client {
	if b.client == nil {
		AddUnconfiguredClient(diags)
	}
	return b.client
}

// EphemeralResourceBase is DataSourceBase for ephemeral resources.
type EphemeralResourceBase struct {
	client *client.Client
}

// Configure keeps the client the provider handed over.
func (b *EphemeralResourceBase) Configure(_ context.Context, req ephemeral.ConfigureRequest, resp *ephemeral.ConfigureResponse) {
	b.client = ClientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// Client returns the configured client, or nil after adding the "provider not configured"
// diagnostic, in which case Open returns.
func (b *EphemeralResourceBase) Client(diags *diag.Diagnostics) *client.Client {
	if b.client == nil {
		AddUnconfiguredClient(diags)
	}
	return b.client
}

// ActionBase is DataSourceBase for actions.
type ActionBase struct {
	client *client.Client
}

// Configure keeps the client the provider handed over.
func (b *ActionBase) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	b.client = ClientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// Client returns the configured client, or nil after adding the "provider not configured"
// diagnostic, in which case Invoke returns.
func (b *ActionBase) Client(diags *diag.Diagnostics) *client.Client {
	if b.client == nil {
		AddUnconfiguredClient(diags)
	}
	return b.client
}
