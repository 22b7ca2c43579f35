// Command baseline is a minimal terraform-plugin-framework provider, "nullres", whose resources
// keep everything in the state and whose Read does nothing. bench/scale refreshes N of them to
// measure what Terraform and the framework alone cost, the floor a real provider's refresh is
// compared with: nullres_item has two attributes, nullres_instance has reseller_instance's
// schema (what Terraform and the framework cost for a resource of that size).
package main

import (
	"context"
	_ "embed"
	"fmt"
	"log"
	"strconv"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/reseller/terraform-provider-reseller/internal/instance"
)

func main() {
	err := providerserver.Serve(context.Background(), func() provider.Provider { return &nullProvider{} },
		providerserver.ServeOpts{Address: "registry.terraform.io/bench/nullres"})
	if err != nil {
		log.Fatal(err)
	}
}

type nullProvider struct{}

func (p *nullProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "nullres"
}

func (p *nullProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}

func (p *nullProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p *nullProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

func (p *nullProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		func() resource.Resource { return &item{} },
		func() resource.Resource { return &shaped{} },
	}
}

// item is nullres_item: a name and an id, both kept in the state only.
type item struct{}

var nextID atomic.Int64

type itemModel struct {
	ID   types.String `tfsdk:"id"`
	Name types.String `tfsdk:"name"`
}

func (r *item) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = "nullres_item"
}

func (r *item) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"id":   schema.StringAttribute{Computed: true},
		"name": schema.StringAttribute{Required: true},
	}}
}

func (r *item) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m itemModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	m.ID = types.StringValue(strconv.FormatInt(nextID.Add(1), 10))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Read does nothing: the state stays as it is.
func (r *item) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *item) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m itemModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *item) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// shaped is nullres_instance: reseller_instance's schema, every value kept in the state as
// planned, nothing read from anywhere. Create gives each computed value the one a real server
// has, so the state holds what a real server's does and the floor is measured on the same
// amount of data.
type shaped struct{}

// serverJSON is the attributes of one reseller_instance in the state of bench/scale's refresh
// of 200 servers: the values a Create of nullres_instance takes for what the plan leaves unknown.
//
//go:embed server.json
var serverJSON []byte

func (r *shaped) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = "nullres_instance"
}

func (r *shaped) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = instance.Schema(ctx)
}

func (r *shaped) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	state, err := unknownsFromServer(req.Plan.Raw, req.Plan.Schema.Type().TerraformType(ctx))
	if err != nil {
		resp.Diagnostics.AddError("nullres_instance", err.Error())
		return
	}
	resp.State.Raw = state
}

// unknownsFromServer returns plan with each unknown attribute replaced by serverJSON's value.
func unknownsFromServer(plan tftypes.Value, typ tftypes.Type) (tftypes.Value, error) {
	server, err := (&tfprotov6.RawState{JSON: serverJSON}).UnmarshalWithOpts(typ, tfprotov6.UnmarshalOpts{})
	if err != nil {
		return tftypes.Value{}, fmt.Errorf("server.json: %w", err)
	}
	var planned, values map[string]tftypes.Value
	if err := plan.As(&planned); err != nil {
		return tftypes.Value{}, err
	}
	if err := server.As(&values); err != nil {
		return tftypes.Value{}, err
	}
	for name, v := range planned {
		if v.IsKnown() {
			values[name] = v
		}
	}
	return tftypes.NewValue(typ, values), nil
}

// Read does nothing: the state stays as it is.
func (r *shaped) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *shaped) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = knownOrNull(req.Plan.Raw)
}

func (r *shaped) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// knownOrNull returns v with every unknown value replaced by null.
func knownOrNull(v tftypes.Value) tftypes.Value {
	out, err := tftypes.Transform(v, func(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if !v.IsKnown() {
			return tftypes.NewValue(v.Type(), nil), nil
		}
		return v, nil
	})
	if err != nil {
		panic(err)
	}
	return out
}
