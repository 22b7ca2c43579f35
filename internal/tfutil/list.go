package tfutil

import (
	"context"
	"iter"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// ListConverter is what ListResults needs of a list resource to turn one API item into a result:
// its display name, the resource model filled from it (by the same conversion the resource's
// Read uses) and the identity taken from that model (by the resource's own setIdentity).
type ListConverter[T, M any] struct {
	DisplayName func(item T) string
	Fill        func(ctx context.Context, item T, m *M) diag.Diagnostics
	SetIdentity func(ctx context.Context, state *tfsdk.State, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics)
}

// StreamList answers a list resource's List request: it reads the filters into a C, finds the
// items with find and the client of base (what names them in an error) and streams them with
// ListResults.
func StreamList[C, T, M any](ctx context.Context, base *ResourceBase, req list.ListRequest, stream *list.ListResultsStream,
	what string, find func(ctx context.Context, c *client.Client, config C) ([]T, error), conv ListConverter[T, M]) {
	var diags diag.Diagnostics
	c := base.Client(&diags)
	var config C
	if c != nil {
		diags.Append(req.Config.Get(ctx, &config)...)
	}
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	items, err := find(ctx, c, config)
	if err != nil {
		AddAPIError(&diags, "Unable to list "+what, err)
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	stream.Results = ListResults(ctx, req, items, conv)
}

// ListResults streams one list result per item, in order, stopping when Terraform has enough.
// Every result carries the identity and display name; the resource object only when the request
// includes it (terraform query -generate-config-out, or include_resource = true).
func ListResults[T, M any](ctx context.Context, req list.ListRequest, items []T, conv ListConverter[T, M]) iter.Seq[list.ListResult] {
	return func(push func(list.ListResult) bool) {
		for _, item := range items {
			if !push(listResult(ctx, req, item, conv)) {
				return
			}
		}
	}
}

// listResult converts one item.
func listResult[T, M any](ctx context.Context, req list.ListRequest, item T, conv ListConverter[T, M]) list.ListResult {
	result := req.NewListResult(ctx)
	result.DisplayName = conv.DisplayName(item)
	state := tfsdk.State{Raw: EmptyObject(result.Resource.Raw.Type()), Schema: req.ResourceSchema}
	var m M
	result.Diagnostics.Append(state.Get(ctx, &m)...)
	result.Diagnostics.Append(conv.Fill(ctx, item, &m)...)
	result.Diagnostics.Append(state.Set(ctx, &m)...)
	if result.Diagnostics.HasError() {
		return result
	}
	conv.SetIdentity(ctx, &state, result.Identity, &result.Diagnostics)
	if req.IncludeResource {
		result.Resource.Raw = state.Raw
	}
	return result
}

// EmptyObject returns a value of the object type typ whose every attribute is null: a model can
// be read from it (a null object cannot) and then filled from the API.
func EmptyObject(typ tftypes.Type) tftypes.Value {
	obj, ok := typ.(tftypes.Object)
	if !ok {
		return tftypes.NewValue(typ, nil)
	}
	attrs := make(map[string]tftypes.Value, len(obj.AttributeTypes))
	for name, t := range obj.AttributeTypes {
		attrs[name] = tftypes.NewValue(t, nil)
	}
	return tftypes.NewValue(typ, attrs)
}
