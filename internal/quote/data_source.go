// Package quote implements the reseller_quote data source: the exact price of an order before
// it is placed, and whether the wallet covers it.
package quote

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

// TypeName is the type name of the data source.
const TypeName = "reseller_quote"

var _ datasource.DataSourceWithConfigure = (*DataSource)(nil)

// DataSource is reseller_quote.
type DataSource struct {
	tfutil.DataSourceBase
}

// NewDataSource returns reseller_quote.
func NewDataSource() datasource.DataSource { return &DataSource{} }

// Metadata sets the type name.
func (d *DataSource) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = TypeName
}

// Schema describes reseller_quote.
func (d *DataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = Schema()
}

// Read asks for the quote.
func (d *DataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	c := d.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	var data Model
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	in, diags := data.request(ctx)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	q, err := c.Quote(ctx, in)
	switch {
	case tfutil.IsNotFound(err):
		what := fmt.Sprintf("plan %d", in.ServerID)
		if in.TemplateID != nil {
			what = fmt.Sprintf("plan %d or template %d", in.ServerID, *in.TemplateID)
		}
		resp.Diagnostics.AddAttributeError(path.Root("plan_id"), "Plan not found",
			fmt.Sprintf("The quote failed because %s was not found in the catalogue.\n\n%s", what, tfutil.APIErrorDetail(err)))
		return
	case err != nil:
		tfutil.AddAPIError(&resp.Diagnostics, fmt.Sprintf("Unable to quote plan %d", in.ServerID), err)
		return
	}
	resp.Diagnostics.Append(data.setQuote(ctx, *q)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}
